package scanstatus

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

const resultsDir = "2026-11-21_23-18-23_real-scan-1"

var (
	jobComplete = batchv1.JobCondition{Type: batchv1.JobComplete, Status: corev1.ConditionTrue}
	jobFailed   = batchv1.JobCondition{Type: batchv1.JobFailed, Status: corev1.ConditionTrue,
		Reason: batchv1.JobReasonBackoffLimitExceeded, Message: "Job has reached the specified backoff limit"}
	jobDeadline = batchv1.JobCondition{Type: batchv1.JobFailed, Status: corev1.ConditionTrue,
		Reason: batchv1.JobReasonDeadlineExceeded, Message: "Job was active longer than specified deadline"}
	jobShardsFailed = batchv1.JobCondition{Type: batchv1.JobFailed, Status: corev1.ConditionTrue,
		Reason: batchv1.JobReasonFailedIndexes, Message: "Job has failed indexes"}

	imagePull = &metav1.Condition{Type: cwacv1alpha1.ConditionDegraded, Status: metav1.ConditionTrue,
		Reason: cwacv1alpha1.ReasonImagePullBackOff, Message: "container cwac of pod p is waiting: ImagePullBackOff: back-off"}

	summary = &results.Summary{TotalIssues: 7, PagesScanned: 3, URLsScanned: 3, DurationSeconds: 2}
	// traceback is CWAC's error output when it crashed; its cause is the last line.
	traceback = "Traceback (most recent call last):\n  File \"audit_manager.py\", line 9\nKeyError: 'viewport_sizes'\n"
)

// terminated is a container that ended with code, its termination message
// the report r (or, when r is a string, that text).
func terminated(code int32, r any) *corev1.ContainerStateTerminated {
	t := &corev1.ContainerStateTerminated{ExitCode: code, Reason: "Completed"}
	if code != 0 {
		t.Reason = "Error"
	}
	switch r := r.(type) {
	case scanpod.Report:
		t.Message = string(scanpod.Encode(r, scanpod.MaxBytes))
	case string:
		t.Message = r
	}
	return t
}

func oomKilled(r any) *corev1.ContainerStateTerminated {
	t := terminated(137, r)
	t.Reason = cwacv1alpha1.ReasonOOMKilled
	return t
}

// TestEnd is every way a scan ends: each row a situation (what the Job,
// the pod and the scan's status showed) and the ending it gets.
func TestEnd(t *testing.T) {
	merge := func(phase corev1.PodPhase, message string) *MergePod {
		return &MergePod{Name: "scan-merge", Phase: phase, Message: message}
	}
	tests := []struct {
		name string
		in   Observed
		want Ending
		// statusMessage is status.message when it is not the Message.
		statusMessage string
	}{
		// One pod: the Job completed.
		{
			name: "complete: the report's message, results and summary",
			in: Observed{Job: jobComplete, Terminated: terminated(0, scanpod.Report{Outcome: scanpod.OutcomeComplete,
				ResultsDir: resultsDir, Summary: summary, Message: "scanned 3 pages, found 7 issues"})},
			want: Ending{Phase: cwacv1alpha1.PhaseComplete, Reason: cwacv1alpha1.ReasonSucceeded, Message: "scanned 3 pages, found 7 issues",
				ExitCode: ptr.To[int32](0), ResultsDir: resultsDir, Summary: ToAPI(summary)},
		},
		{
			name: "complete with unscanned sites is still complete",
			in: Observed{Job: jobComplete, Terminated: terminated(0, scanpod.Report{Outcome: scanpod.OutcomePartial,
				ResultsDir: resultsDir, Message: "scanned 2 pages; base URLs that yielded no page: https://b/"})},
			want: Ending{Phase: cwacv1alpha1.PhaseComplete, Reason: cwacv1alpha1.ReasonSucceeded,
				Message: "scanned 2 pages; base URLs that yielded no page: https://b/", ExitCode: ptr.To[int32](0), ResultsDir: resultsDir},
		},
		{
			name: "complete, but no page scanned: failed",
			in: Observed{Job: jobComplete, Terminated: terminated(0, scanpod.Report{Outcome: scanpod.OutcomeNoPages,
				ResultsDir: resultsDir, Message: "no pages were scanned"})},
			want: Ending{Phase: cwacv1alpha1.PhaseFailed, Reason: cwacv1alpha1.ReasonNoPagesScanned, Message: "no pages were scanned",
				ExitCode: ptr.To[int32](0), ResultsDir: resultsDir},
		},
		{
			name: "complete, the pod gone: complete without a report",
			in:   Observed{Job: jobComplete},
			want: Ending{Phase: cwacv1alpha1.PhaseComplete, Reason: cwacv1alpha1.ReasonSucceeded,
				Message: "CWAC finished, but its report could not be read (the scan pod is gone or wrote none)"},
		},
		{
			name: "complete, the termination message not a report: its exit code, no results",
			in:   Observed{Job: jobComplete, Terminated: terminated(0, "some log line")},
			want: Ending{Phase: cwacv1alpha1.PhaseComplete, Reason: cwacv1alpha1.ReasonSucceeded,
				Message: "CWAC finished, but its report could not be read (the scan pod is gone or wrote none)", ExitCode: ptr.To[int32](0)},
		},
		{
			name: "a results directory that is not CWAC's is not taken from the pod",
			in: Observed{Job: jobComplete, Terminated: terminated(0, scanpod.Report{Outcome: scanpod.OutcomeComplete,
				ResultsDir: "../other-scan", Message: "m"})},
			want: Ending{Phase: cwacv1alpha1.PhaseComplete, Reason: cwacv1alpha1.ReasonSucceeded, Message: "m", ExitCode: ptr.To[int32](0)},
		},
		{
			name: "the runner's word on the baseline is kept",
			in: Observed{Job: jobComplete, Terminated: terminated(0, scanpod.Report{Outcome: scanpod.OutcomeComplete, Message: "m",
				Baseline: &scanpod.BaselineProblem{Message: "diff: boom"}})},
			want: Ending{Phase: cwacv1alpha1.PhaseComplete, Reason: cwacv1alpha1.ReasonSucceeded, Message: "m", ExitCode: ptr.To[int32](0),
				Baseline: &scanpod.BaselineProblem{Message: "diff: boom"}},
		},

		// One pod: the Job failed.
		{
			name: "past the deadline",
			in:   Observed{Job: jobDeadline, Timeout: time.Hour},
			want: Ending{Phase: cwacv1alpha1.PhaseFailed, Reason: cwacv1alpha1.ReasonDeadlineExceeded,
				Message: "the scan ran past its 1h0m0s timeout and was stopped"},
		},
		{
			name: "past the deadline, the pod never started: says why",
			in:   Observed{Job: jobDeadline, Timeout: 90 * time.Second, Degraded: imagePull},
			want: Ending{Phase: cwacv1alpha1.PhaseFailed, Reason: cwacv1alpha1.ReasonDeadlineExceeded,
				Message: "the scan ran past its 1m30s timeout and was stopped; its pod never started: " + imagePull.Message},
		},
		{
			name: "past the deadline comes before what the stopped container says",
			in: Observed{Job: jobDeadline, Timeout: time.Hour, Terminated: oomKilled(scanpod.Report{
				Outcome: scanpod.OutcomeTerminated, ExitCode: 143, ResultsDir: resultsDir, Summary: summary})},
			want: Ending{Phase: cwacv1alpha1.PhaseFailed, Reason: cwacv1alpha1.ReasonDeadlineExceeded,
				Message: "the scan ran past its 1h0m0s timeout and was stopped", ExitCode: ptr.To[int32](137),
				ResultsDir: resultsDir, Summary: ToAPI(summary)},
		},
		{
			name: "out of memory: names the limit, before the report",
			in: Observed{Job: jobFailed, MemoryLimit: "2Gi", Terminated: oomKilled(scanpod.Report{
				Outcome: scanpod.OutcomeRunnerError, ExitCode: scanpod.ExitRunnerError, Message: "runner: x"})},
			want: Ending{Phase: cwacv1alpha1.PhaseFailed, Reason: cwacv1alpha1.ReasonOOMKilled,
				Message:  "CWAC ran out of memory (limit 2Gi): raise spec.resources.limits.memory or lower spec.threadCount",
				ExitCode: ptr.To[int32](137)},
		},
		{
			name: "the runner could not run CWAC",
			in: Observed{Job: jobFailed, Degraded: imagePull, Terminated: terminated(scanpod.ExitRunnerError, scanpod.Report{
				Outcome: scanpod.OutcomeRunnerError, ExitCode: scanpod.ExitRunnerError, Message: "runner: the disk is full"})},
			want: Ending{Phase: cwacv1alpha1.PhaseFailed, Reason: cwacv1alpha1.ReasonRunnerError, Message: "runner: the disk is full",
				ExitCode: ptr.To[int32](scanpod.ExitRunnerError)},
		},
		{
			name: "the results bucket did not take the results: no results, the cause",
			in: Observed{Job: jobFailed, Terminated: terminated(scanpod.ExitRunnerError, scanpod.Report{
				Outcome: scanpod.OutcomeResultsNotStored, ExitCode: scanpod.ExitRunnerError, ResultsDir: resultsDir,
				Message: "results not stored: results bucket: upload of key \"k\" failed (BucketFull): quota"})},
			want: Ending{Phase: cwacv1alpha1.PhaseFailed, Reason: cwacv1alpha1.ReasonResultsNotStored,
				Message: "results not stored: results bucket: upload of key \"k\" failed (BucketFull): quota", ExitCode: ptr.To[int32](scanpod.ExitRunnerError)},
		},
		{
			name: "CWAC exited non-zero: the report's code and the cause from its error output",
			in: Observed{Job: jobFailed, Terminated: terminated(3, scanpod.Report{Outcome: scanpod.OutcomeCWACFailed, ExitCode: 3,
				ResultsDir: resultsDir, StderrTail: "\n" + traceback + "\n"})},
			want: Ending{Phase: cwacv1alpha1.PhaseFailed, Reason: cwacv1alpha1.ReasonCWACExitedNonZero,
				Message: "CWAC exited with code 3: KeyError: 'viewport_sizes'", ExitCode: ptr.To[int32](3), ResultsDir: resultsDir,
				Cause: "KeyError: 'viewport_sizes'", LogTail: "Traceback (most recent call last):\n  File \"audit_manager.py\", line 9\nKeyError: 'viewport_sizes'"},
		},
		{
			name: "CWAC exited non-zero saying nothing",
			in:   Observed{Job: jobFailed, Terminated: terminated(1, scanpod.Report{Outcome: scanpod.OutcomeCWACFailed, ExitCode: 1})},
			want: Ending{Phase: cwacv1alpha1.PhaseFailed, Reason: cwacv1alpha1.ReasonCWACExitedNonZero,
				Message: "CWAC exited with code 1", ExitCode: ptr.To[int32](1)},
		},
		{
			name: "no report: the kubelet's log tail stands for CWAC's error output",
			in:   Observed{Job: jobFailed, Terminated: terminated(139, traceback)},
			want: Ending{Phase: cwacv1alpha1.PhaseFailed, Reason: cwacv1alpha1.ReasonCWACExitedNonZero,
				Message: "CWAC exited with code 139: KeyError: 'viewport_sizes'", ExitCode: ptr.To[int32](139),
				Cause: "KeyError: 'viewport_sizes'", LogTail: "Traceback (most recent call last):\n  File \"audit_manager.py\", line 9\nKeyError: 'viewport_sizes'"},
		},
		{
			name: "the pod never started: why not",
			in:   Observed{Job: jobFailed, Degraded: imagePull},
			want: Ending{Phase: cwacv1alpha1.PhaseFailed, Reason: cwacv1alpha1.ReasonImagePullBackOff,
				Message: "the scan pod never started: " + imagePull.Message},
		},
		{
			name: "nothing else known: the Job's own reason",
			in:   Observed{JobName: "scan-1234abcd", Job: jobFailed},
			want: Ending{Phase: cwacv1alpha1.PhaseFailed, Reason: cwacv1alpha1.ReasonJobFailed,
				Message: "Job scan-1234abcd failed: BackoffLimitExceeded: Job has reached the specified backoff limit"},
		},

		// Shards: the Job failed, and may not complete without its failed shards.
		{
			name: "a failed shard: its reason, named once, and no results",
			in: Observed{Job: jobShardsFailed, Sharded: true, FailedShard: "1", Terminated: terminated(scanpod.ExitRunnerError,
				scanpod.Report{Outcome: scanpod.OutcomeRunnerError, ExitCode: scanpod.ExitRunnerError,
					ResultsDir: resultsDir, Summary: summary, Message: "shard 1: runner: the disk is full"})},
			want: Ending{Phase: cwacv1alpha1.PhaseFailed, Reason: cwacv1alpha1.ReasonRunnerError, Message: "shard 1: runner: the disk is full",
				Shard: "1", ExitCode: ptr.To[int32](scanpod.ExitRunnerError)},
		},
		{
			name: "a failed shard whose message does not name it: status.message does",
			in: Observed{Job: jobShardsFailed, Sharded: true, FailedShard: "2", Terminated: terminated(1,
				scanpod.Report{Outcome: scanpod.OutcomeCWACFailed, ExitCode: 1})},
			want: Ending{Phase: cwacv1alpha1.PhaseFailed, Reason: cwacv1alpha1.ReasonCWACExitedNonZero, Message: "CWAC exited with code 1",
				Shard: "2", ExitCode: ptr.To[int32](1)},
			statusMessage: "shard 2: CWAC exited with code 1",
		},
		{
			name: "a sharded scan past its deadline: no shard named",
			in:   Observed{Job: jobDeadline, Timeout: time.Hour, Sharded: true, FailedShard: "0"},
			want: Ending{Phase: cwacv1alpha1.PhaseFailed, Reason: cwacv1alpha1.ReasonDeadlineExceeded,
				Message: "the scan ran past its 1h0m0s timeout and was stopped"},
		},
		{
			name: "a sharded scan with no failed shard's pod left: the Job's reason",
			in:   Observed{JobName: "scan-1234abcd", Job: jobShardsFailed, Sharded: true},
			want: Ending{Phase: cwacv1alpha1.PhaseFailed, Reason: cwacv1alpha1.ReasonJobFailed,
				Message: "Job scan-1234abcd failed: FailedIndexes: Job has failed indexes"},
		},

		// Shards: the merge pod ended.
		{
			name: "merged: complete with the merge's results",
			in: Observed{Sharded: true, MergePod: merge(corev1.PodSucceeded, ""), Terminated: terminated(0, scanpod.Report{
				Outcome: scanpod.OutcomePartial, ResultsDir: resultsDir, Summary: summary, Message: "merged 2 of 3 shards"})},
			want: Ending{Phase: cwacv1alpha1.PhaseComplete, Reason: cwacv1alpha1.ReasonSucceeded, Message: "merged 2 of 3 shards",
				ExitCode: ptr.To[int32](0), ResultsDir: resultsDir, Summary: ToAPI(summary), Merged: true},
		},
		{
			name: "merged, but no shard scanned a page",
			in: Observed{Sharded: true, MergePod: merge(corev1.PodSucceeded, ""), Terminated: terminated(0, scanpod.Report{
				Outcome: scanpod.OutcomeNoPages, Message: "no pages were scanned"})},
			want: Ending{Phase: cwacv1alpha1.PhaseFailed, Reason: cwacv1alpha1.ReasonNoPagesScanned, Message: "no pages were scanned",
				ExitCode: ptr.To[int32](0), Merged: true},
		},
		{
			name: "the merge pod succeeded but its runner failed: the report's words",
			in: Observed{ScanDir: "ns/scan-1234abcd", Sharded: true, MergePod: merge(corev1.PodSucceeded, ""), Terminated: terminated(0,
				scanpod.Report{Outcome: scanpod.OutcomeRunnerError, ResultsDir: resultsDir, Summary: summary, Message: "runner: headers differ"})},
			want: Ending{Phase: cwacv1alpha1.PhaseFailed, Reason: cwacv1alpha1.ReasonMergeFailed, ExitCode: ptr.To[int32](0),
				Message: "merging the shards' results failed: runner: headers differ; each shard's results are kept under ns/scan-1234abcd/shards"},
		},
		{
			name: "the merge pod's results were not stored: the cause, not a merge failure",
			in: Observed{ScanDir: "ns/s", Sharded: true, MergePod: merge(corev1.PodFailed, ""), Terminated: terminated(scanpod.ExitRunnerError,
				scanpod.Report{Outcome: scanpod.OutcomeResultsNotStored, ExitCode: scanpod.ExitRunnerError, ResultsDir: resultsDir, Summary: summary,
					Message: "results not stored: x (BucketUnreachable)"})},
			want: Ending{Phase: cwacv1alpha1.PhaseFailed, Reason: cwacv1alpha1.ReasonResultsNotStored, Message: "results not stored: x (BucketUnreachable)",
				ExitCode: ptr.To[int32](scanpod.ExitRunnerError)},
		},
		{
			name: "the merge pod succeeded without a report: its phase",
			in:   Observed{ScanDir: "ns/s", Sharded: true, MergePod: merge(corev1.PodSucceeded, "")},
			want: Ending{Phase: cwacv1alpha1.PhaseFailed, Reason: cwacv1alpha1.ReasonMergeFailed,
				Message: "merging the shards' results failed: pod scan-merge Succeeded; each shard's results are kept under ns/s/shards"},
		},
		{
			name: "the merge pod failed: the kubelet's log tail before the pod's message",
			in: Observed{ScanDir: "ns/s", Sharded: true, MergePod: merge(corev1.PodFailed, "evicted"),
				Terminated: terminated(2, "panic: out of range")},
			want: Ending{Phase: cwacv1alpha1.PhaseFailed, Reason: cwacv1alpha1.ReasonMergeFailed, ExitCode: ptr.To[int32](2),
				Message: "merging the shards' results failed: panic: out of range; each shard's results are kept under ns/s/shards"},
		},
		{
			name: "the merge pod failed: the pod's message when the container says nothing",
			in: Observed{ScanDir: "ns/s", Sharded: true, MergePod: merge(corev1.PodFailed, "The node was low on resource: memory."),
				Terminated: terminated(137, "")},
			want: Ending{Phase: cwacv1alpha1.PhaseFailed, Reason: cwacv1alpha1.ReasonMergeFailed, ExitCode: ptr.To[int32](137),
				Message: "merging the shards' results failed: The node was low on resource: memory.; each shard's results are kept under ns/s/shards"},
		},
		{
			name: "the merge pod failed saying nothing: its phase",
			in:   Observed{ScanDir: "ns/s", Sharded: true, MergePod: merge(corev1.PodFailed, "")},
			want: Ending{Phase: cwacv1alpha1.PhaseFailed, Reason: cwacv1alpha1.ReasonMergeFailed,
				Message: "merging the shards' results failed: pod scan-merge Failed; each shard's results are kept under ns/s/shards"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := End(tt.in)
			// Whether a report was read, and the refusals it carries: TestEndBlocked.
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(Ending{}, "Reported", "Blocked")); diff != "" {
				t.Errorf("End (-want +got):\n%s", diff)
			}
			wantStatus := tt.statusMessage
			if wantStatus == "" {
				wantStatus = tt.want.Message
			}
			if s := got.StatusMessage(); s != wantStatus {
				t.Errorf("StatusMessage = %q, want %q", s, wantStatus)
			}
		})
	}
}
