package mcpserver

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// AnnotationCancelledBy records which MCP caller asked for a cancellation.
const AnnotationCancelledBy = "cwac.a11y.dev/cancelled-by"

const cancelScanDescription = "Cancel a queued or running scan: it never starts, or its Job is deleted; it ends failed " +
	"with reason Cancelled, and results it wrote so far are kept. A finished scan cannot be cancelled."

// CancelInput are cwac_cancel_scan's arguments.
type CancelInput struct {
	ScanID string `json:"scan_id" jsonschema:"the scan's ID, from cwac_scan or cwac_list_scans"`
}

// CancelOutput is cwac_cancel_scan's answer.
type CancelOutput struct {
	ScanID  string `json:"scan_id"`
	Status  string `json:"status" jsonschema:"the scan's status when the cancellation was asked for; cwac_scan_status shows it end"`
	Message string `json:"message"`
}

func init() { defineTool("cwac_cancel_scan", cancelScanDescription, false, (*Server).cancelScan) }

// cancelScan sets the scan's cancel annotation (a metadata patch: the spec
// stays immutable); the operator stops the scan. It refuses a finished scan
// rather than pretending to cancel it.
func (s *Server) cancelScan(ctx context.Context, call *callInfo, in CancelInput) (CancelOutput, error) {
	scan, err := s.access.scan(ctx, call, in.ScanID)
	if err != nil {
		return CancelOutput{}, err
	}
	out := CancelOutput{ScanID: scan.Name, Status: phaseStatus(scan.Status.Phase)}
	if scan.Status.Phase.Finished() {
		return CancelOutput{}, fmt.Errorf("scan %s already finished (%s): there is nothing to cancel", scan.Name, out.Status)
	}
	if scan.Annotations[cwacv1alpha1.AnnotationCancel] == "true" {
		out.Message = "cancellation was already asked for; the operator is stopping the scan"
		return out, nil
	}
	patch := client.MergeFromWithOptions(scan.DeepCopy(), client.MergeFromWithOptimisticLock{})
	if scan.Annotations == nil {
		scan.Annotations = map[string]string{}
	}
	scan.Annotations[cwacv1alpha1.AnnotationCancel] = "true"
	scan.Annotations[AnnotationCancelledBy] = truncate(call.Caller, 256)
	if err := s.access.client.Patch(ctx, scan, patch); err != nil {
		return CancelOutput{}, fmt.Errorf("cancelling scan %s: %w", scan.Name, err)
	}
	out.Message = "cancellation asked for: the scan ends failed with reason Cancelled; poll cwac_scan_status"
	return out, nil
}
