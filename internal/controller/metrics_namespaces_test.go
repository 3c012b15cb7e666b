//go:build integration

package controller

import (
	"context"
	"slices"
	"testing"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// TestCachedScansWatchingNamespaces: with --watch-namespaces the cache
// keeps one informer per namespace, with no one store to read; the
// metrics still list every scan, finished ones (whose cached record is
// not a CwacScan) included.
func TestCachedScansWatchingNamespaces(t *testing.T) {
	clearEarlierTests(t)
	watched, other := newNamespace(t), newNamespace(t)
	finishedScanAt(t, watched, "done", nil, time.Now())
	createScan(t, watched, "new", simpleSpec())
	finishedScanAt(t, other, "elsewhere", nil, time.Now())
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Cache: cache.Options{DefaultNamespaces: map[string]cache.Config{watched: {}}, ByObject: CacheByObject(), NewInformer: NewInformer},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	})
	if !mgr.GetCache().WaitForCacheSync(ctxT(t)) {
		t.Fatal("the cache did not sync")
	}
	var names []string
	var lastErr error
	waitFor(t, "the watched namespace's two scans listed", func() (bool, error) {
		scans, err := cachedScans(ctxT(t), mgr.GetCache())
		names, lastErr = make([]string, 0, len(scans)), err
		for _, s := range scans {
			names = append(names, s.Name+"/"+string(s.Status.Phase))
		}
		slices.Sort(names)
		return err == nil && len(names) == 2, err
	})
	if want := []string{"done/" + string(cwacv1alpha1.PhaseComplete), "new/"}; !slices.Equal(names, want) || lastErr != nil {
		t.Errorf("listed %v (%v); want %v", names, lastErr, want)
	}
}
