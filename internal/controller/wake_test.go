package controller

import (
	"context"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// admittedScan is a scan admitted at second created, with a Job (jobName)
// or waiting for one ("").
func admittedScan(name string, created int64, jobName string) *cwacv1alpha1.CwacScan {
	return &cwacv1alpha1.CwacScan{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID(name + "-uid"), CreationTimestamp: metav1.Unix(created, 0)},
		Status: cwacv1alpha1.CwacScanStatus{Phase: cwacv1alpha1.PhaseQueued, JobName: jobName, Conditions: []metav1.Condition{{
			Type: cwacv1alpha1.ConditionAdmitted, Status: metav1.ConditionTrue, Reason: cwacv1alpha1.ReasonURLsAllowed,
		}}},
	}
}

// TestScanStoppedWaitingWakesTheNext: under a cap of 1, when the first
// scan in line records its Job after that Job already finished (the wake-up
// of the freed slot went to it), the next waiting scan is woken; an update
// that leaves a scan waiting, or finds it not waiting before, wakes none.
func TestScanStoppedWaitingWakesTheNext(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := cwacv1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	first, next := admittedScan("first", 1, ""), admittedScan("next", 2, "")
	started := admittedScan("first", 1, "first-job")
	started.Status.Phase = cwacv1alpha1.PhasePending
	finishedJob := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "first-job"},
		Status:     batchv1.JobStatus{Conditions: []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: "True"}}},
	}
	reader := fake.NewClientBuilder().WithScheme(scheme).WithObjects(started, next, finishedJob).
		WithIndex(&cwacv1alpha1.CwacScan{}, indexScanWaiting, func(o client.Object) []string {
			if waiting(o.(*cwacv1alpha1.CwacScan)) {
				return []string{indexTrue}
			}
			return nil
		}).
		WithIndex(&batchv1.Job{}, indexJobActive, func(o client.Object) []string {
			if _, done := jobFinished(o.(*batchv1.Job)); done {
				return []string{"false"}
			}
			return []string{indexTrue}
		}).Build()
	r := &CwacScanReconciler{queue: newQueue(reader, 1, time.Now)}

	tests := []struct {
		name        string
		old, latest *cwacv1alpha1.CwacScan
		want        []string
	}{
		{"the first in line records its Job", first, started, []string{"next"}},
		{"still waiting", first, first, nil},
		{"was not waiting", started, started, nil},
		{"ended while queued", first, func() *cwacv1alpha1.CwacScan {
			s := first.DeepCopy()
			s.Status.Phase = cwacv1alpha1.PhaseFailed
			return s
		}(), []string{"next"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
			defer q.ShutDown()
			r.scanStoppedWaiting(context.Background(), event.TypedUpdateEvent[client.Object]{ObjectOld: tt.old, ObjectNew: tt.latest}, q)
			var got []string
			for q.Len() > 0 {
				req, _ := q.Get()
				got = append(got, req.Name)
				q.Done(req)
			}
			if len(got) != len(tt.want) || (len(got) > 0 && got[0] != tt.want[0]) {
				t.Errorf("woke %v, want %v", got, tt.want)
			}
		})
	}
}
