//go:build integration

package controller

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

// A scan whose only site redirects to a refused address gets nothing from
// it: the pod reports the refusal, and the scan's status shows it in its
// message and its ConnectionsBlocked condition, with a Warning Event; a
// scan whose pod refused nothing says so.
func TestStatusShowsConnectionsBlocked(t *testing.T) {
	startManager(t, 0)
	ns := newNamespace(t)
	blocked := &results.BlockedConnections{Total: 2, Hosts: []results.BlockedHost{
		{Host: "169.254.169.254:80", Rule: "link-local", Detail: "169.254.169.254 is a link-local address", Count: 2},
	}}
	createScan(t, ns, "sneaky", simpleSpec())
	job := waitJob(t, ns, "sneaky")
	startPod(t, job, terminatedStatus(0, "Completed", report(scanpod.Report{
		Outcome: scanpod.OutcomeNoPages, ResultsDir: realResultsDir, BlockedByPolicy: blocked,
		Message: "no pages were scanned; base URLs that yielded no page: https://sneaky.example.org/; " + blocked.Describe(3),
	})))
	finishJob(t, job, true, "", "")
	scan := waitPhase(t, ns, "sneaky", cwacv1alpha1.PhaseFailed)
	want := "blocked by policy: 169.254.169.254:80 (link-local); 2 connections in all"
	c := meta.FindStatusCondition(scan.Status.Conditions, cwacv1alpha1.ConditionConnectionsBlocked)
	if c == nil || c.Status != metav1.ConditionTrue || c.Reason != cwacv1alpha1.ReasonBlockedByPolicy || c.Message != want {
		t.Errorf("ConnectionsBlocked = %+v, want True/%s %q", c, cwacv1alpha1.ReasonBlockedByPolicy, want)
	}
	if !strings.HasSuffix(scan.Status.Message, want) || scan.Status.Failure == nil || scan.Status.Failure.Reason != cwacv1alpha1.ReasonNoPagesScanned {
		t.Errorf("status.message %q, failure %+v", scan.Status.Message, scan.Status.Failure)
	}
	waitEvents(t, scan, "Warning/"+cwacv1alpha1.ReasonBlockedByPolicy)

	createScan(t, ns, "fine", simpleSpec())
	job = waitJob(t, ns, "fine")
	startPod(t, job, terminatedStatus(0, "Completed", report(scanpod.Report{
		Outcome: scanpod.OutcomeComplete, ResultsDir: realResultsDir, Summary: realSummary(t),
	})))
	finishJob(t, job, true, "", "")
	scan = waitPhase(t, ns, "fine", cwacv1alpha1.PhaseComplete)
	if c := meta.FindStatusCondition(scan.Status.Conditions, cwacv1alpha1.ConditionConnectionsBlocked); c == nil ||
		c.Status != metav1.ConditionFalse || c.Reason != cwacv1alpha1.ReasonNoneBlocked {
		t.Errorf("ConnectionsBlocked = %+v, want False/%s", c, cwacv1alpha1.ReasonNoneBlocked)
	}
	for _, r := range eventReasons(t, scan) {
		if strings.Contains(r, cwacv1alpha1.ReasonBlockedByPolicy) {
			t.Errorf("a scan with no refusals has the Event %s", r)
		}
	}
}
