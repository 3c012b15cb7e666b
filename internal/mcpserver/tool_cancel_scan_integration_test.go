//go:build integration

package mcpserver

import (
	"context"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

func TestCancelScan(t *testing.T) {
	h := newHarness(t)
	id := h.mustCall("cwac_scan", map[string]any{"urls": []any{"https://a.example/"}, "audit_name": "cancel"})["scan_id"].(string)

	out := h.mustCall("cwac_cancel_scan", map[string]any{"scan_id": id})
	if !strings.Contains(out["message"].(string), "cancellation asked for") {
		t.Errorf("answer %v", out)
	}
	scan := &cwacv1alpha1.CwacScan{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: h.ns, Name: id}, scan); err != nil {
		t.Fatal(err)
	}
	if scan.Annotations[cwacv1alpha1.AnnotationCancel] != "true" || scan.Annotations[AnnotationCancelledBy] == "" {
		t.Errorf("annotations %v", scan.Annotations)
	}
	if out := h.mustCall("cwac_cancel_scan", map[string]any{"scan_id": id}); !strings.Contains(out["message"].(string), "already") {
		t.Errorf("second cancel: %v", out)
	}

	done := h.mustCall("cwac_scan", map[string]any{"urls": []any{"https://a.example/"}, "audit_name": "done"})["scan_id"].(string)
	h.completeScan(done)
	tests := []struct{ name, id, want string }{
		{"finished", done, "already finished (complete): there is nothing to cancel"},
		{"unknown", "no-such-scan", "No scan found with ID: no-such-scan"},
		{"not a name", "../x", "No scan found with ID"},
		{"missing", "", "scan_id is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, errText := h.call("cwac_cancel_scan", map[string]any{"scan_id": tt.id}); !strings.Contains(errText, tt.want) {
				t.Errorf("error %q, want %q", errText, tt.want)
			}
		})
	}
	s := &cwacv1alpha1.CwacScan{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: h.ns, Name: done}, s); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Annotations[cwacv1alpha1.AnnotationCancel]; ok {
		t.Error("a finished scan was annotated")
	}
}

// Every tool names the verb a caller needs on cwacscans: a tool without one
// would be reviewed with an empty verb.
func TestEveryToolHasAVerb(t *testing.T) {
	h := newHarness(t)
	for _, name := range h.srv.ToolNames() {
		if toolVerbs[name] == "" {
			t.Errorf("tool %s has no entry in toolVerbs", name)
		}
	}
	if toolVerbs["cwac_cancel_scan"] != "patch" {
		t.Errorf("cwac_cancel_scan needs %q, want patch", toolVerbs["cwac_cancel_scan"])
	}
}
