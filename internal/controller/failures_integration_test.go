//go:build integration

package controller

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
	"github.com/a11y-dev/cwac-operator/internal/scanspec"
)

// TestScanEndings plays each way a scan's Job can end and checks the phase,
// reason and message the scan ends with.
func TestScanEndings(t *testing.T) {
	startManager(t, 0)
	ns := newNamespace(t)
	tracebackTail := "Traceback (most recent call last):\n  File \"/cwac/cwac.py\", line 184, in <module>\n" +
		"ValueError: config_filename must be alphanumeric, underscores, and hyphens"
	partial := &results.Summary{PagesScanned: 4, URLsScanned: 4, TotalIssues: 3, UnscannedBaseURLs: []string{"https://down.example/"}}
	noPages := &results.Summary{UnscannedBaseURLs: []string{"https://down.example/"}}
	// A real CWAC crash's stderr (language_audit without nltk data): its
	// first lines are nltk's banner, its cause the LookupError at the end.
	nltkCrash := tail(readFixture(t, "failures/e-language-audit-no-nltk-data.stderr"), 3000)

	tests := []struct {
		name        string
		pod         corev1.PodStatus
		jobOK       bool
		jobReason   string
		wantPhase   cwacv1alpha1.Phase
		wantReason  string
		wantMessage []string
		wantExit    *int32
		wantFailure *cwacv1alpha1.ScanFailure // logTail: a substring it must hold
		check       func(t *testing.T, s *cwacv1alpha1.CwacScan)
	}{
		{
			name:        "deadline exceeded",
			pod:         terminatedStatus(143, "Error", report(scanpod.Report{Outcome: scanpod.OutcomeTerminated, ExitCode: 143})),
			jobReason:   batchv1.JobReasonDeadlineExceeded,
			wantPhase:   cwacv1alpha1.PhaseFailed,
			wantReason:  cwacv1alpha1.ReasonDeadlineExceeded,
			wantMessage: []string{"ran past its 1h0m0s timeout"},
		},
		{
			name: "CWAC exits non-zero: the report's stderr tail is kept",
			pod: terminatedStatus(1, "Error", report(scanpod.Report{
				Outcome: scanpod.OutcomeCWACFailed, ExitCode: 1, Message: "CWAC exited with code 1: ValueError: …", StderrTail: tracebackTail,
			})),
			jobReason:   batchv1.JobReasonBackoffLimitExceeded,
			wantPhase:   cwacv1alpha1.PhaseFailed,
			wantReason:  cwacv1alpha1.ReasonCWACExitedNonZero,
			wantMessage: []string{"CWAC exited with code 1: ValueError: config_filename must be alphanumeric"},
			wantExit:    ptrTo[int32](1),
			wantFailure: &cwacv1alpha1.ScanFailure{Reason: cwacv1alpha1.ReasonCWACExitedNonZero, ExitCode: ptrTo[int32](1),
				Cause: "ValueError: config_filename must be alphanumeric, underscores, and hyphens", LogTail: "Traceback (most recent call last)"},
		},
		{
			name:        "a real CWAC crash: the message names the cause, the Event still fits",
			pod:         terminatedStatus(1, "Error", report(scanpod.Report{Outcome: scanpod.OutcomeCWACFailed, ExitCode: 1, StderrTail: nltkCrash})),
			jobReason:   batchv1.JobReasonBackoffLimitExceeded,
			wantPhase:   cwacv1alpha1.PhaseFailed,
			wantReason:  cwacv1alpha1.ReasonCWACExitedNonZero,
			wantMessage: []string{"CWAC exited with code 1: LookupError: Resource cmudict not found."},
			wantExit:    ptrTo[int32](1),
			wantFailure: &cwacv1alpha1.ScanFailure{Reason: cwacv1alpha1.ReasonCWACExitedNonZero, ExitCode: ptrTo[int32](1),
				Cause: "LookupError: Resource cmudict not found.", LogTail: "nltk.download('cmudict')"},
		},
		{
			name:        "a real CWAC crash before any report: the kubelet's log tail",
			pod:         terminatedStatus(1, "Error", tail(nltkCrash, 2048)),
			jobReason:   batchv1.JobReasonBackoffLimitExceeded,
			wantPhase:   cwacv1alpha1.PhaseFailed,
			wantReason:  cwacv1alpha1.ReasonCWACExitedNonZero,
			wantMessage: []string{"CWAC exited with code 1: LookupError: Resource cmudict not found."},
			wantExit:    ptrTo[int32](1),
		},
		{
			name:        "crash before any report: the kubelet's log tail is used",
			pod:         terminatedStatus(1, "Error", tracebackTail),
			jobReason:   batchv1.JobReasonBackoffLimitExceeded,
			wantPhase:   cwacv1alpha1.PhaseFailed,
			wantReason:  cwacv1alpha1.ReasonCWACExitedNonZero,
			wantMessage: []string{"CWAC exited with code 1: ValueError: config_filename must be alphanumeric"},
			wantExit:    ptrTo[int32](1),
			wantFailure: &cwacv1alpha1.ScanFailure{Reason: cwacv1alpha1.ReasonCWACExitedNonZero, ExitCode: ptrTo[int32](1),
				Cause: "ValueError: config_filename must be alphanumeric, underscores, and hyphens", LogTail: "Traceback (most recent call last)"},
		},
		{
			name:        "out of memory",
			pod:         terminatedStatus(137, "OOMKilled", ""),
			jobReason:   batchv1.JobReasonBackoffLimitExceeded,
			wantPhase:   cwacv1alpha1.PhaseFailed,
			wantReason:  cwacv1alpha1.ReasonOOMKilled,
			wantMessage: []string{"ran out of memory (limit 1Gi)"},
			wantExit:    ptrTo[int32](137),
			wantFailure: &cwacv1alpha1.ScanFailure{Reason: cwacv1alpha1.ReasonOOMKilled, ExitCode: ptrTo[int32](137)},
		},
		{
			name: "runner could not start CWAC",
			pod: terminatedStatus(2, "Error", report(scanpod.Report{
				Outcome: scanpod.OutcomeRunnerError, ExitCode: 2,
				Message: "runner: reading CWAC's default config: open /cwac/config/config_default.json: no such file or directory",
			})),
			jobReason:   batchv1.JobReasonBackoffLimitExceeded,
			wantPhase:   cwacv1alpha1.PhaseFailed,
			wantReason:  cwacv1alpha1.ReasonRunnerError,
			wantMessage: []string{"config_default.json"},
		},
		{
			name: "exit 0 but no page scanned",
			pod: terminatedStatus(0, "Completed", report(scanpod.Report{
				Outcome: scanpod.OutcomeNoPages, Message: "no pages were scanned; base URLs that yielded no page: https://down.example/", Summary: noPages,
			})),
			jobOK:       true,
			wantPhase:   cwacv1alpha1.PhaseFailed,
			wantReason:  cwacv1alpha1.ReasonNoPagesScanned,
			wantMessage: []string{"https://down.example/"},
			wantExit:    ptrTo[int32](0),
		},
		{
			name: "a report naming a results directory outside the scan's is not believed",
			pod: terminatedStatus(0, "Completed", report(scanpod.Report{
				Outcome: scanpod.OutcomeComplete, ResultsDir: "../../other-namespace/secret-scan", Summary: partial, Message: "scanned 4 pages",
			})),
			jobOK:       true,
			wantPhase:   cwacv1alpha1.PhaseComplete,
			wantReason:  cwacv1alpha1.ReasonSucceeded,
			wantMessage: []string{"scanned 4 pages"},
			check: func(t *testing.T, s *cwacv1alpha1.CwacScan) {
				if want := scanspec.ScanDir(s); s.Status.ResultsPath != want {
					t.Errorf("resultsPath = %q, want the scan's own directory %q", s.Status.ResultsPath, want)
				}
			},
		},
		{
			name: "some base URLs yielded no page: Complete, with a condition naming them",
			pod: terminatedStatus(0, "Completed", report(scanpod.Report{
				Outcome: scanpod.OutcomePartial, ResultsDir: "2026-11-22_00-00-00_x", Summary: partial,
				Message: "scanned 4 pages; base URLs that yielded no page: https://down.example/",
			})),
			jobOK:       true,
			wantPhase:   cwacv1alpha1.PhaseComplete,
			wantReason:  cwacv1alpha1.ReasonSucceeded,
			wantMessage: []string{"https://down.example/"},
			check: func(t *testing.T, s *cwacv1alpha1.CwacScan) {
				c := meta.FindStatusCondition(s.Status.Conditions, cwacv1alpha1.ConditionAllSitesScanned)
				if c == nil || c.Status != metav1.ConditionFalse || c.Reason != cwacv1alpha1.ReasonSomeSitesUnscanned ||
					!strings.Contains(c.Message, "https://down.example/") {
					t.Errorf("AllSitesScanned = %+v", c)
				}
			},
		},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := "ending-" + string(rune('a'+i))
			createScan(t, ns, name, simpleSpec())
			job := waitJob(t, ns, name)
			startPod(t, job, tt.pod)
			finishJob(t, job, tt.jobOK, tt.jobReason, "Job ended")
			s := waitPhase(t, ns, name, tt.wantPhase)
			condType := cwacv1alpha1.ConditionFailed
			if tt.wantPhase == cwacv1alpha1.PhaseComplete {
				condType = cwacv1alpha1.ConditionComplete
			}
			c := meta.FindStatusCondition(s.Status.Conditions, condType)
			if c == nil || c.Status != metav1.ConditionTrue || c.Reason != tt.wantReason {
				t.Fatalf("%s condition = %+v, want reason %s", condType, c, tt.wantReason)
			}
			for _, w := range tt.wantMessage {
				if !strings.Contains(s.Status.Message, w) || !strings.Contains(c.Message, w) {
					t.Errorf("message %q / condition %q does not contain %q", s.Status.Message, c.Message, w)
				}
			}
			if tt.wantExit != nil && (s.Status.ExitCode == nil || *s.Status.ExitCode != *tt.wantExit) {
				t.Errorf("exitCode = %v, want %d", s.Status.ExitCode, *tt.wantExit)
			}
			if s.Status.CompletionTime == nil {
				t.Error("no completionTime")
			}
			if tt.wantFailure != nil {
				checkFailure(t, s.Status.Failure, tt.wantFailure)
			}
			if tt.wantPhase == cwacv1alpha1.PhaseComplete && s.Status.Failure != nil {
				t.Errorf("a complete scan has status.failure %+v", s.Status.Failure)
			}
			if tt.check != nil {
				tt.check(t, s)
			}
			wantEvent := "Normal/" + tt.wantReason
			if tt.wantPhase == cwacv1alpha1.PhaseFailed {
				wantEvent = "Warning/" + tt.wantReason
			}
			waitEvents(t, s, wantEvent)
		})
	}
}

func ptrTo[T any](v T) *T { return &v }

// TestImagePullBackOff: the reason shows on a condition while the scan is
// Pending, and becomes the failure reason when the Job gives up.
func TestImagePullBackOff(t *testing.T) {
	startManager(t, 0)
	ns := newNamespace(t)
	spec := simpleSpec()
	spec.Image = "registry.invalid/cwac:missing"
	createScan(t, ns, "pull", spec)
	job := waitJob(t, ns, "pull")
	if got := job.Spec.Template.Spec.Containers[0].Image; got != spec.Image {
		t.Errorf("image = %q, want the scan's override %q", got, spec.Image)
	}
	startPod(t, job, waitingStatus("ImagePullBackOff", `Back-off pulling image "registry.invalid/cwac:missing"`))
	waitFor(t, "Degraded=True/ImagePullBackOff", func() (bool, error) {
		s := getScan(t, ns, "pull")
		c := meta.FindStatusCondition(s.Status.Conditions, cwacv1alpha1.ConditionDegraded)
		return c != nil && c.Status == metav1.ConditionTrue && c.Reason == cwacv1alpha1.ReasonImagePullBackOff && s.Status.Phase == cwacv1alpha1.PhasePending, nil
	})
	s := getScan(t, ns, "pull")
	if !strings.Contains(s.Status.Message, "registry.invalid/cwac:missing") {
		t.Errorf("message %q does not name the image", s.Status.Message)
	}
	waitEvents(t, s, "Warning/ImagePullBackOff")
	finishJob(t, job, false, batchv1.JobReasonDeadlineExceeded, "Job was active longer than specified deadline")
	s = waitPhase(t, ns, "pull", cwacv1alpha1.PhaseFailed)
	// The deadline is what stopped it; the message says the pod never started and why.
	if c := meta.FindStatusCondition(s.Status.Conditions, cwacv1alpha1.ConditionFailed); c == nil || c.Reason != cwacv1alpha1.ReasonDeadlineExceeded ||
		!strings.Contains(c.Message, "never started") || !strings.Contains(c.Message, "registry.invalid/cwac:missing") {
		t.Errorf("Failed condition = %+v", c)
	}
}

// TestImagePullBackOffThenJobFails: the Job fails without a container ever
// running and without a deadline: the pull problem is the reason.
func TestImagePullFailureReason(t *testing.T) {
	startManager(t, 0)
	ns := newNamespace(t)
	createScan(t, ns, "pull2", simpleSpec())
	job := waitJob(t, ns, "pull2")
	startPod(t, job, waitingStatus("ErrImagePull", "pull access denied"))
	waitFor(t, "Degraded", func() (bool, error) {
		return meta.IsStatusConditionTrue(getScan(t, ns, "pull2").Status.Conditions, cwacv1alpha1.ConditionDegraded), nil
	})
	finishJob(t, job, false, "PodFailurePolicy", "pod failed")
	s := waitPhase(t, ns, "pull2", cwacv1alpha1.PhaseFailed)
	if c := meta.FindStatusCondition(s.Status.Conditions, cwacv1alpha1.ConditionFailed); c == nil || c.Reason != cwacv1alpha1.ReasonErrImagePull ||
		!strings.Contains(c.Message, "never started") {
		t.Errorf("Failed condition = %+v", c)
	}
}

func TestJobDeletedBySomeone(t *testing.T) {
	startManager(t, 0)
	ns := newNamespace(t)
	createScan(t, ns, "gone", simpleSpec())
	job := waitJob(t, ns, "gone")
	startPod(t, job, runningStatus())
	waitPhase(t, ns, "gone", cwacv1alpha1.PhaseRunning)
	if err := k8s.Delete(ctxT(t), job, client.PropagationPolicy(metav1.DeletePropagationBackground)); err != nil {
		t.Fatal(err)
	}
	s := waitPhase(t, ns, "gone", cwacv1alpha1.PhaseFailed)
	if c := meta.FindStatusCondition(s.Status.Conditions, cwacv1alpha1.ConditionFailed); c == nil || c.Reason != cwacv1alpha1.ReasonJobDeleted ||
		!strings.Contains(c.Message, job.Name) {
		t.Errorf("Failed condition = %+v", c)
	}
	// A finished scan is never run again: no new Job appears.
	jobs := &batchv1.JobList{}
	if err := k8s.List(ctxT(t), jobs, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs.Items {
		if j.DeletionTimestamp == nil {
			t.Errorf("a Job %s exists after the scan failed", j.Name)
		}
	}
}

// TestInvalidSpecIsNotRetried: what the CRD cannot check but CWAC cannot run
// ends the scan at once with InvalidSpec, and creates nothing.
func TestInvalidSpecIsNotRetried(t *testing.T) {
	startManager(t, 0)
	ns := newNamespace(t)
	tests := []struct {
		name string
		spec cwacv1alpha1.CwacScanSpec
		want string
	}{
		{"owned config key", cwacv1alpha1.CwacScanSpec{
			URLs:            []string{"https://a.example/"},
			ConfigOverrides: map[string]apiextensionsv1.JSON{"base_urls_visit_path": {Raw: []byte(`"/etc/"`)}},
		},
			`configOverrides.base_urls_visit_path: set by the operator`},
		{"too large for a ConfigMap", cwacv1alpha1.CwacScanSpec{URLs: manyURLs(500, 2000)}, "over the 921600-byte ConfigMap limit"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := "invalid-" + string(rune('a'+i))
			createScan(t, ns, name, tt.spec)
			s := waitPhase(t, ns, name, cwacv1alpha1.PhaseFailed)
			c := meta.FindStatusCondition(s.Status.Conditions, cwacv1alpha1.ConditionFailed)
			if c == nil || c.Reason != cwacv1alpha1.ReasonInvalidSpec || !strings.Contains(c.Message, tt.want) {
				t.Errorf("Failed condition = %+v, want InvalidSpec containing %q", c, tt.want)
			}
			if s.Status.JobName != "" {
				t.Errorf("jobName %q set for an invalid scan", s.Status.JobName)
			}
			waitEvents(t, s, "Warning/InvalidSpec")
		})
	}
	jobs := &batchv1.JobList{}
	cms := &corev1.ConfigMapList{}
	if err := k8s.List(ctxT(t), jobs, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	if err := k8s.List(ctxT(t), cms, client.InNamespace(ns), client.HasLabels{"app.kubernetes.io/managed-by"}); err != nil {
		t.Fatal(err)
	}
	if len(jobs.Items)+len(cms.Items) != 0 {
		t.Errorf("invalid scans created %d Jobs and %d ConfigMaps", len(jobs.Items), len(cms.Items))
	}
}

func manyURLs(n, length int) []string {
	out := make([]string, n)
	for i := range out {
		u := "https://example.org/" + string(rune('a'+i%26)) + strings.Repeat("x", length)
		out[i] = u[:length-5] + "/" + string(rune('a'+i/26%26)) + string(rune('a'+i%26)) + "/"
	}
	return out
}

// TestUnschedulable: a pod no node can take (here: its results claim is
// missing) shows why on the Degraded condition while the scan is Pending.
func TestUnschedulable(t *testing.T) {
	startManager(t, 0)
	ns := newNamespace(t)
	createScan(t, ns, "nowhere", simpleSpec())
	job := waitJob(t, ns, "nowhere")
	startPod(t, job, corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{
		Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable,
		Message: `0/1 nodes are available: persistentvolumeclaim "cwac-results" not found.`, LastTransitionTime: metav1.Now(),
	}}})
	waitFor(t, "Degraded=True/Unschedulable", func() (bool, error) {
		s := getScan(t, ns, "nowhere")
		c := meta.FindStatusCondition(s.Status.Conditions, cwacv1alpha1.ConditionDegraded)
		return c != nil && c.Reason == cwacv1alpha1.ReasonUnschedulable && strings.Contains(c.Message, `persistentvolumeclaim "cwac-results" not found`) &&
			s.Status.Phase == cwacv1alpha1.PhasePending, nil
	})
}

// checkFailure compares status.failure with want, whose logTail is a
// substring the tail must hold; the tail stays within its 2 KiB.
func checkFailure(t *testing.T, got, want *cwacv1alpha1.ScanFailure) {
	t.Helper()
	if got == nil {
		t.Fatalf("status.failure is not set, want %+v", want)
	}
	if got.Reason != want.Reason || got.Cause != want.Cause {
		t.Errorf("failure reason/cause = %q/%q, want %q/%q", got.Reason, got.Cause, want.Reason, want.Cause)
	}
	if (got.ExitCode == nil) != (want.ExitCode == nil) || (got.ExitCode != nil && *got.ExitCode != *want.ExitCode) {
		t.Errorf("failure exitCode = %v, want %v", got.ExitCode, want.ExitCode)
	}
	if !strings.Contains(got.LogTail, want.LogTail) {
		t.Errorf("failure logTail %q does not hold %q", got.LogTail, want.LogTail)
	}
	if len(got.LogTail) > 2048 {
		t.Errorf("failure logTail is %d bytes, over 2048", len(got.LogTail))
	}
}

// tail keeps the last n bytes of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

// readFixture reads a file of real CWAC output under testdata/cwac-results.
func readFixture(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "cwac-results", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestJobEndBeforePodEnd: Jobs and pods reach the operator through separate
// watches, so a Job's failure can be seen before its pod's termination. The
// scan waits for the pod's (its report names the cause), and ends without
// it only once the pod has had podSettleGrace to report.
func TestJobEndBeforePodEnd(t *testing.T) {
	startManager(t, 0)
	ns := newNamespace(t)
	crash := report(scanpod.Report{Outcome: scanpod.OutcomeCWACFailed, ExitCode: 1,
		StderrTail: "Traceback (most recent call last):\nLookupError: Resource cmudict not found."})
	runningScan := func(name string) (*batchv1.Job, *corev1.Pod) {
		createScan(t, ns, name, simpleSpec())
		job := waitJob(t, ns, name)
		pod := startPod(t, job, runningStatus())
		waitPhase(t, ns, name, cwacv1alpha1.PhaseRunning)
		return job, pod
	}
	failedReason := func(s *cwacv1alpha1.CwacScan) string {
		if c := meta.FindStatusCondition(s.Status.Conditions, cwacv1alpha1.ConditionFailed); c != nil {
			return c.Reason
		}
		return ""
	}

	t.Run("the pod's termination comes after the Job's end", func(t *testing.T) {
		job, pod := runningScan("pod-late")
		finishJob(t, job, false, batchv1.JobReasonBackoffLimitExceeded, "Job has reached the specified backoff limit")
		time.Sleep(time.Second)
		if s := getScan(t, ns, "pod-late"); s.Status.Phase != cwacv1alpha1.PhaseRunning {
			t.Fatalf("ended before its pod's termination: phase %s, %q", s.Status.Phase, s.Status.Message)
		}
		setPodStatus(t, pod, terminatedStatus(1, "Error", crash))
		s := waitPhase(t, ns, "pod-late", cwacv1alpha1.PhaseFailed)
		if got := failedReason(s); got != cwacv1alpha1.ReasonCWACExitedNonZero || !strings.Contains(s.Status.Message, "LookupError") {
			t.Errorf("Failed reason %q, message %q: want %s naming the cause", got, s.Status.Message, cwacv1alpha1.ReasonCWACExitedNonZero)
		}
	})

	t.Run("a pod that never reports: the scan ends after the grace", func(t *testing.T) {
		job, _ := runningScan("pod-silent")
		finishJob(t, job, false, batchv1.JobReasonBackoffLimitExceeded, "Job has reached the specified backoff limit")
		start := time.Now()
		s := waitPhase(t, ns, "pod-silent", cwacv1alpha1.PhaseFailed)
		if got := failedReason(s); got != cwacv1alpha1.ReasonJobFailed {
			t.Errorf("Failed reason %q, want %s", got, cwacv1alpha1.ReasonJobFailed)
		}
		if waited := time.Since(start); waited < podSettleGrace/2 {
			t.Errorf("ended %v after the Job, before the pod had its grace (%v)", waited, podSettleGrace)
		}
	})
}
