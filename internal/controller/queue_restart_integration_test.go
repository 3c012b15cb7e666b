//go:build integration

package controller

import (
	"fmt"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanjob"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

func phases(t *testing.T, ns string, names ...string) string {
	out := ""
	for _, n := range names {
		s := getScan(t, ns, n)
		out += fmt.Sprintf("%s=%s(job:%v) ", n, s.Status.Phase, s.Status.JobName != "")
	}
	return out
}

// TestConcurrencyCap: with a cap of 2, the third and fourth scans wait in
// Queued and start, oldest first, as others finish.
func TestConcurrencyCap(t *testing.T) {
	clearEarlierTests(t)
	startManager(t, 2)
	ns := newNamespace(t)
	names := []string{"q1", "q2", "q3", "q4"}
	for _, n := range names {
		createScan(t, ns, n, simpleSpec())
		time.Sleep(1100 * time.Millisecond) // creationTimestamp has one-second resolution
	}
	j1 := waitJob(t, ns, "q1")
	waitJob(t, ns, "q2")
	waitPhase(t, ns, "q3", cwacv1alpha1.PhaseQueued)
	q4 := waitPhase(t, ns, "q4", cwacv1alpha1.PhaseQueued)
	c := meta.FindStatusCondition(q4.Status.Conditions, cwacv1alpha1.ConditionStarted)
	if c == nil || c.Status != metav1.ConditionFalse || c.Reason != cwacv1alpha1.ReasonQueued {
		t.Errorf("q4 Started condition = %+v", c)
	}
	if want := "waiting for a free slot: at most 2 scans run at once"; q4.Status.Message != want {
		t.Errorf("q4 message = %q, want %q", q4.Status.Message, want)
	}
	if got := eventReasons(t, q4); len(got) != 0 {
		t.Errorf("Events %v for a queued scan, want none: waiting is in status", got)
	}
	// The cap holds: still only two Jobs a moment later.
	time.Sleep(time.Second)
	jobs := &batchv1.JobList{}
	if err := k8s.List(ctxT(t), jobs, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	if len(jobs.Items) != 2 {
		t.Fatalf("%d Jobs with a cap of 2: %s", len(jobs.Items), phases(t, ns, names...))
	}

	// q1 finishes: q3 (older) starts, q4 keeps waiting.
	p := startPod(t, j1, terminatedStatus(0, "Completed", report(scanpod.Report{Outcome: scanpod.OutcomeComplete, Summary: realSummary(t)})))
	_ = p
	finishJob(t, j1, true, "", "")
	waitPhase(t, ns, "q1", cwacv1alpha1.PhaseComplete)
	waitJob(t, ns, "q3")
	time.Sleep(500 * time.Millisecond)
	if s := getScan(t, ns, "q4"); s.Status.Phase != cwacv1alpha1.PhaseQueued || s.Status.JobName != "" {
		t.Errorf("q4 started before q3's slot was free: %s", phases(t, ns, names...))
	}
	// Deleting a running scan frees its slot too (its Job goes with it; envtest
	// has no garbage collector, so delete the Job as the collector would).
	j2 := waitJob(t, ns, "q2")
	if err := k8s.Delete(ctxT(t), getScan(t, ns, "q2")); err != nil {
		t.Fatal(err)
	}
	if err := k8s.Delete(ctxT(t), j2, client.PropagationPolicy(metav1.DeletePropagationBackground)); err != nil {
		t.Fatal(err)
	}
	waitJob(t, ns, "q4")
}

// TestOperatorRestartMidScan: stopping the operator mid-scan and starting a
// new one loses nothing and never makes a second Job.
func TestOperatorRestartMidScan(t *testing.T) {
	clearEarlierTests(t)
	stop := startManager(t, 1)
	ns := newNamespace(t)
	createScan(t, ns, "restart", simpleSpec())
	job := waitJob(t, ns, "restart")
	pod := startPod(t, job, runningStatus())
	before := waitPhase(t, ns, "restart", cwacv1alpha1.PhaseRunning)
	stop()

	// While no operator runs, CWAC finishes.
	setPodStatus(t, pod, terminatedStatus(0, "Completed", report(scanpod.Report{
		Outcome: scanpod.OutcomeComplete, ResultsDir: "2026-11-22_01-02-03_restart", Summary: realSummary(t),
	})))
	finishJob(t, job, true, "", "")

	startManager(t, 1)
	after := waitPhase(t, ns, "restart", cwacv1alpha1.PhaseComplete)
	if after.Status.JobName != before.Status.JobName || !after.Status.StartTime.Equal(before.Status.StartTime) {
		t.Errorf("job %q→%q, start %v→%v", before.Status.JobName, after.Status.JobName, before.Status.StartTime, after.Status.StartTime)
	}
	if after.Status.Summary == nil || after.Status.Summary.PagesScanned != 4 {
		t.Errorf("summary after restart = %+v", after.Status.Summary)
	}
	jobs := &batchv1.JobList{}
	if err := k8s.List(ctxT(t), jobs, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	if len(jobs.Items) != 1 {
		t.Errorf("%d Jobs after a restart, want 1", len(jobs.Items))
	}
}

// TestAdoptsJobWhoseStatusWasLost: the operator created the Job but died
// before recording it in status; the next operator adopts that Job (its name
// is deterministic) instead of queueing or starting a second one, even with
// the cap full.
func TestAdoptsJobWhoseStatusWasLost(t *testing.T) {
	clearEarlierTests(t)
	ns := newNamespace(t)
	scan := createScan(t, ns, "orphan", simpleSpec())
	job := scanjob.Job(scan, testOpts, scanjob.Baseline{})
	if err := controllerutil.SetControllerReference(scan, job, scheme); err != nil {
		t.Fatal(err)
	}
	if err := k8s.Create(ctxT(t), job); err != nil {
		t.Fatal(err)
	}
	startManager(t, 1)
	waitFor(t, "the scan to adopt its Job", func() (bool, error) {
		s := getScan(t, ns, "orphan")
		return s.Status.JobName == job.Name && s.Status.Phase == cwacv1alpha1.PhasePending, fmt.Errorf("status %+v", s.Status)
	})
	jobs := &batchv1.JobList{}
	if err := k8s.List(ctxT(t), jobs, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	if len(jobs.Items) != 1 {
		t.Errorf("%d Jobs, want the one adopted", len(jobs.Items))
	}
}
