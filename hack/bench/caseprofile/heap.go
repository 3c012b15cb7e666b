package caseprofile

import (
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"sync"
	"time"
)

// heapSample is how often StartHeap looks at the live heap.
const heapSample = 20 * time.Millisecond

// StartHeap writes a heap profile into the file the environment variable
// names, when it names one, each time the heap the collector last found
// live has grown a twentieth past the largest seen: the file left holds
// what was live near the case's peak, which a profile taken at its end
// (its tables dead) would not show. stop ends the sampling.
func StartHeap(variable string) (stop func(), err error) {
	path := os.Getenv(variable)
	if path == "" {
		return func() {}, nil
	}
	runtime.MemProfileRate = 64 << 10 // finer than the default 512 KiB: the tables are many small blocks too
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		var largest uint64
		tick := time.NewTicker(heapSample)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			metrics.Read(sample)
			if live := sample[0].Value.Uint64(); live > largest+largest/20 {
				largest = live
				writeHeap(path)
			}
		}
	}()
	return func() { close(done); wg.Wait() }, nil
}

// writeHeap writes the heap profile to path, or leaves the last one.
func writeHeap(path string) {
	f, err := os.Create(path + ".tmp")
	if err != nil {
		return
	}
	if pprof.Lookup("heap").WriteTo(f, 0) != nil || f.Close() != nil {
		_ = os.Remove(path + ".tmp")
		return
	}
	_ = os.Rename(path+".tmp", path)
}
