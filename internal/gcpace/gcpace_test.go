package gcpace

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// withFloor sets the floor for one test (under the pace's lock, which
// the collections' hook reads it under).
func withFloor(t *testing.T, f uint64) {
	set := func(f uint64) (old uint64) {
		pace.Lock()
		defer pace.Unlock()
		old, floor = floor, f
		return old
	}
	old := set(f)
	t.Cleanup(func() { set(old) })
}

func gcPercent() int { p := debug.SetGCPercent(0); debug.SetGCPercent(p); return p }

// TestDuring: holders running at once share one pace, and the last to
// finish restores the process's own; a process collecting more
// often, or only at its memory limit, keeps its setting.
func TestDuring(t *testing.T) {
	withFloor(t, 0) // the pace stays at Percent whatever a collection finds
	own := debug.SetGCPercent(100)
	defer debug.SetGCPercent(own)

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
	withFloor(t, 0)
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

// TestPaceFor: a tenth past what is live, or the floor past it when more,
// within Percent and the looser of the process's own pace and 100.
func TestPaceFor(t *testing.T) {
	const mib = 1 << 20
	cases := []struct {
		live, floor uint64
		own, want   int
	}{
		{live: 0, floor: 4 * mib, own: 100, want: Percent},          // no collection yet
		{live: 400 * mib, floor: 4 * mib, own: 100, want: Percent},  // a tenth is more than the floor
		{live: 40 * mib, floor: 4 * mib, own: 100, want: Percent},   // the same
		{live: 20 * mib, floor: 4 * mib, own: 100, want: 20},        // the floor: 4 MiB past 20
		{live: 16 * mib, floor: 4 * mib, own: 50, want: 25},         // within the process's own
		{live: 8 * mib, floor: 4 * mib, own: 25, want: 25},          // its own is tighter
		{live: 1 * mib, floor: 4 * mib, own: 200, want: 100},        // never looser than 100
		{live: 1, floor: 4 * mib, own: 100, want: 100},              // nor overflowing
		{live: 20 * mib, floor: 0, own: 100, want: Percent},         // no floor
		{live: 3 * mib, floor: 4 * mib, own: Percent + 1, want: 11}, // just looser than Percent
	}
	for _, c := range cases {
		if got := paceFor(c.live, c.floor, c.own); got != c.want {
			t.Errorf("paceFor(%d, %d, %d) = %d, want %d", c.live, c.floor, c.own, got, c.want)
		}
	}
}

// TestPaceFollowsCollections: while work runs, each collection sets the
// pace for what it found live (a small heap: looser than Percent); once the
// last holder finishes, the process's own pace holds through the
// collections after (200 here: looser than any pace set while work runs).
func TestPaceFollowsCollections(t *testing.T) {
	withFloor(t, Floor)
	own := debug.SetGCPercent(200)
	defer debug.SetGCPercent(own)
	restore := During()
	if got := gcPercent(); got != Percent {
		t.Fatalf("before a collection: GOGC %d, want %d", got, Percent)
	}
	// The finalizer that sets the pace runs on its own goroutine after
	// the collection: wait for it (a few collections at most).
	deadline := time.Now().Add(30 * time.Second)
	for gcPercent() == Percent && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if got := gcPercent(); got <= Percent || got > 100 {
		t.Errorf("after collections of a small heap: GOGC %d, want within (%d, 100]", got, Percent)
	}
	restore()
	for range 3 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if got := gcPercent(); got != 200 {
		t.Errorf("after the work: GOGC %d, want the process's 200", got)
	}
}
