//go:build integration

package mcpserver

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// cwac_list_scans says which schedule made a scan, its baseline, and its
// new and fixed issues once compared.
func TestListScansScheduleMembership(t *testing.T) {
	h := newHarness(t)
	spec := cwacv1alpha1.CwacScanSpec{URLs: []string{"https://a.example/"}, Baseline: "nightly-1"}
	scan := &cwacv1alpha1.CwacScan{
		ObjectMeta: metav1.ObjectMeta{Namespace: h.ns, Name: "nightly-2", Labels: map[string]string{cwacv1alpha1.LabelSchedule: "nightly"}},
		Spec:       spec,
	}
	if err := k8s.Create(context.Background(), scan); err != nil {
		t.Fatal(err)
	}
	now := metav1.Now()
	h.setStatus("nightly-2", cwacv1alpha1.CwacScanStatus{Phase: cwacv1alpha1.PhaseComplete, CompletionTime: &now,
		Summary: &cwacv1alpha1.ScanSummary{TotalIssues: 9, Diff: &cwacv1alpha1.ScanDiff{Baseline: "nightly-1", New: 2, Fixed: 5}}})
	plain := h.mustCall("cwac_scan", map[string]any{"urls": []any{"https://a.example/"}, "audit_name": "plain"})["scan_id"].(string)

	var got map[string]any
	waitFor := func() bool {
		for _, e := range h.mustCall("cwac_list_scans", map[string]any{})["scans"].([]any) {
			if m := e.(map[string]any); m["scan_id"] == "nightly-2" && m["new_issues"] != nil {
				got = m
			}
		}
		return got != nil
	}
	for i := 0; i < 50 && !waitFor(); i++ {
		time.Sleep(100 * time.Millisecond) // the list may come from an informer that has not seen the status yet
	}
	if got == nil {
		t.Fatal("nightly-2 with its diff never listed")
	}
	if got["schedule"] != "nightly" || got["baseline"] != "nightly-1" || got["new_issues"] != float64(2) || got["fixed_issues"] != float64(5) {
		t.Errorf("entry %v", got)
	}
	for _, e := range h.mustCall("cwac_list_scans", map[string]any{})["scans"].([]any) {
		if m := e.(map[string]any); m["scan_id"] == plain && (m["schedule"] != nil || m["baseline"] != nil || m["new_issues"] != nil) {
			t.Errorf("a scan of no schedule: %v", m)
		}
	}
}
