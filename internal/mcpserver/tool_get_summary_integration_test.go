//go:build integration

package mcpserver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/results"
)

func writeSummaryFile(t *testing.T, dir string, sum results.Summary) {
	t.Helper()
	data, err := json.Marshal(sum)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, results.SummaryFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSummarySources: the scan pod's summary.json first, then the status
// summary, then the CSVs; recompute goes to the CSVs.
func TestSummarySources(t *testing.T) {
	h := newHarness(t)
	id := h.mustCall("cwac_scan", map[string]any{"urls": []any{"https://a.example/"}, "audit_name": "sources"})["scan_id"].(string)
	rel := h.completeScan(id) // status summary: 17 issues, 4 pages, 32 s
	dir := filepath.Join(h.root, rel)
	summary := func(args map[string]any) map[string]any {
		t.Helper()
		args["scan_id"] = id
		return h.mustCall("cwac_get_summary", args)
	}

	st := summary(map[string]any{})
	if st["source"] != "status" || st["total_issues"] != 17.0 || st["pages_scanned"] != 4.0 || st["duration_seconds"] != 32.0 ||
		st["results_dir"] != rel || st["scan_id"] != id {
		t.Errorf("without summary.json = %v", st)
	}
	if diff := cmp.Diff(map[string]any{}, st["issues_by_audit_type"]); diff != "" {
		t.Errorf("status summary's missing maps are not empty (-want +got):\n%s", diff)
	}

	writeSummaryFile(t, dir, results.Summary{
		TotalIssues: 99, IssuesByAuditType: map[string]int64{"axe_core_audit": 99}, PagesScanned: 7, DurationSeconds: 12.5,
		BaseURLs: []results.BaseURLPages{{Organisation: "a.example", BaseURL: "https://a.example/", Sector: "unknown", Pages: 7}},
	})
	file := summary(map[string]any{})
	if file["source"] != "summary.json" || file["total_issues"] != 99.0 || file["pages_scanned"] != 7.0 ||
		file["duration_seconds"] != 12.5 || file["status"] != "complete" {
		t.Errorf("from summary.json = %v", file)
	}
	if urls, _ := file["base_urls"].([]any); len(urls) != 1 {
		t.Errorf("summary.json's per-site pages are lost: %v", file["base_urls"])
	}

	again := summary(map[string]any{"recompute": true})
	if again["source"] != "results" || again["total_issues"] != 17.0 || again["duration_seconds"] != 32.0 {
		t.Errorf("recomputed = %v", again)
	}
	if diff := cmp.Diff(map[string]any{"axe_core_audit": 12.0, "reflow_audit": 1.0, "focus_indicator_audit": 4.0}, again["issues_by_audit_type"]); diff != "" {
		t.Errorf("recomputed issues by audit type (-want +got):\n%s", diff)
	}

	// A summary.json that cannot be used is passed over, and the answer says why.
	for name, setup := range map[string]func(path string){
		"not JSON":  func(p string) { _ = os.WriteFile(p, []byte("{nope"), 0o644) },
		"too large": func(p string) { _ = os.WriteFile(p, nil, 0o644); _ = os.Truncate(p, maxSummaryFileBytes+1) },
		"a FIFO":    func(p string) { _ = syscall.Mkfifo(p, 0o644) },
		"a symlink out of the root": func(p string) {
			outside := filepath.Join(t.TempDir(), "summary.json")
			writeSummaryFile(t, filepath.Dir(outside), results.Summary{TotalIssues: 1234})
			_ = os.Symlink(outside, p)
		},
	} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(dir, results.SummaryFile)
			_ = os.Remove(p)
			setup(p)
			got := summary(map[string]any{})
			if got["source"] != "status" || got["total_issues"] != 17.0 || !strings.Contains(got["note"].(string), "summary.json could not be used") {
				t.Errorf("summary.json %s: %v", name, got)
			}
		})
	}
}

// TestSummaryFromResultsWithoutRecords: a scan with no recorded summary, and
// a directory run by hand, are summarised from their CSVs; a finished scan
// whose files are gone answers from its status.
func TestSummaryFromResultsWithoutRecords(t *testing.T) {
	h := newHarness(t)
	id := h.mustCall("cwac_scan", map[string]any{"urls": []any{"https://a.example/"}, "audit_name": "bare"})["scan_id"].(string)
	rel := h.completeScan(id)
	scan := getScanObj(t, h.ns, id)
	st := scan.Status
	st.Summary = nil
	h.setStatus(id, st)
	if got := h.mustCall("cwac_get_summary", map[string]any{"scan_id": id}); got["source"] != "results" || got["total_issues"] != 17.0 {
		t.Errorf("no recorded summary = %v", got)
	}

	hand := "by-hand/2025-01-02_03-04-05_manual"
	copyFixture(t, filepath.Join(h.root, hand))
	got := h.mustCall("cwac_get_summary", map[string]any{"scan_id": hand})
	if got["source"] != "results" || got["total_issues"] != 17.0 || got["scan_id"] != hand {
		t.Errorf("hand-run without summary.json = %v", got)
	}
	writeSummaryFile(t, filepath.Join(h.root, hand), results.Summary{TotalIssues: 5})
	if got := h.mustCall("cwac_get_summary", map[string]any{"scan_id": hand}); got["source"] != "summary.json" || got["total_issues"] != 5.0 {
		t.Errorf("hand-run with summary.json = %v", got)
	}

	st.Summary = &cwacv1alpha1.ScanSummary{TotalIssues: 17, PagesScanned: 4}
	h.setStatus(id, st)
	if err := os.RemoveAll(filepath.Join(h.root, rel)); err != nil {
		t.Fatal(err)
	}
	got = h.mustCall("cwac_get_summary", map[string]any{"scan_id": id})
	if got["source"] != "status" || got["total_issues"] != 17.0 || got["results_dir"] != rel {
		t.Errorf("files gone = %v", got)
	}
	if _, errText := h.call("cwac_get_summary", map[string]any{"scan_id": id, "recompute": true}); !strings.Contains(errText, "cannot be read") {
		t.Errorf("recompute with the files gone: %q", errText)
	}
}
