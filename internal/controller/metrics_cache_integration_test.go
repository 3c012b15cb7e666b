//go:build integration

package controller

import (
	"context"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/cache"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// TestCachedScansAreTheCachesOwn: the metrics list the informer's own
// object of a scan not yet finished, not a copy (a scrape must not copy
// every cached scan), and see a scan once the cache has it.
func TestCachedScansAreTheCachesOwn(t *testing.T) {
	c, err := cache.New(cfg, cache.Options{Scheme: scheme, ByObject: CacheByObject(), NewInformer: NewInformer})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("cache: %v", err)
		}
	})
	ns := newNamespace(t)
	scan := createScan(t, ns, "listed", simpleSpec())
	listed := func() *cwacv1alpha1.CwacScan {
		t.Helper()
		scans, err := cachedScans(ctx, c, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range scans {
			if s.UID == scan.UID {
				return s
			}
		}
		return nil
	}
	waitFor(t, "the cache to hold the scan", func() (bool, error) { return listed() != nil, nil })
	first, again := listed(), listed()
	if first != again {
		t.Error("two lists gave two copies of the same unfinished cached scan")
	}
	if first.Name != "listed" || first.Namespace != ns {
		t.Errorf("listed %s/%s", first.Namespace, first.Name)
	}
}
