// Package heap measures, for tests, how far the Go heap grows while code
// runs. Tests hold such a figure to a bound far above its usual value (at
// least twice): it catches memory that grows with the input, not noise;
// close figures belong in make bench, beside a baseline.
package heap

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"
)

// PeakDuring runs fn and returns how far the heap's objects rose above
// where they were, sampled every millisecond (runtime/metrics reads without
// stopping the world). The collector runs at a tenth of its usual growth
// meanwhile, so the figure is what fn keeps rather than the garbage the
// collector's pacing let pile up (up to as much again at the default,
// which made the figure vary by twice from run to run).
func PeakDuring(fn func()) uint64 {
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 { metrics.Read(sample); return sample[0].Value.Uint64() }
	runtime.GC()
	base := read()
	var peak uint64
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Go(func() {
		for {
			if v := read(); v > peak {
				peak = v
			}
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
		}
	})
	fn()
	close(done)
	wg.Wait()
	if peak < base {
		return 0
	}
	return peak - base
}
