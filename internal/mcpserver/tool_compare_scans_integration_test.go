//go:build integration

package mcpserver

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/diff"
	"github.com/a11y-dev/cwac-operator/internal/results"
)

// scanWithBaseline creates a scan like base's whose spec.baseline names base.
func (h *harness) scanWithBaseline(name, base string) {
	h.t.Helper()
	b := getScanObj(h.t, h.ns, base)
	scan := &cwacv1alpha1.CwacScan{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: h.ns}, Spec: *b.Spec.DeepCopy()}
	scan.Spec.Baseline = base
	if err := k8s.Create(context.Background(), scan); err != nil {
		h.t.Fatal(err)
	}
}

// fixLogoAlt edits a results directory as if the home page's logo got its
// alt text: its image-alt rows (one per viewport width) are gone.
func fixLogoAlt(t *testing.T, dir string) {
	t.Helper()
	axe := filepath.Join(dir, "axe_core_audit.csv")
	data, err := os.ReadFile(axe)
	if err != nil {
		t.Fatal(err)
	}
	var kept [][]byte
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		if !bytes.Contains(line, []byte(`<img src=""logo.png""`)) {
			kept = append(kept, line)
		}
	}
	if err := os.WriteFile(axe, bytes.Join(kept, nil), 0o644); err != nil {
		t.Fatal(err)
	}
}

// compareFixture is a complete baseline scan and a complete later scan with
// spec.baseline set, in which the logo's missing alt text was fixed.
func compareFixture(t *testing.T, mutate ...func(*Config)) (h *harness, base, scan, scanDir string) {
	h = newHarness(t, mutate...)
	base = h.mustCall("cwac_scan", map[string]any{"urls": []any{"http://127.0.0.1:8765/"}, "audit_name": "weekly"})["scan_id"].(string)
	h.completeScan(base)
	scan = base + "-next"
	h.scanWithBaseline(scan, base)
	scanDir = filepath.Join(h.root, h.completeScan(scan))
	fixLogoAlt(t, scanDir)
	return h, base, scan, scanDir
}

func TestCompareScans(t *testing.T) {
	h, base, scan, _ := compareFixture(t)

	out := h.mustCall("cwac_compare_scans", map[string]any{"scan_id": scan})
	counts, _ := out["counts"].(map[string]any)
	if out["source"] != "results" || out["baseline_id"] != base || out["change"] != "new" || out["total_rows"] != 0.0 ||
		counts["fixed"] != 2.0 || counts["new"] != 0.0 || counts["unchanged"] != 15.0 || counts["fixed_elements"] != 1.0 {
		t.Errorf("default comparison = %v", out)
	}
	if totals, _ := out["totals"].(map[string]any); totals["baseline_issues"] != 17.0 || totals["current_issues"] != 15.0 {
		t.Errorf("totals = %v", out["totals"])
	}

	tests := []struct {
		name  string
		args  map[string]any
		total float64
		rows  int
		note  string
	}{
		{"fixed rows", map[string]any{"change": "fixed"}, 2, 2, ""},
		{"fixed, critical", map[string]any{"change": "fixed", "impact": "critical"}, 2, 2, ""},
		{"fixed, serious", map[string]any{"change": "fixed", "impact": "serious"}, 0, 0, ""},
		{"unchanged, paged", map[string]any{"change": "unchanged", "limit": 5, "offset": 5}, 15, 5, "use offset=10"},
		{"unstable", map[string]any{"change": "unstable"}, 0, 0, ""},
		{"baseline named", map[string]any{"change": "fixed", "baseline_id": base}, 2, 2, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.args["scan_id"] = scan
			out := h.mustCall("cwac_compare_scans", tc.args)
			rows, _ := out["rows"].([]any)
			if out["total_rows"] != tc.total || len(rows) != tc.rows || out["returned_rows"] != float64(tc.rows) {
				t.Errorf("total_rows %v, %d rows; want %v and %d", out["total_rows"], len(rows), tc.total, tc.rows)
			}
			note, _ := out["note"].(string)
			if !strings.Contains(note, tc.note) || (tc.note == "" && note != "") {
				t.Errorf("note = %q, want %q", note, tc.note)
			}
			for _, r := range rows {
				row := r.(map[string]any)
				if row["change"] != tc.args["change"] {
					t.Errorf("row of change %v", row["change"])
				}
				if tc.args["change"] == "fixed" && (row["rule"] != "image-alt" || !strings.Contains(row["html"].(string), "logo.png")) {
					t.Errorf("fixed row = %v", row)
				}
				// The scan's axe rows are named by the one issue identity
				// (diff.IssueID), as the scan pod names them.
				if id, _ := row["issue_id"].(string); tc.args["change"] == "unchanged" && row["audit"] == "axe_core_audit" {
					if _, err := diff.ParseIssueID(id); err != nil {
						t.Errorf("unchanged axe row without an issue id: %v", err)
					}
				}
			}
		})
	}
}

// TestCompareScansFromDiffFile: the scan pod's diff.json answers when it
// compares the same two scans; another baseline's, or one that cannot be
// read, gives way to comparing the CSVs.
func TestCompareScansFromDiffFile(t *testing.T) {
	h, base, scan, dir := compareFixture(t)
	path := filepath.Join(dir, results.DiffFile)
	writeDiff := func(baseline string, rows ...diff.Row) {
		t.Helper()
		var spool, doc bytes.Buffer
		rw := diff.NewRowWriter(&spool)
		for i := range rows {
			if err := rw.Write(&rows[i]); err != nil {
				t.Fatal(err)
			}
		}
		if err := rw.Flush(); err != nil {
			t.Fatal(err)
		}
		res := &diff.Result{Counts: results.DiffCounts{Baseline: baseline, New: int64(len(rows))}}
		if err := diff.WriteDocument(&doc, res, &spool); err != nil {
			t.Fatal(err)
		}
		_ = os.Remove(path)
		if err := os.WriteFile(path, doc.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	call := func() (map[string]any, string) {
		t.Helper()
		out := h.mustCall("cwac_compare_scans", map[string]any{"scan_id": scan})
		note, _ := out["note"].(string)
		return out, note
	}

	// A recorded comparison (made up here, to tell it from a computed one).
	writeDiff(base, diff.Row{Change: diff.ChangeNew, Audit: "axe_core_audit", Rule: "recorded", URL: "http://127.0.0.1:8765/", Issues: 1},
		diff.Row{Change: diff.ChangeFixed, Rule: "recorded", Issues: 1})
	out, note := call()
	rows, _ := out["rows"].([]any)
	if out["source"] != "diff.json" || out["total_rows"] != 1.0 || len(rows) != 1 || rows[0].(map[string]any)["rule"] != "recorded" || note != "" {
		t.Errorf("from diff.json = %v", out)
	}

	writeDiff("another-scan", diff.Row{Change: diff.ChangeNew, Rule: "recorded", Issues: 1})
	if out, note := call(); out["source"] != "results" || out["total_rows"] != 0.0 || note != "" {
		t.Errorf("diff.json of another baseline: source %v, %v rows, note %q", out["source"], out["total_rows"], note)
	}

	for name, plant := range map[string]func(){
		"not JSON": func() { _ = os.Remove(path); _ = os.WriteFile(path, []byte("{nope"), 0o644) },
		"a FIFO":   func() { _ = os.Remove(path); _ = syscall.Mkfifo(path, 0o644) },
	} {
		plant()
		if out, note := call(); out["source"] != "results" || !strings.Contains(note, "diff.json could not be used") {
			t.Errorf("%s: source %v, note %q", name, out["source"], note)
		}
	}
}

// TestCompareScansHandRun: a results directory run by hand compares like a scan.
func TestCompareScansHandRun(t *testing.T) {
	h := newHarness(t)
	baseline, later := "by-hand/2026-11-20_08-00-00_weekly", "by-hand/2026-11-21_08-00-00_weekly"
	copyFixture(t, filepath.Join(h.root, baseline))
	copyFixture(t, filepath.Join(h.root, later))
	fixLogoAlt(t, filepath.Join(h.root, later))
	out := h.mustCall("cwac_compare_scans", map[string]any{"scan_id": later, "baseline_id": baseline, "change": "fixed"})
	if c, _ := out["counts"].(map[string]any); out["source"] != "results" || out["total_rows"] != 2.0 || c["baseline"] != baseline {
		t.Errorf("hand-run comparison = %v", out)
	}
	if _, errText := h.call("cwac_compare_scans", map[string]any{"scan_id": later}); !strings.Contains(errText, "has no spec.baseline: give baseline_id") {
		t.Errorf("hand-run results without baseline_id: %q", errText)
	}
}

// TestCompareScansErrors: each refusal says what was wrong.
func TestCompareScansErrors(t *testing.T) {
	h, base, scan, _ := compareFixture(t)
	running := h.mustCall("cwac_scan", map[string]any{"urls": []any{"http://127.0.0.1:8765/"}, "audit_name": "running"})["scan_id"].(string)
	h.setStatus(running, cwacv1alpha1.CwacScanStatus{Phase: cwacv1alpha1.PhaseRunning})
	gone := h.mustCall("cwac_scan", map[string]any{"urls": []any{"http://127.0.0.1:8765/"}, "audit_name": "gone"})["scan_id"].(string)
	goneDir := h.completeScan(gone)
	if err := os.RemoveAll(filepath.Join(h.root, goneDir)); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"unknown scan", map[string]any{"scan_id": "nope"}, "No scan found with ID: nope"},
		{"unknown baseline", map[string]any{"scan_id": scan, "baseline_id": "nope"}, "No scan found with ID: nope (the baseline)"},
		{"baseline not finished", map[string]any{"scan_id": scan, "baseline_id": running}, "Baseline " + running + " has not finished (running)"},
		{"baseline's results gone", map[string]any{"scan_id": scan, "baseline_id": gone}, "Baseline " + gone + ": Results of scan " + gone + " cannot be read"},
		{"scan not finished", map[string]any{"scan_id": running, "baseline_id": base}, "Scan is still running"},
		{"no baseline", map[string]any{"scan_id": base}, "Scan " + base + " has no spec.baseline"},
		{"itself", map[string]any{"scan_id": scan, "baseline_id": scan}, "is the scan itself"},
		{"bad change", map[string]any{"scan_id": scan, "change": "worse"}, `Invalid change: "worse" (new, fixed, unchanged or unstable)`},
		{"bad impact", map[string]any{"scan_id": scan, "impact": "fatal"}, `Invalid impact: "fatal"`},
		{"bad limit", map[string]any{"scan_id": scan, "limit": 100000}, "Invalid limit: 100000 (must be 1-1000)"},
		{"bad offset", map[string]any{"scan_id": scan, "offset": -1}, "Invalid offset: -1"},
		{"baseline outside the root", map[string]any{"scan_id": scan, "baseline_id": "../../etc"}, "unsafe segment"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errText := h.call("cwac_compare_scans", tc.args)
			if !strings.Contains(errText, tc.want) {
				t.Errorf("error = %q (answer %v), want it to contain %q", errText, out, tc.want)
			}
		})
	}
}
