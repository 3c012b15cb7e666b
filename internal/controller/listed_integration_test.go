//go:build integration

package controller

import (
	"fmt"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanjob"
	"github.com/a11y-dev/cwac-operator/internal/scanspec"
)

// TestFinishedScansListedAtStart: an operator that starts with finished
// scans reconciles only those with something left to do — a TTL to keep,
// a Job to remove — not the years of finished scans that need nothing.
func TestFinishedScansListedAtStart(t *testing.T) {
	clearEarlierTests(t)
	ctx := ctxT(t)
	// Earlier tests' scan pods would bring their (gone) scans back at start.
	pods := &corev1.PodList{}
	if err := k8s.List(ctx, pods, client.MatchingLabels{scanjob.LabelManagedBy: scanjob.ManagedByValue}); err != nil {
		t.Fatal(err)
	}
	for i := range pods.Items {
		if err := k8s.Delete(ctx, &pods.Items[i], client.GracePeriodSeconds(0)); client.IgnoreNotFound(err) != nil {
			t.Fatal(err)
		}
	}
	ns := newNamespace(t)
	completed := time.Now().Add(-2 * time.Hour).Truncate(time.Second)
	for i := range 5 {
		finishedScanAt(t, ns, fmt.Sprintf("idle-%d", i), nil, completed)
	}
	ttl := int32(24 * 3600)
	finishedScanAt(t, ns, "ttl", &ttl, completed)
	// A finished scan whose Job is still there, past FinishedJobTTL: the
	// Job's own event at start brings the scan back to remove it.
	withJob := finishedScanAt(t, ns, "job-left", nil, completed)
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: withJob.Status.JobName, Labels: map[string]string{scanjob.LabelManagedBy: scanjob.ManagedByValue}},
		Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "cwac", Image: "cwac:test"}},
		}}},
	}
	if err := controllerutil.SetControllerReference(withJob, job, scheme); err != nil {
		t.Fatal(err)
	}
	if err := k8s.Create(ctx, job); err != nil {
		t.Fatal(err)
	}

	before := reconciles(t)
	startManagerWith(t, Options{JobOptions: testOpts, Policy: testPolicy(), FinishedJobTTL: time.Hour})
	waitFor(t, "the finished scan's Job removed", func() (bool, error) {
		err := k8s.Get(ctx, client.ObjectKeyFromObject(job), &batchv1.Job{})
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	})
	waitFor(t, "the scan with a TTL reconciled", func() (bool, error) { return reconciles(t)-before >= 2, nil })
	time.Sleep(time.Second) // any other reconcile the start would bring
	// The scan with a TTL, and the one with its Job (once, perhaps twice:
	// its Job's creation and removal); none of the five idle ones.
	if n := reconciles(t) - before; n < 2 || n > 3 {
		t.Errorf("%v reconciles at start; want the scan with a TTL and the one with a Job left (2-3), not the 5 that need nothing", n)
	}
	for i := range 5 {
		if s := getScan(t, ns, fmt.Sprintf("idle-%d", i)); s.Status.Phase != cwacv1alpha1.PhaseComplete {
			t.Errorf("idle scan %s changed: %+v", s.Name, s.Status)
		}
	}
}

// finishedScanAt creates a scan and writes its status as a finished one's,
// completed at the given time, with ttl as its TTL (nil: none).
func finishedScanAt(t *testing.T, ns, name string, ttl *int32, completed time.Time) *cwacv1alpha1.CwacScan {
	t.Helper()
	spec := simpleSpec()
	spec.TTLSecondsAfterFinished = ttl
	scan := createScan(t, ns, name, spec)
	at := metav1.NewTime(completed)
	scan.Status = cwacv1alpha1.CwacScanStatus{
		Phase: cwacv1alpha1.PhaseComplete, ObservedGeneration: scan.Generation, JobName: scanspec.JobName(scan),
		StartTime: &at, CompletionTime: &at,
	}
	if err := k8s.Status().Update(ctxT(t), scan); err != nil {
		t.Fatalf("finishing scan %s: %v", name, err)
	}
	return scan
}
