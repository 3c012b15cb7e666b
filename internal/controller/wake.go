package controller

import (
	"context"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// scanStoppedWaiting: a scan that leaves the waiting scans (its Job
// recorded, or it ended or went while queued) may have been first in line
// when a slot last freed: that slot's wake-up went to it, and the next
// waiting scan must be woken now. Without this, a Job that finished before
// its scan's status recorded it (a fast failure, a slow status write) woke
// its own scan, nothing else, and the queue stopped.
func (r *CwacScanReconciler) scanStoppedWaiting(
	ctx context.Context, e event.TypedUpdateEvent[client.Object], q workqueue.TypedRateLimitingInterface[reconcile.Request],
) {
	before, ok := scanOf(e.ObjectOld)
	after, ok2 := scanOf(e.ObjectNew)
	if !ok || !ok2 || !waiting(before) || waiting(after) {
		return
	}
	for _, req := range r.queue.next(ctx) {
		q.Add(req)
	}
}
