package gcpace

import (
	"runtime"
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

// sink keeps the work's table reachable from outside the function that
// makes it, so that the compiler cannot drop it early.
var sink []byte

// TestLastHolderCollects: the last holder to finish collects what the
// work left before the pace is loosened, so the heap starts from what is
// live rather than from the work's tables; a holder finishing while
// another runs, or a process that kept its own pace, does not.
func TestLastHolderCollects(t *testing.T) {
	own := debug.SetGCPercent(100)
	defer debug.SetGCPercent(own)
	collections := func() uint32 {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.NumGC
	}
	const table = 64 << 20
	first, second := During(), During()
	sink = make([]byte, table)
	for i := range sink {
		sink[i] = byte(i) // resident, not only reserved
	}
	runtime.GC() // none in flight below: the table is live for this one
	sink = nil
	before := collections()
	first()
	if n := collections() - before; n != 0 {
		t.Errorf("a holder finishing while another runs collected %d times", n)
	}
	second()
	if n := collections() - before; n == 0 {
		t.Error("the last holder finished without collecting")
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	if m.HeapAlloc >= table/2 {
		t.Errorf("after the last holder finished the heap holds %d MiB of a dead %d MiB table", m.HeapAlloc>>20, table>>20)
	}
	debug.SetGCPercent(-1)
	restore := During()
	before = collections()
	restore()
	if n := collections() - before; n != 0 {
		t.Errorf("a process collecting only at its limit was made to collect %d times", n)
	}
}
