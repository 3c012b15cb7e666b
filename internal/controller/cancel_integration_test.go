//go:build integration

package controller

import (
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

func annotateCancel(t *testing.T, ns, name string) {
	t.Helper()
	if err := requestCancel(ctxT(t), k8s, getScan(t, ns, name)); err != nil {
		t.Fatal(err)
	}
}

// TestCancel: the cancel annotation ends a running scan (its Job deleted)
// and a queued one (never started) as Failed/Cancelled; a finished scan is
// left as it was.
func TestCancel(t *testing.T) {
	clearEarlierTests(t)
	startManager(t, 1)
	ns := newNamespace(t)

	createScan(t, ns, "running", simpleSpec())
	job := waitJob(t, ns, "running")
	startPod(t, job, runningStatus())
	waitPhase(t, ns, "running", cwacv1alpha1.PhaseRunning)
	createScan(t, ns, "queued", simpleSpec())
	waitPhase(t, ns, "queued", cwacv1alpha1.PhaseQueued)

	annotateCancel(t, ns, "queued")
	queued := waitPhase(t, ns, "queued", cwacv1alpha1.PhaseFailed)
	if queued.Status.Failure == nil || queued.Status.Failure.Reason != cwacv1alpha1.ReasonCancelled || queued.Status.JobName != "" {
		t.Errorf("queued scan: failure %+v, job %q", queued.Status.Failure, queued.Status.JobName)
	}

	annotateCancel(t, ns, "running")
	running := waitPhase(t, ns, "running", cwacv1alpha1.PhaseFailed)
	if running.Status.Failure == nil || running.Status.Failure.Reason != cwacv1alpha1.ReasonCancelled ||
		!strings.Contains(running.Status.Message, "results written so far are kept") {
		t.Errorf("running scan: failure %+v, message %q", running.Status.Failure, running.Status.Message)
	}
	waitEvents(t, running, "Warning/Cancelled")
	waitFor(t, "the cancelled scan's Job deleted", func() (bool, error) {
		err := k8s.Get(ctxT(t), client.ObjectKeyFromObject(job), &batchv1.Job{})
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	})

	// The freed slot goes to the next scan, not to the cancelled one.
	createScan(t, ns, "next", simpleSpec())
	waitJob(t, ns, "next")
	if s := getScan(t, ns, "queued"); s.Status.Phase != cwacv1alpha1.PhaseFailed || s.Status.JobName != "" {
		t.Errorf("the cancelled queued scan moved on: %+v", s.Status)
	}

	// A finished scan keeps its ending.
	next := waitJob(t, ns, "next")
	startPod(t, next, terminatedStatus(0, "Completed", report(scanpod.Report{Outcome: scanpod.OutcomeComplete, Summary: realSummary(t)})))
	finishJob(t, next, true, "", "")
	waitPhase(t, ns, "next", cwacv1alpha1.PhaseComplete)
	annotateCancel(t, ns, "next")
	waitFor(t, "the annotation seen", func() (bool, error) {
		return getScan(t, ns, "next").Annotations[cwacv1alpha1.AnnotationCancel] == "true", nil
	})
	if s := getScan(t, ns, "next"); s.Status.Phase != cwacv1alpha1.PhaseComplete {
		t.Errorf("a finished scan was changed by cancel: phase %s", s.Status.Phase)
	}
}
