package controller

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
	"github.com/a11y-dev/cwac-operator/internal/scanspec"
	"github.com/a11y-dev/cwac-operator/internal/scanstatus"
)

// The scan's ending is decided by scanstatus.End from what the Job, the pod
// and the scan's status show (observedEnd, observedMerge), and written here
// (writeEnding): the controller decides nothing about how a scan ended.

// observedEnd is what scanstatus.End takes of a scan whose Job ended, pod
// being the pod that reports (the scan pod, or a sharded scan's first
// failed shard's; nil when none is left).
func observedEnd(scan *cwacv1alpha1.CwacScan, job *batchv1.Job, cond batchv1.JobCondition, pod *corev1.Pod) scanstatus.Observed {
	o := scanstatus.Observed{
		JobName:     job.Name,
		Job:         cond,
		Terminated:  lastTermination(pod, scanpod.ContainerName),
		Degraded:    degradedCondition(scan),
		Timeout:     scanspec.Timeout(scan),
		MemoryLimit: memoryLimit(pod),
		ScanDir:     scanspec.ScanDir(scan),
		Sharded:     sharded(scan),
	}
	if pod != nil {
		o.FailedShard = pod.Annotations[batchv1.JobCompletionIndexAnnotation]
	}
	return o
}

// observedMerge is what scanstatus.End takes of a sharded scan whose merge
// pod ended.
func observedMerge(scan *cwacv1alpha1.CwacScan, pod *corev1.Pod) scanstatus.Observed {
	return scanstatus.Observed{
		Terminated: lastTermination(pod, scanpod.MergeContainerName),
		ScanDir:    scanspec.ScanDir(scan),
		Sharded:    true,
		MergePod:   &scanstatus.MergePod{Name: pod.Name, Phase: pod.Status.Phase, Message: pod.Status.Message},
	}
}

// writeEnding records how the scan ended: the container's exit code, the
// results directory, the summary (and, for a merge, status.shards.merged),
// then Complete or Failed with their conditions, Events and
// status.failure, then the comparison with the baseline, which reads the
// summary and the phase, and last what the pod's egress proxy refused.
func (r *CwacScanReconciler) writeEnding(scan *cwacv1alpha1.CwacScan, e scanstatus.Ending) {
	if e.ExitCode != nil {
		scan.Status.ExitCode = e.ExitCode
	}
	scan.Status.ResultsPath = scanspec.ScanDir(scan)
	if e.ResultsDir != "" {
		scan.Status.ResultsPath += "/" + e.ResultsDir
	}
	scan.Status.Summary = e.Summary
	if e.Merged && scan.Status.Shards != nil {
		scan.Status.Shards.Merged = true
	}
	if e.Phase == cwacv1alpha1.PhaseComplete {
		r.complete(scan, e.Message)
	} else {
		r.fail(scan, e.Reason, e.Message)
		scan.Status.Failure.Cause, scan.Status.Failure.LogTail = e.Cause, e.LogTail
	}
	scan.Status.Message = e.StatusMessage()
	r.observeComparison(scan, e.Baseline)
	r.observeBlocked(scan, e)
}

// lastTermination is the container's last termination: its current state
// when it has ended, else the one before a restart; nil when it never
// ended (or the pod is gone).
func lastTermination(pod *corev1.Pod, container string) *corev1.ContainerStateTerminated {
	c := containerStatus(pod, container)
	if c == nil {
		return nil
	}
	if c.State.Terminated != nil {
		return c.State.Terminated
	}
	return c.LastTerminationState.Terminated
}

// degradedCondition is the scan's Degraded condition while it is True.
func degradedCondition(scan *cwacv1alpha1.CwacScan) *metav1.Condition {
	c := meta.FindStatusCondition(scan.Status.Conditions, cwacv1alpha1.ConditionDegraded)
	if c == nil || c.Status != metav1.ConditionTrue {
		return nil
	}
	return c
}
