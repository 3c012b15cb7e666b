package controller

import (
	"testing"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

func request(name string) reconcile.Request {
	return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: name}}
}

// TestArrivalQueueNewestFirst: new scans' requests come out newest first,
// ahead of other work; a settled scan's requests go back to their turn.
func TestArrivalQueueNewestFirst(t *testing.T) {
	a := newArrivals()
	q := newestFirstQueue(a)("test", nil)
	defer q.ShutDown()
	low := priorityqueue.AddOpts{Priority: new(-100)}
	q.Add(request("running")) // work on a started scan: priority 0
	for _, name := range []string{"new-1", "new-2", "new-3", "settled"} {
		a.arrived(request(name).NamespacedName)
	}
	a.settled(request("settled").NamespacedName)
	q.Add(request("new-1"))
	q.(priorityqueue.PriorityQueue[reconcile.Request]).AddWithOpts(low, request("new-2")) // a resync asks for low
	q.AddAfter(request("new-3"), 0)
	q.Add(request("settled"))

	got := make([]string, 0, 5)
	for range 5 {
		item, _ := q.Get()
		got = append(got, item.Name)
		q.Done(item)
	}
	want := []string{"new-3", "new-2", "new-1", "running", "settled"}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("order %v, want %v", got, want)
		}
	}
	if n := a.pending(); n != 3 {
		t.Errorf("%d scans numbered, want 3 (settled forgotten)", n)
	}
}

func TestArrivalsSettledIsNilSafe(t *testing.T) {
	var a *arrivals
	a.settled(request("x").NamespacedName) // a reconciler built without Setup
}
