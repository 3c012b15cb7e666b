package scanstatus

import (
	"fmt"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/cwac"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// Limits on what an ending takes from CWAC's error output into
// status.failure: the cause is one line of it, the log tail its end.
const (
	maxCauseBytes   = 1024
	maxLogTailBytes = 2048
	// maxMergeWhyBytes bounds the merge pod's own words in a MergeFailed message.
	maxMergeWhyBytes = 1024
)

// Observed is what the operator saw of a scan whose work has ended: its
// Job's final condition and the last termination of the container that
// reports (the scan container, or the merge container of a sharded scan).
type Observed struct {
	// JobName is the scan's Job; Job is its final condition (type Complete
	// or Failed).
	JobName string
	Job     batchv1.JobCondition
	// Terminated is the container's last termination, whose message is the
	// runner's report; nil when the pod is gone or the container never
	// ended.
	Terminated *corev1.ContainerStateTerminated
	// Degraded is the scan's Degraded condition while it is True (its pod
	// could not start, and why); nil otherwise.
	Degraded *metav1.Condition
	// Timeout is the scan's deadline, which the message of a scan stopped
	// at it names.
	Timeout time.Duration
	// MemoryLimit is the scan container's memory limit, which the message
	// of a scan out of memory names.
	MemoryLimit string
	// ScanDir is the scan's own directory on the results volume, where a
	// failed merge leaves the shards' results.
	ScanDir string
	// Sharded is set for a scan run as shards. Its failed Job ends it from
	// the first failed shard's pod, whose index is FailedShard ("" when no
	// shard pod is left); its results are the merge pod's, MergePod, once
	// that pod has ended.
	Sharded     bool
	FailedShard string
	MergePod    *MergePod
}

// MergePod is the merge pod of a sharded scan, once it has ended.
type MergePod struct {
	Name    string
	Phase   corev1.PodPhase
	Message string
}

// Ending is how a scan ended: everything its status records once its Job
// (or its merge pod) has ended. The controller writes it as it is.
type Ending struct {
	// Phase is PhaseComplete or PhaseFailed; Reason is the Complete
	// (Succeeded) or Failed condition's reason, and Message its message and
	// the Event's.
	Phase   cwacv1alpha1.Phase
	Reason  string
	Message string
	// Shard is the index of the shard whose failure ended a sharded scan;
	// status.message names it first (StatusMessage).
	Shard string
	// ExitCode is the container's exit code, when it ended (status.exitCode).
	ExitCode *int32
	// ResultsDir is CWAC's results directory inside the scan's directory
	// ("": the scan has none, and status.resultsPath is the scan's
	// directory). The report comes from a pod, which is not trusted with
	// where readers look: only a CWAC results directory name is taken.
	ResultsDir string
	// Summary is the results' summary for status (nil: none).
	Summary *cwacv1alpha1.ScanSummary
	// Cause and LogTail are status.failure's, for a CWAC that exited
	// non-zero: the cause picked from its error output, and the output's
	// end.
	Cause, LogTail string
	// Merged is set when the merge pod merged the shards' results
	// (status.shards.merged).
	Merged bool
	// Baseline is the runner's word on why the results were not compared
	// with the baseline (nil: it said nothing).
	Baseline *scanpod.BaselineProblem
	// Reported is set when the runner's report was read; Blocked is what
	// the pod's egress proxy refused, as the report says (nil: nothing),
	// kept to scanpod.MaxReportedBlockedHosts hosts whatever the pod wrote.
	Reported bool
	Blocked  *results.BlockedConnections
}

// StatusMessage is status.message: the Message, naming first the shard
// whose failure ended the scan.
func (e Ending) StatusMessage() string {
	if e.Shard == "" {
		return e.Message
	}
	prefix := "shard " + e.Shard + ": "
	return prefix + strings.TrimPrefix(e.Message, prefix)
}

// End decides how a scan ended from what was observed. A Job that
// completed ends it Complete/Succeeded (Failed/NoPagesScanned when CWAC
// scanned no page); a Job that failed ends it Failed with DeadlineExceeded,
// OOMKilled, RunnerError, CWACExitedNonZero, the reason its pod could not
// start, or JobFailed. A sharded scan's failed Job ends it with the first
// failed shard's reason and no results; its merge pod ends it as a one-pod
// scan's Job would, or Failed/MergeFailed.
func End(o Observed) Ending {
	var e Ending
	var report scanpod.Report
	var haveReport bool
	if t := o.Terminated; t != nil {
		code := t.ExitCode
		e.ExitCode = &code
		report, haveReport = scanpod.Decode(t.Message)
	}
	if haveReport {
		if _, _, ok := cwac.ParseResultsDirName(report.ResultsDir); ok {
			e.ResultsDir = report.ResultsDir
		}
		e.Summary = ToAPI(report.Summary)
		e.Baseline = report.Baseline
		e.Reported = true
		e.Blocked = report.BlockedByPolicy.Bounded(scanpod.MaxReportedBlockedHosts)
	}
	switch {
	case o.MergePod != nil:
		endMerge(&e, o, report, haveReport)
	case o.Job.Type == batchv1.JobComplete:
		endComplete(&e, report, haveReport)
	default:
		endFailed(&e, o, report, haveReport)
		if o.Sharded {
			// A shard's report speaks for its shard only: the scan has no
			// merged results, and its directory is the scan's own.
			e.ResultsDir, e.Summary = "", nil
			if o.Job.Reason != batchv1.JobReasonDeadlineExceeded {
				e.Shard = o.FailedShard
			}
		}
	}
	return e
}

// endComplete ends a scan whose Job completed, from the runner's report.
func endComplete(e *Ending, report scanpod.Report, haveReport bool) {
	switch {
	case !haveReport:
		e.complete("CWAC finished, but its report could not be read (the scan pod is gone or wrote none)")
	case report.Outcome == scanpod.OutcomeNoPages:
		e.fail(cwacv1alpha1.ReasonNoPagesScanned, report.Message)
	default:
		e.complete(report.Message)
	}
}

// endFailed ends a scan whose Job failed: the deadline first, then what
// the container's termination says, then why the pod never started.
func endFailed(e *Ending, o Observed, report scanpod.Report, haveReport bool) {
	t := o.Terminated
	switch {
	case o.Job.Reason == batchv1.JobReasonDeadlineExceeded:
		msg := fmt.Sprintf("the scan ran past its %s timeout and was stopped", o.Timeout)
		if o.Degraded != nil {
			msg += "; its pod never started: " + o.Degraded.Message
		}
		e.fail(cwacv1alpha1.ReasonDeadlineExceeded, msg)
	case t != nil && t.Reason == cwacv1alpha1.ReasonOOMKilled:
		e.fail(cwacv1alpha1.ReasonOOMKilled,
			fmt.Sprintf("CWAC ran out of memory (limit %s): raise spec.resources.limits.memory or lower spec.threadCount", o.MemoryLimit))
	case haveReport && report.Outcome == scanpod.OutcomeRunnerError:
		e.fail(cwacv1alpha1.ReasonRunnerError, report.Message)
	case haveReport && report.Outcome == scanpod.OutcomeResultsNotStored:
		e.ResultsDir, e.Summary = "", nil
		e.fail(cwacv1alpha1.ReasonResultsNotStored, report.Message)
	case haveReport:
		e.failCWAC(report.ExitCode, report.StderrTail)
	case t != nil: // no report: the kubelet put the log's tail in its place
		e.failCWAC(int(t.ExitCode), t.Message)
	case o.Degraded != nil:
		e.fail(o.Degraded.Reason, "the scan pod never started: "+o.Degraded.Message)
	default:
		e.fail(cwacv1alpha1.ReasonJobFailed, fmt.Sprintf("Job %s failed: %s: %s", o.JobName, o.Job.Reason, o.Job.Message))
	}
}

// endMerge ends a sharded scan from its merge pod's report, as a one-pod
// scan's completed Job ends it, or Failed/MergeFailed with the merge pod's
// words (its report's, the kubelet's, or its phase) and no results.
func endMerge(e *Ending, o Observed, report scanpod.Report, haveReport bool) {
	pod := o.MergePod
	if haveReport && report.Outcome == scanpod.OutcomeResultsNotStored {
		e.ResultsDir, e.Summary = "", nil
		e.fail(cwacv1alpha1.ReasonResultsNotStored, report.Message)
		return
	}
	if pod.Phase == corev1.PodSucceeded && haveReport && report.Outcome != scanpod.OutcomeRunnerError {
		e.Merged = true
		if report.Outcome == scanpod.OutcomeNoPages {
			e.fail(cwacv1alpha1.ReasonNoPagesScanned, report.Message)
			return
		}
		e.complete(report.Message)
		return
	}
	why := pod.Message
	switch {
	case haveReport && report.Message != "":
		why = report.Message
	case o.Terminated != nil && o.Terminated.Message != "":
		why = o.Terminated.Message
	case why == "":
		why = "pod " + pod.Name + " " + string(pod.Phase)
	}
	e.ResultsDir, e.Summary = "", nil
	e.fail(cwacv1alpha1.ReasonMergeFailed, "merging the shards' results failed: "+textcap.Head(why, maxMergeWhyBytes)+
		"; each shard's results are kept under "+o.ScanDir+"/"+scanpod.ShardsDir)
}

func (e *Ending) complete(msg string) {
	e.Phase, e.Reason, e.Message = cwacv1alpha1.PhaseComplete, cwacv1alpha1.ReasonSucceeded, msg
}

func (e *Ending) fail(reason, msg string) {
	e.Phase, e.Reason, e.Message = cwacv1alpha1.PhaseFailed, reason, msg
}

// failCWAC ends a scan whose CWAC exited non-zero
// (Failed/CWACExitedNonZero): the message names the cause picked from
// CWAC's error output, and status.failure keeps the output's tail.
func (e *Ending) failCWAC(exitCode int, stderrTail string) {
	cause := cwac.FailureCause(stderrTail)
	msg := fmt.Sprintf("CWAC exited with code %d", exitCode)
	if cause != "" {
		msg += ": " + cause
	}
	e.fail(cwacv1alpha1.ReasonCWACExitedNonZero, msg)
	e.Cause = textcap.Head(cause, maxCauseBytes)
	e.LogTail = textcap.Tail(strings.TrimSpace(stderrTail), maxLogTailBytes)
}
