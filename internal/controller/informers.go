package controller

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	toolscache "k8s.io/client-go/tools/cache"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// Informers makes the manager's cache's informers, as NewInformer does,
// and keeps the CwacScan ones: one for every namespace, or one per watched
// namespace with --watch-namespaces, where the cache hands out no single
// informer whose store could be read. The metrics read those stores
// (cachedScans), so a scrape copies no scan whichever way the operator
// watches.
type Informers struct {
	mu    sync.Mutex
	scans []toolscache.SharedIndexInformer
}

// NewInformers returns an empty Informers.
func NewInformers() *Informers { return &Informers{} }

// New is cache.Options.NewInformer.
func (i *Informers) New(lw toolscache.ListerWatcher, obj runtime.Object, resync time.Duration,
	indexers toolscache.Indexers) toolscache.SharedIndexInformer {
	inf := NewInformer(lw, obj, resync, indexers)
	if _, ok := obj.(*cwacv1alpha1.CwacScan); ok {
		i.mu.Lock()
		i.scans = append(i.scans, inf)
		i.mu.Unlock()
	}
	return inf
}

// scanStores are the CwacScan informers' stores, once every one of them
// has synced; false while one has not (or none was made).
func (i *Informers) scanStores() ([]toolscache.Store, bool) {
	if i == nil {
		return nil, false
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	if len(i.scans) == 0 {
		return nil, false
	}
	stores := make([]toolscache.Store, 0, len(i.scans))
	for _, inf := range i.scans {
		if !inf.HasSynced() {
			return nil, false
		}
		stores = append(stores, inf.GetStore())
	}
	return stores, true
}
