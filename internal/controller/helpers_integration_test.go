//go:build integration

package controller

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/testutil/wait"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
	"github.com/a11y-dev/cwac-operator/internal/testutil/kubesim"
)

const waitTimeout = 30 * time.Second

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func newNamespace(t *testing.T) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "t-" + rand.String(8)}}
	if err := k8s.Create(ctxT(t), ns); err != nil {
		t.Fatal(err)
	}
	// envtest runs no namespace or garbage collector: remove this test's Jobs
	// and scans so
	// that they do not count against, or queue ahead in, later tests.
	t.Cleanup(func() {
		_ = k8s.DeleteAllOf(context.Background(), &cwacv1alpha1.CwacScan{}, client.InNamespace(ns.Name))
		_ = k8s.DeleteAllOf(context.Background(), &batchv1.Job{}, client.InNamespace(ns.Name), client.PropagationPolicy(metav1.DeletePropagationBackground))
	})
	return ns.Name
}

func createScan(t *testing.T, ns, name string, spec cwacv1alpha1.CwacScanSpec) *cwacv1alpha1.CwacScan {
	t.Helper()
	scan := &cwacv1alpha1.CwacScan{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: spec}
	if err := k8s.Create(ctxT(t), scan); err != nil {
		t.Fatalf("creating scan %s: %v", name, err)
	}
	return scan
}

func simpleSpec() cwacv1alpha1.CwacScanSpec {
	return cwacv1alpha1.CwacScanSpec{URLs: []string{"https://www.example.govt.nz/"}}
}

// waitFor waits up to waitTimeout for what the operator does.
func waitFor(t *testing.T, what string, cond func() (bool, error)) {
	t.Helper()
	wait.For(t, what, waitTimeout, cond)
}

func getScan(t *testing.T, ns, name string) *cwacv1alpha1.CwacScan {
	t.Helper()
	scan := &cwacv1alpha1.CwacScan{}
	if err := k8s.Get(ctxT(t), client.ObjectKey{Namespace: ns, Name: name}, scan); err != nil {
		t.Fatal(err)
	}
	return scan
}

func waitPhase(t *testing.T, ns, name string, phase cwacv1alpha1.Phase) *cwacv1alpha1.CwacScan {
	t.Helper()
	var scan *cwacv1alpha1.CwacScan
	waitFor(t, fmt.Sprintf("scan %s to be %s", name, phase), func() (bool, error) {
		scan = getScan(t, ns, name)
		return scan.Status.Phase == phase, fmt.Errorf("phase %q, message %q", scan.Status.Phase, scan.Status.Message)
	})
	return scan
}

func waitJob(t *testing.T, ns, name string) *batchv1.Job {
	t.Helper()
	job := &batchv1.Job{}
	waitFor(t, "the scan's Job", func() (bool, error) {
		scan := getScan(t, ns, name)
		if scan.Status.JobName == "" {
			return false, fmt.Errorf("no jobName yet (phase %q)", scan.Status.Phase)
		}
		err := k8s.Get(ctxT(t), client.ObjectKey{Namespace: ns, Name: scan.Status.JobName}, job)
		return err == nil, err
	})
	return job
}

// The Job controller and kubelet, which envtest lacks, are played by kubesim.
func startPod(t *testing.T, job *batchv1.Job, status corev1.PodStatus) *corev1.Pod {
	t.Helper()
	pod, err := kubesim.StartPod(ctxT(t), k8s, job, status)
	if err != nil {
		t.Fatalf("starting pod: %v", err)
	}
	return pod
}

func setPodStatus(t *testing.T, pod *corev1.Pod, status corev1.PodStatus) {
	t.Helper()
	if err := kubesim.SetPodStatus(ctxT(t), k8s, pod, status); err != nil {
		t.Fatalf("updating pod status: %v", err)
	}
}

var (
	runningStatus    = kubesim.Running
	terminatedStatus = kubesim.Terminated
	waitingStatus    = kubesim.Waiting
)

func report(m scanpod.Report) string { return string(scanpod.Encode(m, scanpod.MaxBytes)) }

func finishJob(t *testing.T, job *batchv1.Job, succeeded bool, reason, message string) {
	t.Helper()
	if err := kubesim.FinishJob(ctxT(t), k8s, job, succeeded, reason, message); err != nil {
		t.Fatalf("finishing Job: %v", err)
	}
}

// eventReasons lists the reasons of the Events recorded for a scan.
func eventReasons(t *testing.T, scan *cwacv1alpha1.CwacScan) []string {
	t.Helper()
	list := &eventsv1.EventList{}
	if err := k8s.List(ctxT(t), list, client.InNamespace(scan.Namespace)); err != nil {
		t.Fatal(err)
	}
	var reasons []string
	for _, e := range list.Items {
		if e.Regarding.UID == scan.UID {
			reasons = append(reasons, e.Type+"/"+e.Reason)
		}
	}
	return reasons
}

func waitEvents(t *testing.T, scan *cwacv1alpha1.CwacScan, want ...string) {
	t.Helper()
	waitFor(t, fmt.Sprintf("events %v", want), func() (bool, error) {
		got := strings.Join(eventReasons(t, scan), " ")
		for _, w := range want {
			if !strings.Contains(got, w) {
				return false, fmt.Errorf("events so far: %s", got)
			}
		}
		return true, nil
	})
}

// clearEarlierTests removes every scan and Job that earlier tests left in the
// shared API server, for a test that sets a concurrency cap: the cap counts
// scan Jobs in every namespace, and envtest runs no garbage collector, so a
// Job an earlier test's operator created while that test's scans were being
// deleted would hold a slot for ever. Call it first, before any manager
// starts (earlier tests' managers have stopped by then).
func clearEarlierTests(t *testing.T) {
	t.Helper()
	ctx := ctxT(t)
	scans := &cwacv1alpha1.CwacScanList{}
	if err := k8s.List(ctx, scans); err != nil {
		t.Fatal(err)
	}
	for i := range scans.Items {
		s := &scans.Items[i]
		if len(s.Finalizers) > 0 {
			patch := client.MergeFrom(s.DeepCopy())
			s.Finalizers = nil
			if err := k8s.Patch(ctx, s, patch); client.IgnoreNotFound(err) != nil {
				t.Fatal(err)
			}
		}
		if err := k8s.Delete(ctx, s); client.IgnoreNotFound(err) != nil {
			t.Fatal(err)
		}
	}
	jobs := &batchv1.JobList{}
	if err := k8s.List(ctx, jobs); err != nil {
		t.Fatal(err)
	}
	for i := range jobs.Items {
		err := k8s.Delete(ctx, &jobs.Items[i], client.PropagationPolicy(metav1.DeletePropagationBackground))
		if client.IgnoreNotFound(err) != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "earlier tests' scans and Jobs gone", func() (bool, error) {
		if err := k8s.List(ctx, scans); err != nil {
			return false, err
		}
		if err := k8s.List(ctx, jobs); err != nil {
			return false, err
		}
		return len(scans.Items) == 0 && len(jobs.Items) == 0, fmt.Errorf("%d scans and %d Jobs left", len(scans.Items), len(jobs.Items))
	})
}
