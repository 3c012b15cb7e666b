package main

import (
	"runtime/debug"
	"testing"
)

// TestSetGCPercent: the operator's GOGC is 50 unless GOGC is set, which
// wins.
func TestSetGCPercent(t *testing.T) {
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	env := map[string]string{"GOGC": "200"}
	if setGCPercent(func(k string) string { return env[k] }) {
		t.Error("GOGC was set, yet the operator's own was applied")
	}
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GC percent %d with GOGC set, want it left at 100", got)
	}
	if !setGCPercent(func(string) string { return "" }) {
		t.Error("without GOGC the operator's own was not applied")
	}
	if got := debug.SetGCPercent(100); got != managerGCPercent {
		t.Errorf("GC percent %d, want %d", got, managerGCPercent)
	}
}
