package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/objectstore"
	"github.com/a11y-dev/cwac-operator/internal/scanjob"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
	"github.com/a11y-dev/cwac-operator/internal/scanspec"
)

// ResultsBucket is the bucket the scans' results are kept in
// (docs/results-bucket.md); *objectstore.Store is one.
type ResultsBucket interface {
	// Check says whether the bucket can be reached and opened.
	Check(ctx context.Context) error
	// Grant signs a scan pod's grant to the scan directory rel, with its
	// baseline's results directory ("" for none).
	Grant(ctx context.Context, rel, baseline string, expiry time.Duration) (*objectstore.Grant, error)
	// Delete removes a scan directory's keys and says how many.
	Delete(ctx context.Context, rel string) (int, error)
}

// grantMargin is how long a grant outlives the scan's timeout: the pod
// may wait for its node and image before the deadline counts.
const grantMargin = time.Hour

// grantExpiry is how long a scan's grant lasts: its timeout and the
// margin, within what a signature may last.
func grantExpiry(scan *cwacv1alpha1.CwacScan) time.Duration {
	return min(scanspec.Timeout(scan)+grantMargin, objectstore.MaxGrantExpiry)
}

// createGrant checks the bucket, signs the scan's grant to it and gives it
// to its pods as a Secret the scan owns (scanjob.GrantSecret), with its
// baseline's files when the scan pod compares (an unsharded scan with a
// usable baseline; a sharded scan's merge pod fetches with credentials).
// A bucket that cannot be used makes the scan wait, not fail:
// Started=False/ResultsNotStored and a Warning Event naming the cause,
// tried again with backoff. A Secret of that name of another owner ends the
// scan Failed=True/ConfigMapConflict, as the ConfigMap's does; it returns
// false then.
func (r *CwacScanReconciler) createGrant(ctx context.Context, scan *cwacv1alpha1.CwacScan, baseline scanjob.Baseline) (bool, error) {
	base := ""
	if scan.Spec.ShardCount() <= 1 {
		base = baseline.ResultsPath
	}
	err := r.Bucket.Check(ctx)
	var g *objectstore.Grant
	if err == nil {
		g, err = r.Bucket.Grant(ctx, scanspec.ScanDir(scan), base, grantExpiry(scan))
	}
	if err != nil {
		msg := fmt.Sprintf("waiting for the results bucket, tried again: %v", err)
		r.setCondition(scan, cwacv1alpha1.ConditionStarted, metav1.ConditionFalse, cwacv1alpha1.ReasonResultsNotStored, msg)
		r.event(scan, corev1.EventTypeWarning, cwacv1alpha1.ReasonResultsNotStored, msg)
		return false, fmt.Errorf("the results grant: %w", err)
	}
	data, err := json.Marshal(g)
	if err != nil {
		return false, err
	}
	if len(data) > scanpod.MaxGrantBytes {
		return false, fmt.Errorf("the results grant is %d bytes, over %d", len(data), scanpod.MaxGrantBytes)
	}
	secret := scanjob.GrantSecret(scan, data)
	if err := controllerutil.SetControllerReference(scan, secret, r.Scheme); err != nil {
		return false, fmt.Errorf("owning the grant Secret: %w", err)
	}
	err = r.Create(ctx, secret)
	if !apierrors.IsAlreadyExists(err) {
		if err != nil {
			return false, fmt.Errorf("creating the grant Secret: %w", err)
		}
		return true, nil
	}
	// Made before a restart: this scan's is signed again, another's is left.
	existing := &corev1.Secret{}
	if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(secret), existing); err != nil {
		return false, fmt.Errorf("getting Secret %s: %w", secret.Name, err)
	}
	if !metav1.IsControlledBy(existing, scan) {
		r.fail(scan, cwacv1alpha1.ReasonConfigMapConflict, fmt.Sprintf("Secret %s exists and does not belong to this scan", secret.Name))
		return false, nil
	}
	existing.Data = secret.Data
	if err := r.Update(ctx, existing); err != nil {
		return false, fmt.Errorf("updating the grant Secret: %w", err)
	}
	return true, nil
}

// deleteBucketResults removes the scan's keys from the bucket (the
// cleanup pod's work on the claim): a ResultsDeleted Event, or an error
// tried again until deleteResults gives up.
func (r *CwacScanReconciler) deleteBucketResults(ctx context.Context, scan *cwacv1alpha1.CwacScan) error {
	n, err := r.Bucket.Delete(ctx, scanspec.ScanDir(scan))
	if err != nil {
		r.event(scan, corev1.EventTypeWarning, cwacv1alpha1.ReasonResultsCleanupFailed,
			fmt.Sprintf("removing the scan's results from the results bucket, tried again: %v", err))
		return fmt.Errorf("deleting the scan's results from the bucket: %w", err)
	}
	r.event(scan, corev1.EventTypeNormal, cwacv1alpha1.ReasonResultsDeleted,
		fmt.Sprintf("removed the scan's %d files under %s from the results bucket", n, scanspec.ScanDir(scan)))
	return nil
}
