package controller

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/jsonmergepatch"

	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// statusPatch writes an object's status once, at the end of a reconcile,
// and only when it changed. The reconcilers change status in memory as
// they go; one write keeps the API server's load to one request per
// reconcile that changed something, and none for one that did not.
//
// The write is a merge patch from the status as it was when the patch
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
	patch, err := statusMergePatch(p.original.GetResourceVersion(), p.status(p.original), p.status(obj))
	if err != nil {
		return err
	}
	if err := c.Status().Patch(ctx, obj, client.RawPatch(types.MergePatchType, patch)); err != nil {
		return fmt.Errorf("patching status: %w", err)
	}
	return nil
}

// statusMergePatch is the merge patch from one status to another, with
// the resourceVersion they were read at as the optimistic lock. It is
// made from the statuses alone: the spec, up to a megabyte of URLs and
// free-form overrides, is never encoded or compared for a status write.
func statusMergePatch(resourceVersion string, before, after any) ([]byte, error) {
	b, err := json.Marshal(before)
	if err != nil {
		return nil, fmt.Errorf("encoding status: %w", err)
	}
	a, err := json.Marshal(after)
	if err != nil {
		return nil, fmt.Errorf("encoding status: %w", err)
	}
	diff, err := jsonmergepatch.CreateThreeWayJSONMergePatch(b, a, b) // before is both the original and the current
	if err != nil {
		return nil, fmt.Errorf("status patch: %w", err)
	}
	return json.Marshal(map[string]any{
		"metadata": map[string]string{"resourceVersion": resourceVersion},
		"status":   json.RawMessage(diff),
	})
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
