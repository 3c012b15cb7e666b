//go:build integration

package controller

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// TestMemoryAfterCreateDeleteCycles creates and deletes batches of scans
// and reports the operator process's live heap after each cycle, so that
// growth over cycles shows whether something keeps what it should not.
// CWAC_HEAP_CYCLES=<cycles>x<scans> sets the work (default 3x40; the
// figures in the closing notes are 6x500), CWAC_HEAP_PROFILE=<file> writes
// a heap profile at the end, CWAC_HEAP_SETTLE=<duration> measures once more
// after that long idle. What it asserts cannot depend on timing: after
// every cycle the operator's own bookkeeping (started reservations) is
// empty and its cache holds none of the deleted scans.
func TestMemoryAfterCreateDeleteCycles(t *testing.T) {
	cycles, scans := 3, 40
	if env := os.Getenv("CWAC_HEAP_CYCLES"); env != "" {
		c, n, ok := strings.Cut(env, "x")
		var err1, err2 error
		cycles, err1 = strconv.Atoi(c)
		scans, err2 = strconv.Atoi(n)
		if !ok || err1 != nil || err2 != nil || cycles < 1 || scans < 1 {
			t.Fatalf("CWAC_HEAP_CYCLES=%q: want <cycles>x<scans>, such as 4x500", env)
		}
	}
	var r *CwacScanReconciler
	stop := startManagerWith(t, Options{JobOptions: testOpts, Policy: testPolicy(), inspect: func(built *CwacScanReconciler) { r = built }})
	defer stop()
	heap := make([]uint64, 0, cycles)
	for c := 0; c < cycles; c++ {
		ns := newNamespace(t)
		for i := 0; i < scans; i++ {
			createScan(t, ns, fmt.Sprintf("m-%05d", i), simpleSpec())
		}
		for i := 0; i < scans; i++ {
			waitJob(t, ns, fmt.Sprintf("m-%05d", i))
		}
		if err := k8s.DeleteAllOf(ctxT(t), &cwacv1alpha1.CwacScan{}, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		if err := k8s.DeleteAllOf(ctxT(t), &batchv1.Job{}, client.InNamespace(ns), client.PropagationPolicy(metav1.DeletePropagationBackground)); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the cache empty of the cycle's scans", func() (bool, error) {
			list := &cwacv1alpha1.CwacScanList{}
			if err := r.List(ctxT(t), list, client.InNamespace(ns)); err != nil {
				return false, err
			}
			jobs := &batchv1.JobList{}
			if err := r.List(ctxT(t), jobs, client.InNamespace(ns)); err != nil {
				return false, err
			}
			return len(list.Items) == 0 && len(jobs.Items) == 0, fmt.Errorf("%d scans, %d Jobs left", len(list.Items), len(jobs.Items))
		})
		r.queue.mu.Lock()
		left := len(r.queue.started)
		r.queue.mu.Unlock()
		if left != 0 {
			t.Errorf("cycle %d: %d start reservations kept after every scan went", c+1, left)
		}
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		heap = append(heap, ms.HeapInuse)
		t.Logf("cycle %d (%d scans): heap in use %.1f MiB", c+1, scans, float64(ms.HeapInuse)/(1<<20))
	}
	t.Logf("heap after the last cycle / after the first: %.2f", float64(heap[len(heap)-1])/float64(heap[0]))
	// client-go's Event broadcaster keeps each Event it sent for 6 minutes
	// (to count repeats as a series): CWAC_HEAP_SETTLE=7m waits past that
	// and measures again, to tell that cache from a leak.
	if env := os.Getenv("CWAC_HEAP_SETTLE"); env != "" {
		settle, err := time.ParseDuration(env)
		if err != nil {
			t.Fatalf("CWAC_HEAP_SETTLE=%q: %v", env, err)
		}
		time.Sleep(settle)
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		t.Logf("after %s with nothing to do: heap in use %.1f MiB (%.2f of the first cycle's)", settle,
			float64(ms.HeapInuse)/(1<<20), float64(ms.HeapInuse)/float64(heap[0]))
	}
	if path := os.Getenv("CWAC_HEAP_PROFILE"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = f.Close() }() // a measurement aid
		if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
			t.Fatal(err)
		}
	}
}
