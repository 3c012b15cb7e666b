package controller

import (
	"context"
	"fmt"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanjob"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
	"github.com/a11y-dev/cwac-operator/internal/scanspec"
	"github.com/a11y-dev/cwac-operator/internal/scanstatus"
	"github.com/a11y-dev/cwac-operator/internal/shard"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// sharded: the scan runs as more than one shard (spec.shards > 1).
func sharded(scan *cwacv1alpha1.CwacScan) bool { return scan.Spec.ShardCount() > 1 }

// observeShards follows a sharded scan's Indexed Job: status.shards from
// the Job's counts; Running and Degraded from a shard pod as for a one-pod
// scan. When the Job ends it merges the shards' results (mergeShards), or,
// when a failed shard fails the scan, ends it Failed with that shard's
// reason (failShards).
func (r *CwacScanReconciler) observeShards(ctx context.Context, scan *cwacv1alpha1.CwacScan, job *batchv1.Job) (ctrl.Result, error) {
	failed := countShards(scan, job)
	cond, finished := jobFinished(job)
	if !finished {
		pod, err := r.scanPod(ctx, job)
		if err != nil {
			return ctrl.Result{}, err
		}
		r.observePod(scan, pod, scanpod.ContainerName)
		return ctrl.Result{}, nil
	}
	partial := scan.Spec.ShardFailurePolicy == cwacv1alpha1.ShardFailurePolicyPartial &&
		cond.Reason == batchv1.JobReasonFailedIndexes && job.Status.Succeeded > 0
	if cond.Type == batchv1.JobFailed && !partial {
		return r.failShards(ctx, scan, job, cond, failed)
	}
	return ctrl.Result{}, r.mergeShards(ctx, scan, failed)
}

// countShards mirrors the Indexed Job's counts into status.shards and
// returns the failed shards' indexes.
func countShards(scan *cwacv1alpha1.CwacScan, job *batchv1.Job) scanpod.ShardList {
	failed, err := shard.ParseIndexes(ptr.Deref(job.Status.FailedIndexes, ""))
	if err != nil {
		failed = nil // written by the Job controller; a shape it never writes counts nothing
	}
	merged := scan.Status.Shards != nil && scan.Status.Shards.Merged
	scan.Status.Shards = &cwacv1alpha1.ShardStatus{
		Total:         ptr.Deref(job.Spec.Completions, 1),
		Running:       job.Status.Active,
		Succeeded:     job.Status.Succeeded,
		Failed:        int32(len(failed)),
		FailedIndexes: ptr.Deref(job.Status.FailedIndexes, ""),
		Merged:        merged,
	}
	return failed
}

// failShards ends a sharded scan whose Job failed and may not complete
// without its failed shards: Failed with the reason of the shard that
// failed first (status.message begins "shard <index>:"), or the Job's own
// reason (a deadline), and ShardsFailed=True naming the failed shards.
// While no shard pod has failed in the cache and one has not ended there,
// it waits for that pod as a one-pod scan does (podSettling).
func (r *CwacScanReconciler) failShards(ctx context.Context, scan *cwacv1alpha1.CwacScan, job *batchv1.Job,
	cond batchv1.JobCondition, failed scanpod.ShardList) (ctrl.Result, error) {
	pod, unended, err := r.firstFailedShard(ctx, job)
	if err != nil {
		return ctrl.Result{}, err
	}
	if pod == nil {
		if wait := podSettling(cond, unended, r.clock()); wait > 0 {
			return ctrl.Result{RequeueAfter: wait}, nil
		}
	}
	r.writeEnding(scan, scanstatus.End(observedEnd(scan, job, cond, pod)))
	r.markShardsFailed(scan, failed)
	return ctrl.Result{}, nil
}

// firstFailedShard is the pod of the shard that failed first (the others
// of a Fail policy were stopped because of it), or nil; and a pod of the
// Job that has not ended in the cache, or nil.
func (r *CwacScanReconciler) firstFailedShard(ctx context.Context, job *batchv1.Job) (first, unended *corev1.Pod, err error) {
	pods := &corev1.PodList{}
	if err := r.List(ctx, pods, client.InNamespace(job.Namespace), client.MatchingFields{indexPodJob: job.Name}); err != nil {
		return nil, nil, fmt.Errorf("listing pods of Job %s: %w", job.Name, err)
	}
	var firstEnd metav1.Time
	for i := range pods.Items {
		p := &pods.Items[i]
		if !metav1.IsControlledBy(p, job) {
			continue
		}
		if p.Status.Phase != corev1.PodFailed {
			if p.Status.Phase != corev1.PodSucceeded {
				unended = p
			}
			continue
		}
		end := p.CreationTimestamp
		if c := containerStatus(p, scanpod.ContainerName); c != nil && c.State.Terminated != nil {
			end = c.State.Terminated.FinishedAt
		}
		if first == nil || end.Before(&firstEnd) {
			first, firstEnd = p, end
		}
	}
	return first, unended, nil
}

// mergeShards runs the merge pod once every shard has ended and ends the
// scan from its report (finishMerge). While it runs the scan is Running
// with reason Merging (Degraded while the pod cannot start).
func (r *CwacScanReconciler) mergeShards(ctx context.Context, scan *cwacv1alpha1.CwacScan, failed scanpod.ShardList) error {
	key := types.NamespacedName{Namespace: scan.Namespace, Name: scanspec.MergePodName(scan)}
	pod := &corev1.Pod{}
	switch err := r.Get(ctx, key, pod); {
	case apierrors.IsNotFound(err):
		return r.startMerge(ctx, scan, failed)
	case err != nil:
		return fmt.Errorf("getting merge pod %s: %w", key.Name, err)
	case !metav1.IsControlledBy(pod, scan):
		r.fail(scan, cwacv1alpha1.ReasonMergeFailed, fmt.Sprintf("pod %s exists and does not belong to this scan", key.Name))
		return nil
	}
	switch pod.Status.Phase {
	case corev1.PodSucceeded, corev1.PodFailed:
		r.finishMerge(scan, pod, failed)
	default:
		r.observePod(scan, pod, scanpod.MergeContainerName)
	}
	return nil
}

// startMerge creates the merge pod (phase Running, reason Merging). It
// mounts the baseline's results, when the scan has a usable baseline, so
// the merged results are compared as a whole.
func (r *CwacScanReconciler) startMerge(ctx context.Context, scan *cwacv1alpha1.CwacScan, failed scanpod.ShardList) error {
	baseline, err := r.resolveBaseline(ctx, scan)
	if err != nil {
		return err
	}
	pod := scanjob.MergePod(scan, r.JobOptions, baseline, failed)
	if err := controllerutil.SetControllerReference(scan, pod, r.Scheme); err != nil {
		return fmt.Errorf("owning the merge pod: %w", err)
	}
	if err := r.Create(ctx, pod); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating merge pod %s: %w", pod.Name, err)
	}
	done := scan.Status.Shards.Succeeded
	r.setPhase(scan, cwacv1alpha1.PhaseRunning, cwacv1alpha1.ReasonMerging,
		fmt.Sprintf("merging the results of %d of %d shards in pod %s", done, scan.Status.Shards.Total, pod.Name))
	return nil
}

// finishMerge ends a sharded scan from the merge pod's report, as a
// one-pod scan's Job ends it: Complete=True/Succeeded (or
// Failed/NoPagesScanned when no shard scanned a page), with ShardsFailed
// set; Failed=True/MergeFailed when the merge pod failed.
func (r *CwacScanReconciler) finishMerge(scan *cwacv1alpha1.CwacScan, pod *corev1.Pod, failed scanpod.ShardList) {
	r.markShardsFailed(scan, failed)
	r.writeEnding(scan, scanstatus.End(observedMerge(scan, pod)))
}

// markShardsFailed sets ShardsFailed: False/AllShardsSucceeded, or True
// naming the failed shards and their sites (cut to fit a condition).
func (r *CwacScanReconciler) markShardsFailed(scan *cwacv1alpha1.CwacScan, failed scanpod.ShardList) {
	if len(failed) == 0 {
		r.setCondition(scan, cwacv1alpha1.ConditionShardsFailed, metav1.ConditionFalse, cwacv1alpha1.ReasonAllShardsSucceeded,
			fmt.Sprintf("all %d shards finished", scan.Status.Shards.Total))
		return
	}
	var parts []string
	shards := shardSites(scan)
	for _, i := range failed {
		var urls []string
		if i < len(shards) {
			urls = shards[i]
		}
		parts = append(parts, fmt.Sprintf("shard %d (%s)", i, strings.Join(urls, ", ")))
	}
	msg := fmt.Sprintf("%d of %d shards failed: %s", len(failed), scan.Status.Shards.Total, strings.Join(parts, "; "))
	msg = textcap.Head(msg, 2048)
	if c := meta.FindStatusCondition(scan.Status.Conditions, cwacv1alpha1.ConditionShardsFailed); c == nil || c.Message != msg {
		r.event(scan, corev1.EventTypeWarning, cwacv1alpha1.ReasonShardsFailed, msg)
	}
	r.setCondition(scan, cwacv1alpha1.ConditionShardsFailed, metav1.ConditionTrue, cwacv1alpha1.ReasonShardsFailed, msg)
}

// shardSites lists each shard's base URLs, split as the scan pods split them.
func shardSites(scan *cwacv1alpha1.CwacScan) [][]string {
	sites, err := scanspec.Sites(scan)
	if err != nil {
		return nil
	}
	split := shard.Split(sites, scan.Spec.ShardCount())
	out := make([][]string, len(split))
	for i, s := range split {
		for _, site := range s {
			out[i] = append(out[i], site.URL)
		}
	}
	return out
}
