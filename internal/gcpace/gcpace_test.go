package gcpace

import (
	"runtime/debug"
	"testing"
)

// TestDuring: holders running at once share one pace, and the last to
// finish restores the process's own; a process collecting more
// often, or only at its memory limit, keeps its setting.
func TestDuring(t *testing.T) {
	own := debug.SetGCPercent(100)
	defer debug.SetGCPercent(own)
	gcPercent := func() int { p := debug.SetGCPercent(0); debug.SetGCPercent(p); return p }

	first := During()
	second := During()
	if got := gcPercent(); got != Percent {
		t.Fatalf("two holders running: GOGC %d, want %d", got, Percent)
	}
	first()
	if got := gcPercent(); got != Percent {
		t.Errorf("one holder still running: GOGC %d, want %d", got, Percent)
	}
	second()
	if got := gcPercent(); got != 100 {
		t.Errorf("none running: GOGC %d, want the process's 100", got)
	}
	for _, kept := range []int{-1, Percent / 2, Percent} {
		debug.SetGCPercent(kept)
		restore := During()
		if got := gcPercent(); got != kept {
			t.Errorf("process at GOGC %d: %d during", kept, got)
		}
		restore()
		if got := gcPercent(); got != kept {
			t.Errorf("process at GOGC %d: %d after", kept, got)
		}
	}
}
