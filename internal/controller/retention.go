package controller

import (
	"context"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanjob"
	"github.com/a11y-dev/cwac-operator/internal/scanspec"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// FinalizerDeleteResults is the API's finalizer, named here for brevity.
const FinalizerDeleteResults = cwacv1alpha1.FinalizerDeleteResults

// DefaultCleanupTimeout bounds how long a deleted scan waits for its results
// to be removed before the finalizer is dropped anyway.
const DefaultCleanupTimeout = 5 * time.Minute

// ensureFinalizer adds FinalizerDeleteResults to a scan whose results are
// to be deleted with it, before anything can write them (the scan
// controller calls it once the scan is admitted). It patches metadata
// only, so the caller takes its status snapshot afterwards.
func (r *CwacScanReconciler) ensureFinalizer(ctx context.Context, scan *cwacv1alpha1.CwacScan) error {
	if scan.Spec.ResultsPolicy != cwacv1alpha1.ResultsDelete || controllerutil.ContainsFinalizer(scan, FinalizerDeleteResults) {
		return nil
	}
	before := scan.ResourceVersion
	patch := client.MergeFromWithOptions(scan.DeepCopy(), client.MergeFromWithOptimisticLock{})
	controllerutil.AddFinalizer(scan, FinalizerDeleteResults)
	if err := r.Patch(ctx, scan, patch); err != nil {
		return fmt.Errorf("adding finalizer %s: %w", FinalizerDeleteResults, err)
	}
	r.writes.wrote(scan, before)
	return nil
}

// deleteResults runs when a scan with FinalizerDeleteResults is deleted: it
// stops the scan's Job, waits for its pod to stop writing, runs the cleanup
// pod (scanjob.CleanupPod) and drops the finalizer when that pod ends — a
// ResultsDeleted Event, or ResultsCleanupFailed with why. A cleanup that
// cannot finish within CleanupTimeout of the deletion is given up
// (ResultsCleanupFailed): deletion is never blocked for ever.
func (r *CwacScanReconciler) deleteResults(ctx context.Context, scan *cwacv1alpha1.CwacScan) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(scan, FinalizerDeleteResults) {
		return ctrl.Result{}, nil
	}
	if scan.Status.StartTime == nil && scan.Status.JobName == "" {
		return ctrl.Result{}, r.dropFinalizer(ctx, scan) // never started: nothing was written
	}
	deadline := scan.DeletionTimestamp.Add(r.cleanupTimeout())
	if !r.clock().Before(deadline) {
		r.event(scan, corev1.EventTypeWarning, cwacv1alpha1.ReasonResultsCleanupFailed, fmt.Sprintf(
			"the results under %s were not removed within %s of the deletion; they remain on the volume", scanspec.ScanDir(scan), r.cleanupTimeout()))
		return ctrl.Result{}, r.dropFinalizer(ctx, scan)
	}
	wait := ctrl.Result{RequeueAfter: deadline.Sub(r.clock())} // the timer for the one event due
	writing, err := r.stopWriting(ctx, scan)
	if err != nil || writing {
		return wait, err
	}
	if r.Bucket != nil {
		if err := r.deleteBucketResults(ctx, scan); err != nil {
			return wait, err
		}
		return ctrl.Result{}, r.dropFinalizer(ctx, scan)
	}
	pod := &corev1.Pod{}
	err = r.Get(ctx, types.NamespacedName{Namespace: scan.Namespace, Name: scanspec.CleanupPodName(scan)}, pod)
	switch {
	case apierrors.IsNotFound(err):
		pod = scanjob.CleanupPod(scan, r.JobOptions)
		if err := controllerutil.SetControllerReference(scan, pod, r.Scheme); err != nil {
			return wait, fmt.Errorf("owning the cleanup pod: %w", err)
		}
		if err := r.Create(ctx, pod); err != nil && !apierrors.IsAlreadyExists(err) {
			return wait, fmt.Errorf("creating the cleanup pod: %w", err)
		}
		return wait, nil // its status changes wake this scan
	case err != nil:
		return wait, fmt.Errorf("getting the cleanup pod: %w", err)
	}
	switch pod.Status.Phase {
	case corev1.PodSucceeded:
		r.event(scan, corev1.EventTypeNormal, cwacv1alpha1.ReasonResultsDeleted, fmt.Sprintf("removed the scan's results under %s", scanspec.ScanDir(scan)))
	case corev1.PodFailed:
		why := pod.Status.Message
		if c := containerStatus(pod, pod.Spec.Containers[0].Name); c != nil && c.State.Terminated != nil {
			why = c.State.Terminated.Message
		}
		r.event(scan, corev1.EventTypeWarning, cwacv1alpha1.ReasonResultsCleanupFailed, fmt.Sprintf(
			"the cleanup pod failed; results under %s may remain: %s", scanspec.ScanDir(scan), textcap.Head(why, 512)))
	default:
		return wait, nil
	}
	return ctrl.Result{}, r.dropFinalizer(ctx, scan)
}

// stopWriting deletes the scan's Job if it still runs and reports whether
// a scan pod may still be writing results: one that has not ended, Job or
// no Job (a deleted Job's pod runs on through its grace period).
func (r *CwacScanReconciler) stopWriting(ctx context.Context, scan *cwacv1alpha1.CwacScan) (bool, error) {
	job := &batchv1.Job{}
	err := r.Get(ctx, types.NamespacedName{Namespace: scan.Namespace, Name: scanspec.JobName(scan)}, job)
	switch {
	case err == nil && metav1.IsControlledBy(job, scan) && job.DeletionTimestamp.IsZero():
		if _, finished := jobFinished(job); !finished {
			if err := r.Delete(ctx, job, client.PropagationPolicy(metav1.DeletePropagationBackground)); client.IgnoreNotFound(err) != nil {
				return false, fmt.Errorf("deleting Job %s: %w", job.Name, err)
			}
		}
	case err != nil && !apierrors.IsNotFound(err):
		return false, fmt.Errorf("getting Job %s: %w", job.Name, err)
	}
	if err := r.deleteMergePod(ctx, scan); err != nil {
		return false, err
	}
	pods := &corev1.PodList{}
	if err := r.List(ctx, pods, client.InNamespace(scan.Namespace), client.MatchingLabels{scanjob.LabelScanUID: string(scan.UID)}); err != nil {
		return false, fmt.Errorf("listing the scan's pods: %w", err)
	}
	for _, p := range pods.Items {
		writer := p.Labels[scanjob.LabelComponent] == scanjob.ComponentScan || p.Labels[scanjob.LabelComponent] == scanjob.ComponentMerge
		if writer && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
			return true, nil
		}
	}
	return false, nil
}

func (r *CwacScanReconciler) dropFinalizer(ctx context.Context, scan *cwacv1alpha1.CwacScan) error {
	before := scan.ResourceVersion
	patch := client.MergeFromWithOptions(scan.DeepCopy(), client.MergeFromWithOptimisticLock{})
	controllerutil.RemoveFinalizer(scan, FinalizerDeleteResults)
	if err := r.Patch(ctx, scan, patch); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("removing finalizer %s: %w", FinalizerDeleteResults, err)
	}
	r.writes.wrote(scan, before)
	return nil
}

func (r *CwacScanReconciler) cleanupTimeout() time.Duration {
	if r.CleanupTimeout > 0 {
		return r.CleanupTimeout
	}
	return DefaultCleanupTimeout
}

// removeFinishedJob deletes a finished scan's Job (and with it its pods)
// and a sharded scan's merge pod once FinishedJobTTL has passed since the
// scan finished; the scan and its status stay. It returns how long until that is due (0: nothing to do).
func (r *CwacScanReconciler) removeFinishedJob(ctx context.Context, scan *cwacv1alpha1.CwacScan) (time.Duration, error) {
	if r.FinishedJobTTL <= 0 || scan.Status.JobName == "" || scan.Status.CompletionTime == nil {
		return 0, nil
	}
	if left := scan.Status.CompletionTime.Add(r.FinishedJobTTL).Sub(r.clock()); left > 0 {
		if !r.hasFinishedJob(ctx, scan) {
			// Nothing to remove: no timer. A timer is an entry in the
			// work queue, kept for every finished scan it was set for;
			// set for scans whose Jobs are long gone, they grew with
			// history. A Job that appears later (the cache catching up)
			// brings the scan back through its own event.
			return 0, nil
		}
		return left, nil
	}
	if err := r.deleteMergePod(ctx, scan); err != nil {
		return 0, err
	}
	job := &batchv1.Job{}
	err := r.Get(ctx, types.NamespacedName{Namespace: scan.Namespace, Name: scan.Status.JobName}, job)
	if apierrors.IsNotFound(err) || (err == nil && !metav1.IsControlledBy(job, scan)) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("getting Job %s: %w", scan.Status.JobName, err)
	}
	err = r.Delete(ctx, job, client.PropagationPolicy(metav1.DeletePropagationBackground), client.Preconditions{UID: &job.UID})
	if client.IgnoreNotFound(err) != nil {
		return 0, fmt.Errorf("deleting finished Job %s: %w", job.Name, err)
	}
	return 0, nil
}

// hasFinishedJob: the cache holds the scan's Job, or a sharded scan's
// merge pod, made by this scan: something removeFinishedJob will remove.
func (r *CwacScanReconciler) hasFinishedJob(ctx context.Context, scan *cwacv1alpha1.CwacScan) bool {
	job := &batchv1.Job{}
	if err := r.Get(ctx, types.NamespacedName{Namespace: scan.Namespace, Name: scan.Status.JobName}, job); err == nil && metav1.IsControlledBy(job, scan) {
		return true
	} else if err != nil && !apierrors.IsNotFound(err) {
		return true // not known: keep the timer
	}
	if !sharded(scan) {
		return false
	}
	pod := &corev1.Pod{}
	err := r.Get(ctx, types.NamespacedName{Namespace: scan.Namespace, Name: scanspec.MergePodName(scan)}, pod)
	return (err == nil && metav1.IsControlledBy(pod, scan)) || (err != nil && !apierrors.IsNotFound(err))
}

// deleteMergePod deletes a sharded scan's merge pod, if it has one: when
// the scan is cancelled or deleted (it may still be writing), or its Job
// is removed after FinishedJobTTL.
func (r *CwacScanReconciler) deleteMergePod(ctx context.Context, scan *cwacv1alpha1.CwacScan) error {
	if !sharded(scan) {
		return nil
	}
	pod := &corev1.Pod{}
	err := r.Get(ctx, types.NamespacedName{Namespace: scan.Namespace, Name: scanspec.MergePodName(scan)}, pod)
	if apierrors.IsNotFound(err) || (err == nil && (!metav1.IsControlledBy(pod, scan) || !pod.DeletionTimestamp.IsZero())) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("getting merge pod %s: %w", scanspec.MergePodName(scan), err)
	}
	if err := r.Delete(ctx, pod, client.Preconditions{UID: &pod.UID}); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("deleting merge pod %s: %w", pod.Name, err)
	}
	return nil
}

// idleWhenListed: a finished scan the informer lists (its first list at
// start, or a create) that has no TTL and is not being deleted needs
// nothing of the scan controller, so it is not queued: with years of
// finished scans kept, a start would otherwise reconcile every one of them
// and leave the work queue's maps sized for them all. Its Job or a sharded
// scan's merge pod, if one is left to remove, brings it back through its
// own event (Owns and the pod watch list them at start too); its later
// updates (deletion, a TTL cannot be added to a finished scan's immutable
// spec) come as updates, which always pass.
func idleWhenListed(o client.Object) bool {
	switch s := o.(type) {
	case *finishedScan: // finished by construction; read without making its CwacScan
		return s != nil && s.has&(hasTTL|hasDeleted) == 0
	case *cwacv1alpha1.CwacScan:
		return s != nil && s.Status.Phase.Finished() && s.Spec.TTLSecondsAfterFinished == nil && s.DeletionTimestamp == nil
	default:
		return false
	}
}
