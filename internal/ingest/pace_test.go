package ingest

import (
	"runtime/debug"
	"testing"
)

// TestPaceCollector: ingests running at once share one pace, and the
// last to finish restores the process's own; a process collecting more
// often, or only at its memory limit, keeps its setting.
func TestPaceCollector(t *testing.T) {
	own := debug.SetGCPercent(100)
	defer debug.SetGCPercent(own)
	gcPercent := func() int { p := debug.SetGCPercent(0); debug.SetGCPercent(p); return p }

	first := paceCollector()
	second := paceCollector()
	if got := gcPercent(); got != gcPercentIngesting {
		t.Fatalf("two ingests running: GOGC %d, want %d", got, gcPercentIngesting)
	}
	first()
	if got := gcPercent(); got != gcPercentIngesting {
		t.Errorf("one ingest still running: GOGC %d, want %d", got, gcPercentIngesting)
	}
	second()
	if got := gcPercent(); got != 100 {
		t.Errorf("no ingest running: GOGC %d, want the process's 100", got)
	}
	for _, kept := range []int{-1, 10, gcPercentIngesting} {
		debug.SetGCPercent(kept)
		restore := paceCollector()
		if got := gcPercent(); got != kept {
			t.Errorf("process at GOGC %d: %d while ingesting", kept, got)
		}
		restore()
		if got := gcPercent(); got != kept {
			t.Errorf("process at GOGC %d: %d after", kept, got)
		}
	}
}
