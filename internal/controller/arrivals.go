package controller

import (
	"context"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// arrivals orders the work on new scans newest first, so that a scan
// created while the operator is still working through a burst (a CI
// pipeline that made a thousand scans, a schedule of many organisations)
// gets its Job in milliseconds instead of waiting for the whole burst: the
// burst takes as long as it did, from its newest end, and work on scans
// already started (their Jobs and pods) keeps the order it had.
//
// Every scan the admission controller sees created (not the operator's
// first list of what exists) gets the next sequence number; until the scan
// controller sees the scan started, finished or gone, each queue built by
// newestFirstQueue hands that scan's requests out ahead of every request
// with a lower number, and ahead of all other work (priority 0). Scans
// waiting for a free slot under the concurrency cap still start oldest
// first (queue.next): this orders only the operator's own work.
type arrivals struct {
	mu   sync.Mutex
	last int
	seq  map[types.NamespacedName]int
}

func newArrivals() *arrivals {
	return &arrivals{seq: map[types.NamespacedName]int{}}
}

// arrived numbers a newly created scan, after every scan numbered before.
func (a *arrivals) arrived(key types.NamespacedName) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.last++
	a.seq[key] = a.last
}

// priority is a new scan's place (higher: sooner); false for any other.
func (a *arrivals) priority(key types.NamespacedName) (int, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	p, ok := a.seq[key]
	return p, ok
}

// settled forgets a scan that has started, finished or gone.
func (a *arrivals) settled(key types.NamespacedName) {
	if a == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.seq, key)
}

// pending is how many new scans are numbered (tests: nothing is kept for
// ever).
func (a *arrivals) pending() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.seq)
}

// numbering is the admission controller's handler of CwacScan events (as
// For's, with numbering): the admission controller is the first to act on a
// new scan, so a scan created while the operator runs (not one in its first
// list of what exists) is numbered there before its event is queued, and is
// never queued behind the burst it arrived after. The scan controller keeps
// For's handler: its queue reads the same numbers.
func (a *arrivals) numbering() handler.TypedEventHandler[client.Object, reconcile.Request] {
	inner := handler.WithLowPriorityWhenUnchanged[client.Object, reconcile.Request](&handler.EnqueueRequestForObject{})
	return handler.TypedFuncs[client.Object, reconcile.Request]{
		CreateFunc: func(ctx context.Context, e event.TypedCreateEvent[client.Object], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			if !e.IsInInitialList && e.Object != nil {
				a.arrived(client.ObjectKeyFromObject(e.Object))
			}
			inner.Create(ctx, e, q)
		},
		UpdateFunc:  inner.Update,
		DeleteFunc:  inner.Delete,
		GenericFunc: inner.Generic,
	}
}

// newestFirstQueue builds a controller's priority queue whose requests for
// new scans carry their arrival number (controller.Options.NewQueue).
func newestFirstQueue(a *arrivals) func(string, workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
	return func(name string, limiter workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
		q := priorityqueue.New(name, func(o *priorityqueue.Opts[reconcile.Request]) { o.RateLimiter = limiter })
		return arrivalQueue{PriorityQueue: q, arrivals: a}
	}
}

// arrivalQueue is a priority queue that raises a new scan's requests to its
// arrival number. It stays a priorityqueue.PriorityQueue, so that
// controller-runtime's handlers keep lowering the priority of what needs
// no work (the operator's first list, resyncs).
type arrivalQueue struct {
	priorityqueue.PriorityQueue[reconcile.Request]
	arrivals *arrivals
}

func (q arrivalQueue) Add(item reconcile.Request) {
	q.AddWithOpts(priorityqueue.AddOpts{}, item)
}

func (q arrivalQueue) AddAfter(item reconcile.Request, after time.Duration) {
	q.AddWithOpts(priorityqueue.AddOpts{After: after}, item)
}

func (q arrivalQueue) AddRateLimited(item reconcile.Request) {
	q.AddWithOpts(priorityqueue.AddOpts{RateLimited: true}, item)
}

// AddWithOpts queues each request at the higher of the priority asked for
// and its scan's arrival number.
func (q arrivalQueue) AddWithOpts(o priorityqueue.AddOpts, items ...reconcile.Request) {
	for _, item := range items {
		opts := o
		if p, ok := q.arrivals.priority(item.NamespacedName); ok && (o.Priority == nil || *o.Priority < p) {
			opts.Priority = &p
		}
		q.PriorityQueue.AddWithOpts(opts, item)
	}
}
