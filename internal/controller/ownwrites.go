package controller

import (
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ownWrites remembers, for each scan this process has written, the
// resourceVersions its writes replaced. The cache shows a write only when
// its watch event arrives; until then, a reconcile woken by another event
// (the Job it just made, its pod) reads the scan as it was before, and would
// do again what it just did: create the Job again (AlreadyExists), write the
// same status again from a stale copy (a 409 Conflict and a retry). A
// reconcile that reads a replaced version does nothing instead: the write's
// own event wakes the scan again with the version written.
//
// Versions are compared only for equality (they are opaque): the versions
// replaced are known, and any other version is the one written or a later
// one. The entry goes once the cache shows another version, or the scan goes.
type ownWrites struct {
	mu       sync.Mutex
	replaced map[types.NamespacedName][]string
}

// outdated reports whether obj is a version this process has since written
// over; otherwise it forgets obj's entry, the cache having caught up.
func (w *ownWrites) outdated(obj client.Object) bool {
	key := client.ObjectKeyFromObject(obj)
	w.mu.Lock()
	defer w.mu.Unlock()
	versions, ok := w.replaced[key]
	if !ok {
		return false
	}
	if slices.Contains(versions, obj.GetResourceVersion()) {
		return true
	}
	delete(w.replaced, key)
	return false
}

// wrote records that obj, read at version before, was written: obj now
// holds the version written (the client sets it from the answer).
func (w *ownWrites) wrote(obj client.Object, before string) {
	if before == "" || before == obj.GetResourceVersion() {
		return // nothing was written
	}
	key := client.ObjectKeyFromObject(obj)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.replaced == nil {
		w.replaced = map[types.NamespacedName][]string{}
	}
	w.replaced[key] = append(w.replaced[key], before)
}

// forget drops a deleted scan's entry.
func (w *ownWrites) forget(key types.NamespacedName) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.replaced, key)
}
