package resultspath

import (
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	for _, good := range []string{
		"a", "ns/scan", "ns/scan/2026-11-30_01-02-03_audit/axe_core_audit.csv", "ns/.hidden", "ns/a..b",
		strings.Repeat("a", 255), strings.Repeat("a/", 349) + "ab", // MaxLen bytes
	} {
		if err := Check(good); err != nil {
			t.Errorf("%q: %v", good, err)
		}
	}
	for _, bad := range []string{
		"", "/ns", "ns/", "ns//scan", "../x", "ns/../x", "./ns", "ns/.", "..", ".", `ns\scan`, "ns/sc an",
		"ns/%2e%2e", "ns/é", "ns/scan\x00", strings.Repeat("a", 256), strings.Repeat("a/", 349) + "abc",
	} {
		if err := Check(bad); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
}

func TestSafeName(t *testing.T) {
	for name, want := range map[string]bool{
		"a": true, "axe_core_audit.csv": true, ".upload-check": true, "..": false, ".": false, "": false,
		"a/b": false, "a b": false, strings.Repeat("x", 255): true, strings.Repeat("x", 256): false,
	} {
		if got := SafeName(name); got != want {
			t.Errorf("SafeName(%q) = %v, want %v", name, got, want)
		}
	}
}
