//go:build integration

package mcpserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

func TestStatusThroughLife(t *testing.T) {
	h := newHarness(t)
	if _, errText := h.call("cwac_scan_status", map[string]any{"scan_id": "nope"}); errText != "No scan found with ID: nope" {
		t.Errorf("unknown scan: %q", errText)
	}
	if _, errText := h.call("cwac_scan_status", map[string]any{"scan_id": "../../etc/passwd"}); !strings.HasPrefix(errText, "No scan found with ID: ") {
		t.Errorf("traversal id: %q", errText)
	}
	id := h.mustCall("cwac_scan", map[string]any{"urls": []any{"https://a.example/"}, "audit_name": "life"})["scan_id"].(string)
	st := h.mustCall("cwac_scan_status", map[string]any{"scan_id": id})
	if st["status"] != "pending" || st["elapsed_time"] == "" {
		t.Errorf("new scan status = %v", st)
	}

	// Running, with CWAC's progress.csv on the volume.
	scan := getScanObj(t, h.ns, id)
	start := metav1.NewTime(scan.CreationTimestamp.Add(-135e9))
	scanDir := scan.Namespace + "/" + scan.Name + "-" + strings.ReplaceAll(string(scan.UID), "-", "")[:8]
	if err := os.MkdirAll(filepath.Join(h.root, scanDir, "2026-11-22_01-00-00_life"), 0o755); err != nil {
		t.Fatal(err)
	}
	progress := "\xef\xbb\xbftime,iteration,total,speed,percent,elapsed,remaining\r\n" +
		"1795303112.5,1,50,0.11,2.0,0h 0m,0h 7m\r\n" +
		"1795303118.6,2,50,0.13,4.0,0h 0m,0h 6m\r\n"
	if err := os.WriteFile(filepath.Join(h.root, scanDir, "2026-11-22_01-00-00_life", "progress.csv"), []byte(progress), 0o644); err != nil {
		t.Fatal(err)
	}
	h.setStatus(id, cwacv1alpha1.CwacScanStatus{Phase: cwacv1alpha1.PhaseRunning, StartTime: &start, JobName: "life-x", ResultsPath: scanDir})
	st = h.mustCall("cwac_scan_status", map[string]any{"scan_id": id})
	if st["status"] != "running" || !strings.HasPrefix(st["elapsed_time"].(string), "2m 1") {
		t.Errorf("running status = %v", st)
	}
	if diff := cmp.Diff(map[string]any{"pages_done": 2.0, "pages_estimated": 50.0, "percent": 4.0}, st["progress"]); diff != "" {
		t.Errorf("progress (-want +got):\n%s", diff)
	}
	if _, errText := h.call("cwac_get_results", map[string]any{"scan_id": id}); errText != "Scan is still running. Check status first." {
		t.Errorf("results while running: %q", errText)
	}

	// Failed: the operator's failure detail is its own status field.
	code := int32(1)
	h.setStatus(id, cwacv1alpha1.CwacScanStatus{
		Phase: cwacv1alpha1.PhaseFailed, StartTime: &start, CompletionTime: &metav1.Time{Time: start.Add(75e9)}, ExitCode: &code,
		Message: "CWAC exited with code 1: ValueError: boom",
		Failure: &cwacv1alpha1.ScanFailure{Reason: cwacv1alpha1.ReasonCWACExitedNonZero, ExitCode: &code, Cause: "ValueError: boom",
			LogTail: "Traceback (most recent call last):\nValueError: boom"},
		Conditions: []metav1.Condition{{
			Type: cwacv1alpha1.ConditionFailed, Status: metav1.ConditionTrue, Reason: cwacv1alpha1.ReasonCWACExitedNonZero,
			Message: "x", LastTransitionTime: start,
		}},
	})
	st = h.mustCall("cwac_scan_status", map[string]any{"scan_id": id})
	want := map[string]any{"status": "failed", "exit_code": 1.0, "stderr": "Traceback (most recent call last):\nValueError: boom", "cause": "ValueError: boom",
		"reason": "CWACExitedNonZero", "elapsed_time": "1m 15s", "message": "CWAC exited with code 1: ValueError: boom"}
	for k, v := range want {
		if st[k] != v {
			t.Errorf("failed status %s = %v, want %v", k, st[k], v)
		}
	}
}
