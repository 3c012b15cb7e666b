package controller

import (
	"context"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanspec"
)

// cancelRequested: the scan carries cwacv1alpha1.AnnotationCancel: "true".
func cancelRequested(scan *cwacv1alpha1.CwacScan) bool {
	return scan.Annotations[cwacv1alpha1.AnnotationCancel] == "true"
}

// cancel stops an unfinished scan whose cancellation was asked for: its Job
// (if one was made) is deleted, so the scan pod gets the usual termination
// signal and the runner records what CWAC wrote so far, and the scan ends
// Failed=True/Cancelled. Nothing on the results volume is removed.
func (r *CwacScanReconciler) cancel(ctx context.Context, scan *cwacv1alpha1.CwacScan) error {
	msg := "cancelled before it started"
	// The Job's name is fixed by the scan, so a Job created moments ago,
	// before status recorded it, is found too.
	key := types.NamespacedName{Namespace: scan.Namespace, Name: scanspec.JobName(scan)}
	job := &batchv1.Job{}
	switch err := r.Get(ctx, key, job); {
	case err == nil && metav1.IsControlledBy(job, scan):
		if err := r.Delete(ctx, job, client.PropagationPolicy(metav1.DeletePropagationBackground),
			client.Preconditions{UID: &job.UID}); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("deleting Job %s to cancel the scan: %w", job.Name, err)
		}
		msg = fmt.Sprintf("cancelled: Job %s deleted; results written so far are kept under %s", job.Name, scanspec.ScanDir(scan))
	case err != nil && !apierrors.IsNotFound(err):
		return fmt.Errorf("getting Job %s: %w", key.Name, err)
	}
	if err := r.deleteMergePod(ctx, scan); err != nil {
		return err
	}
	r.queue.release(scan)
	r.fail(scan, cwacv1alpha1.ReasonCancelled, msg)
	return nil
}

// requestCancel sets the cancel annotation on a scan (a merge patch of
// metadata only: the spec stays immutable), for the scan controller to act on.
func requestCancel(ctx context.Context, c client.Client, scan *cwacv1alpha1.CwacScan) error {
	patch := client.MergeFrom(scan.DeepCopy())
	if scan.Annotations == nil {
		scan.Annotations = map[string]string{}
	}
	scan.Annotations[cwacv1alpha1.AnnotationCancel] = "true"
	return c.Patch(ctx, scan, patch)
}
