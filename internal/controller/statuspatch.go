package controller

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// statusPatch writes an object's status once, at the end of a reconcile,
// and only when it changed. The reconcilers change status in memory as
// they go; one write keeps the API server's load to one request per
// reconcile that changed something, and none for one that did not.
//
// The write is a merge patch from the object as it was when the patch
// began, with an optimistic lock: another controller writes the same
// status (the admission and scan controllers share a scan's), so a status
// computed from a stale copy is refused, and the conflict retries the
// reconcile with the fresh object rather than overwriting it.
type statusPatch[O client.Object] struct {
	original O
	status   func(O) any
}

// beginStatusPatch remembers obj as it is now; status picks its status out.
func beginStatusPatch[O client.Object](obj O, status func(O) any) statusPatch[O] {
	return statusPatch[O]{original: obj.DeepCopyObject().(O), status: status}
}

// write patches obj's status when it differs from the remembered one.
func (p statusPatch[O]) write(ctx context.Context, c client.Client, obj O) error {
	if equality.Semantic.DeepEqual(p.status(p.original), p.status(obj)) {
		return nil
	}
	if err := c.Status().Patch(ctx, obj, client.MergeFromWithOptions(p.original, client.MergeFromWithOptimisticLock{})); err != nil {
		return fmt.Errorf("patching status: %w", err)
	}
	return nil
}

// writeOnReturn is write for a deferred call: a failed patch is joined to
// the reconcile's own error, *err.
func (p statusPatch[O]) writeOnReturn(ctx context.Context, c client.Client, obj O, err *error) {
	if perr := p.write(ctx, c, obj); perr != nil {
		*err = errors.Join(*err, perr)
	}
}

func scanStatus(s *cwacv1alpha1.CwacScan) any { return s.Status }

func scheduleStatus(s *cwacv1alpha1.CwacScanSchedule) any { return s.Status }
