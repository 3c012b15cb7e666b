//go:build integration

package controller

import (
	"slices"
	"testing"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// TestCachedScansWatchingNamespaces: with --watch-namespaces the cache
// keeps one informer per namespace and hands out none whose store could be
// read. The metrics still list every watched scan, finished ones (whose
// cached record is not a CwacScan) included: from the informers' stores,
// without copies, when the informers were made by Informers (as
// cmd/manager makes them), else from a list of copies.
func TestCachedScansWatchingNamespaces(t *testing.T) {
	clearEarlierTests(t)
	watched, also, other := newNamespace(t), newNamespace(t), newNamespace(t)
	finishedScanAt(t, watched, "done", nil, time.Now())
	createScan(t, watched, "new", simpleSpec())
	finishedScanAt(t, also, "done-too", nil, time.Now())
	finishedScanAt(t, other, "elsewhere", nil, time.Now())
	want := []string{"done-too/" + string(cwacv1alpha1.PhaseComplete), "done/" + string(cwacv1alpha1.PhaseComplete), "new/"}

	for _, tt := range []struct {
		name      string
		informers *Informers
	}{
		{"informers made by Informers", NewInformers()},
		{"informers made by NewInformer", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			newInformer := NewInformer
			if tt.informers != nil {
				newInformer = tt.informers.New
			}
			mgr, err := ctrl.NewManager(cfg, ctrl.Options{
				Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
				Cache: cache.Options{DefaultNamespaces: map[string]cache.Config{watched: {}, also: {}}, ByObject: CacheByObject(), NewInformer: newInformer},
			})
			if err != nil {
				t.Fatal(err)
			}
			runManager(t, mgr)
			if _, err := mgr.GetCache().GetInformer(ctxT(t), &cwacv1alpha1.CwacScan{}); err != nil {
				t.Fatal(err)
			}
			var names []string
			var lastErr error
			waitFor(t, "the watched namespaces' three scans listed", func() (bool, error) {
				scans, err := cachedScans(ctxT(t), mgr.GetCache(), tt.informers)
				names, lastErr = make([]string, 0, len(scans)), err
				for _, s := range scans {
					names = append(names, s.Name+"/"+string(s.Status.Phase))
				}
				slices.Sort(names)
				return err == nil && len(names) == 3, err
			})
			if !slices.Equal(names, want) || lastErr != nil {
				t.Errorf("listed %v (%v); want %v", names, lastErr, want)
			}
			// Read from the store, an unfinished scan is the cached object
			// itself at every scrape; listed, a new copy each time. Two reads
			// back to back, a few times: a watch event between them (the
			// scan's status written while the cache syncs) replaces the
			// cached object once, which says nothing of the reads.
			unfinishedOf := func() *cwacv1alpha1.CwacScan {
				scans, err := cachedScans(ctxT(t), mgr.GetCache(), tt.informers)
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range scans {
					if s.Name == "new" {
						return s
					}
				}
				t.Fatal("the unfinished scan is not listed")
				return nil
			}
			same := false
			for range 5 {
				if a, b := unfinishedOf(), unfinishedOf(); a == b {
					same = true
					break
				}
			}
			if same != (tt.informers != nil) {
				t.Errorf("the unfinished scan was the cached object at both reads: %v; want %v", same, tt.informers != nil)
			}
		})
	}
}
