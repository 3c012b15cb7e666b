//go:build integration

package controller

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

func realSummary(t *testing.T) *results.Summary {
	t.Helper()
	s, err := results.Summarize("../../testdata/cwac-results/2026-11-21_23-18-23_real-scan-1", results.Options{Duration: 31.5})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestScanLifecycle drives one scan through its whole life on a real API server.
func TestScanLifecycle(t *testing.T) {
	startManager(t, 0)
	ns := newNamespace(t)
	scan := createScan(t, ns, "nightly", cwacv1alpha1.CwacScanSpec{
		URLs: []string{"https://www.example.govt.nz/"},
		Sites: []cwacv1alpha1.Site{
			{URL: "https://a.example.org/", Organisation: `Te Tari, "Ā" Ltd`, Sector: "Health"},
		},
		Plugins:         map[string]bool{"language_audit": false},
		ConfigOverrides: map[string]apiextensionsv1.JSON{"only_allow_https": {Raw: []byte("false")}},
	})

	job := waitJob(t, ns, scan.Name)
	pending := waitPhase(t, ns, scan.Name, cwacv1alpha1.PhasePending)
	if c := meta.FindStatusCondition(pending.Status.Conditions, cwacv1alpha1.ConditionStarted); c == nil || c.Status != metav1.ConditionTrue ||
		c.Reason != cwacv1alpha1.ReasonJobCreated || c.ObservedGeneration != pending.Generation {
		t.Errorf("Started condition = %+v", c)
	}
	if pending.Status.ResultsPath != ns+"/nightly-"+strings.ReplaceAll(string(scan.UID), "-", "")[:8] || pending.Status.StartTime == nil {
		t.Errorf("resultsPath %q, startTime %v", pending.Status.ResultsPath, pending.Status.StartTime)
	}

	checkScanObjects(t, ns, scan, job, pending.Status.ResultsPath)

	// The pod starts: Running.
	p := startPod(t, job, runningStatus())
	waitPhase(t, ns, scan.Name, cwacv1alpha1.PhaseRunning)

	// CWAC finishes: the runner's report reaches status.
	summary := realSummary(t)
	setPodStatus(t, p, terminatedStatus(0, "Completed", report(scanpod.Report{
		Outcome: scanpod.OutcomeComplete, ResultsDir: "2026-11-21_23-18-23_nightly", Message: "scanned 4 pages, found 17 issues", Summary: summary,
	})))
	finishJob(t, job, true, "", "")
	done := waitPhase(t, ns, scan.Name, cwacv1alpha1.PhaseComplete)
	checkCompleted(t, done, pending.Status.ResultsPath)
	// One Event for the life of a scan that went well: how it ended. The
	// steps between are in status only.
	waitEvents(t, done, "Normal/Succeeded")
	time.Sleep(time.Second) // Events are sent in the background: a late one would show now
	if got := eventReasons(t, done); len(got) != 1 {
		t.Errorf("Events %v, want only Normal/Succeeded", got)
	}
}

// checkScanObjects checks the ConfigMap and Job the operator made for the
// lifecycle test's scan against the scan pod contract.
func checkScanObjects(t *testing.T, ns string, scan *cwacv1alpha1.CwacScan, job *batchv1.Job, resultsPath string) {
	t.Helper()
	// The ConfigMap: overrides and the URL CSV, quoted for commas, quotes and non-ASCII.
	cm := &corev1.ConfigMap{}
	if err := k8s.Get(ctxT(t), client.ObjectKey{Namespace: ns, Name: job.Name}, cm); err != nil {
		t.Fatal(err)
	}
	wantCSV := "organisation,url,sector\nwww.example.govt.nz,https://www.example.govt.nz/,unknown\n\"Te Tari, \"\"Ā\"\" Ltd\",https://a.example.org/,Health\n"
	if diff := cmp.Diff(wantCSV, cm.Data["urls.csv"]); diff != "" {
		t.Errorf("urls.csv (-want +got):\n%s", diff)
	}
	var overrides map[string]any
	if err := json.Unmarshal([]byte(cm.Data["scan.json"]), &overrides); err != nil {
		t.Fatal(err)
	}
	wantOverrides := map[string]any{
		"audit_name": "nightly", "max_links_per_domain": 50.0, "thread_count": 1.0, "only_allow_https": false,
		"audit_plugins": map[string]any{"language_audit": map[string]any{"enabled": false}},
	}
	if diff := cmp.Diff(wantOverrides, overrides); diff != "" {
		t.Errorf("scan.json (-want +got):\n%s", diff)
	}

	// Both are owned by the scan, so deleting it removes them.
	for _, obj := range []metav1.Object{cm, job} {
		ref := metav1.GetControllerOf(obj)
		if ref == nil || ref.UID != scan.UID || ref.Kind != "CwacScan" || ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion {
			t.Errorf("%s has controller reference %+v, want the scan", obj.GetName(), ref)
		}
	}

	// The Job per the pod contract.
	if *job.Spec.BackoffLimit != 0 || *job.Spec.ActiveDeadlineSeconds != 3600 {
		t.Errorf("backoffLimit %d, activeDeadlineSeconds %d", *job.Spec.BackoffLimit, *job.Spec.ActiveDeadlineSeconds)
	}
	pod := job.Spec.Template.Spec
	if *pod.AutomountServiceAccountToken || pod.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("pod token %v, restart %s", *pod.AutomountServiceAccountToken, pod.RestartPolicy)
	}
	c := pod.Containers[0]
	if c.Image != "cwac:test" || c.Command[0] != "/runner/cwac-runner" || !*c.SecurityContext.ReadOnlyRootFilesystem ||
		c.TerminationMessagePolicy != corev1.TerminationMessageFallbackToLogsOnError {
		t.Errorf("container = %+v", c)
	}
	if m := c.VolumeMounts[3]; m.MountPath != "/results" || m.SubPath != resultsPath {
		t.Errorf("results mount = %+v, want subPath %s", m, resultsPath)
	}
}

// checkCompleted checks the status of the lifecycle test's finished scan.
func checkCompleted(t *testing.T, done *cwacv1alpha1.CwacScan, resultsPath string) {
	t.Helper()
	if done.Status.ExitCode == nil || *done.Status.ExitCode != 0 || done.Status.CompletionTime == nil {
		t.Errorf("exitCode %v, completionTime %v", done.Status.ExitCode, done.Status.CompletionTime)
	}
	if want := resultsPath + "/2026-11-21_23-18-23_nightly"; done.Status.ResultsPath != want {
		t.Errorf("resultsPath = %q, want %q", done.Status.ResultsPath, want)
	}
	s := done.Status.Summary
	if s == nil || s.PagesScanned != 4 || s.TotalIssues != 17 || s.IssuesByImpact["critical"] != 6 || s.IssuesByAuditType["axe_core_audit"] != 12 ||
		len(s.TopViolations) != 7 || s.DurationSeconds != 32 {
		t.Errorf("summary = %+v", s)
	}
	if c := meta.FindStatusCondition(done.Status.Conditions, cwacv1alpha1.ConditionComplete); c == nil || c.Status != metav1.ConditionTrue ||
		c.Reason != cwacv1alpha1.ReasonSucceeded {
		t.Errorf("Complete condition = %+v", c)
	}
	if c := meta.FindStatusCondition(done.Status.Conditions, cwacv1alpha1.ConditionAllSitesScanned); c == nil || c.Status != metav1.ConditionTrue {
		t.Errorf("AllSitesScanned condition = %+v", c)
	}
	if done.Status.ObservedGeneration != done.Generation {
		t.Errorf("observedGeneration %d, generation %d", done.Status.ObservedGeneration, done.Generation)
	}
}
