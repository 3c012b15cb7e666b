//go:build integration

package controller

import (
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
	"github.com/a11y-dev/cwac-operator/internal/scanspec"
)

func deleteSpec() cwacv1alpha1.CwacScanSpec {
	s := simpleSpec()
	s.ResultsPolicy = cwacv1alpha1.ResultsDelete
	return s
}

// nudge changes a label so the scan is reconciled now (the test clock
// moved, which no event announces). A scan already gone needs no nudge: an
// event the test did not cause (the cleanup pod's own, say) may have
// reconciled it after the clock moved.
func nudge(t *testing.T, ns, name string) {
	t.Helper()
	s := &cwacv1alpha1.CwacScan{}
	if err := k8s.Get(ctxT(t), client.ObjectKey{Namespace: ns, Name: name}, s); err != nil {
		if apierrors.IsNotFound(err) {
			return
		}
		t.Fatal(err)
	}
	patch := client.MergeFrom(s.DeepCopy())
	if s.Labels == nil {
		s.Labels = map[string]string{}
	}
	s.Labels["nudge"] = time.Now().Format("150405.000000")
	if err := k8s.Patch(ctxT(t), s, patch); client.IgnoreNotFound(err) != nil {
		t.Fatal(err)
	}
}

func waitGone(t *testing.T, ns, name string) {
	t.Helper()
	waitFor(t, "scan "+name+" gone", func() (bool, error) {
		err := k8s.Get(ctxT(t), client.ObjectKey{Namespace: ns, Name: name}, &cwacv1alpha1.CwacScan{})
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	})
}

func waitCleanupPod(t *testing.T, scan *cwacv1alpha1.CwacScan) *corev1.Pod {
	t.Helper()
	pod := &corev1.Pod{}
	waitFor(t, "the cleanup pod", func() (bool, error) {
		err := k8s.Get(ctxT(t), client.ObjectKey{Namespace: scan.Namespace, Name: scanspec.CleanupPodName(scan)}, pod)
		return err == nil, client.IgnoreNotFound(err)
	})
	return pod
}

func TestResultsPolicyDelete(t *testing.T) {
	clock := newTestClock()
	startManagerWith(t, Options{JobOptions: testOpts, Policy: testPolicy(), Now: clock.Now, CleanupTimeout: 5 * time.Minute})
	ns := newNamespace(t)
	finished := func(name string) *cwacv1alpha1.CwacScan {
		t.Helper()
		createScan(t, ns, name, deleteSpec())
		waitFor(t, "the finalizer", func() (bool, error) {
			return controllerutil.ContainsFinalizer(getScan(t, ns, name), FinalizerDeleteResults), nil
		})
		job := waitJob(t, ns, name)
		startPod(t, job, terminatedStatus(0, "Completed", completeReport(t)))
		finishJob(t, job, true, "", "")
		return waitPhase(t, ns, name, cwacv1alpha1.PhaseComplete)
	}

	t.Run("cleanup pod succeeds", func(t *testing.T) {
		scan := finished("gone-ok")
		if err := k8s.Delete(ctxT(t), scan); err != nil {
			t.Fatal(err)
		}
		pod := waitCleanupPod(t, scan)
		c := pod.Spec.Containers[0]
		if c.Image != testOpts.RunnerImage || !slices.Equal(c.Command, []string{scanpod.RunnerImagePath, "--delete-results=" + scanpod.ResultsDir}) {
			t.Errorf("cleanup container %s %v", c.Image, c.Command)
		}
		if len(c.VolumeMounts) != 1 || c.VolumeMounts[0].SubPath != scanspec.ScanDir(scan) || len(pod.Spec.Volumes) != 1 {
			t.Errorf("the cleanup pod must mount only the scan's directory: %+v", c.VolumeMounts)
		}
		if sc := c.SecurityContext; sc == nil || !*sc.ReadOnlyRootFilesystem || *sc.AllowPrivilegeEscalation || *pod.Spec.AutomountServiceAccountToken {
			t.Errorf("cleanup pod not hardened: %+v", sc)
		}
		if !metav1.IsControlledBy(pod, scan) {
			t.Error("the cleanup pod is not owned by the scan")
		}
		if s := getScan(t, ns, "gone-ok"); s.DeletionTimestamp == nil {
			t.Fatal("the scan is not being deleted")
		}
		setPodStatus(t, pod, corev1.PodStatus{Phase: corev1.PodSucceeded})
		waitGone(t, ns, "gone-ok")
		waitEvents(t, scan, "Normal/ResultsDeleted")
	})

	t.Run("cleanup pod fails", func(t *testing.T) {
		scan := finished("gone-failed")
		if err := k8s.Delete(ctxT(t), scan); err != nil {
			t.Fatal(err)
		}
		pod := waitCleanupPod(t, scan)
		setPodStatus(t, pod, corev1.PodStatus{Phase: corev1.PodFailed, ContainerStatuses: []corev1.ContainerStatus{{
			Name: pod.Spec.Containers[0].Name, State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Message: "permission denied"}},
		}}})
		waitGone(t, ns, "gone-failed")
		waitEvents(t, scan, "Warning/ResultsCleanupFailed")
		found := false
		for _, r := range eventNotes(t, scan) {
			found = found || strings.Contains(r, "permission denied")
		}
		if !found {
			t.Error("the Warning does not say why the cleanup failed")
		}
	})

	t.Run("a running scan stops writing before its results go", func(t *testing.T) {
		createScan(t, ns, "running", deleteSpec())
		job := waitJob(t, ns, "running")
		pod := startPod(t, job, runningStatus())
		waitPhase(t, ns, "running", cwacv1alpha1.PhaseRunning)
		scan := getScan(t, ns, "running")
		if err := k8s.Delete(ctxT(t), scan); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the running Job deleted", func() (bool, error) {
			err := k8s.Get(ctxT(t), client.ObjectKeyFromObject(job), &batchv1.Job{})
			return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
		})
		time.Sleep(300 * time.Millisecond) // give a wrong controller time to start the cleanup early
		if err := k8s.Get(ctxT(t), client.ObjectKey{Namespace: ns, Name: scanspec.CleanupPodName(scan)}, &corev1.Pod{}); !apierrors.IsNotFound(err) {
			t.Fatalf("cleanup pod while the scan pod still runs: %v", err)
		}
		setPodStatus(t, pod, terminatedStatus(143, "Error", ""))
		setPodStatus(t, waitCleanupPod(t, scan), corev1.PodStatus{Phase: corev1.PodSucceeded})
		waitGone(t, ns, "running")
	})

	t.Run("never started", func(t *testing.T) {
		spec := deleteSpec()
		spec.URLs = []string{"http://127.0.0.1/"} // refused by the scan-target policy
		scan := createScan(t, ns, "refused", spec)
		waitPhase(t, ns, "refused", cwacv1alpha1.PhaseFailed)
		if err := k8s.Delete(ctxT(t), scan); err != nil {
			t.Fatal(err)
		}
		waitGone(t, ns, "refused")
		if err := k8s.Get(ctxT(t), client.ObjectKey{Namespace: ns, Name: scanspec.CleanupPodName(scan)}, &corev1.Pod{}); !apierrors.IsNotFound(err) {
			t.Errorf("a cleanup pod for a scan that wrote nothing: %v", err)
		}
	})

	t.Run("a cleanup that never ends is given up", func(t *testing.T) {
		scan := finished("stuck")
		if err := k8s.Delete(ctxT(t), scan); err != nil {
			t.Fatal(err)
		}
		waitCleanupPod(t, scan)
		clock.Set(time.Now().Add(6 * time.Minute))
		defer clock.Set(time.Now().Add(-24 * time.Hour))
		nudge(t, ns, "stuck")
		waitGone(t, ns, "stuck")
		waitEvents(t, scan, "Warning/ResultsCleanupFailed")
	})
}

func eventNotes(t *testing.T, scan *cwacv1alpha1.CwacScan) []string {
	t.Helper()
	list := &eventsv1.EventList{}
	if err := k8s.List(ctxT(t), list, client.InNamespace(scan.Namespace)); err != nil {
		t.Fatal(err)
	}
	var notes []string
	for _, e := range list.Items {
		if e.Regarding.UID == scan.UID {
			notes = append(notes, e.Note)
		}
	}
	return notes
}

// TestFinishedJobRemoved: the Job and pod of a finished scan go after
// FinishedJobTTL; the scan and its status stay.
func TestFinishedJobRemoved(t *testing.T) {
	clock := newTestClock()
	startManagerWith(t, Options{JobOptions: testOpts, Policy: testPolicy(), Now: clock.Now, FinishedJobTTL: time.Hour})
	ns := newNamespace(t)
	createScan(t, ns, "old", simpleSpec())
	job := waitJob(t, ns, "old")
	startPod(t, job, terminatedStatus(0, "Completed", completeReport(t)))
	finishJob(t, job, true, "", "")
	done := waitPhase(t, ns, "old", cwacv1alpha1.PhaseComplete)

	clock.Set(done.Status.CompletionTime.Add(59 * time.Minute))
	nudge(t, ns, "old")
	time.Sleep(300 * time.Millisecond)
	if err := k8s.Get(ctxT(t), client.ObjectKeyFromObject(job), &batchv1.Job{}); err != nil {
		t.Fatalf("the Job went before its time: %v", err)
	}
	clock.Set(done.Status.CompletionTime.Add(61 * time.Minute))
	nudge(t, ns, "old")
	waitFor(t, "the finished Job removed", func() (bool, error) {
		err := k8s.Get(ctxT(t), client.ObjectKeyFromObject(job), &batchv1.Job{})
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	})
	if s := getScan(t, ns, "old"); s.Status.Phase != cwacv1alpha1.PhaseComplete || s.Status.Summary == nil || s.Status.JobName != job.Name {
		t.Errorf("the scan's record changed: %+v", s.Status)
	}
}

func completeReport(t *testing.T) string {
	return report(scanpod.Report{Outcome: scanpod.OutcomeComplete, ResultsDir: realResultsDir, Summary: realSummary(t)})
}
