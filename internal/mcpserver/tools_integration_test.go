//go:build integration

package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

func TestToolsList(t *testing.T) {
	h := newHarness(t)
	res, err := h.session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	readOnly := map[string]bool{}
	for _, tool := range res.Tools {
		readOnly[tool.Name] = tool.Annotations != nil && tool.Annotations.ReadOnlyHint
		if tool.OutputSchema == nil || tool.InputSchema == nil || tool.Description == "" {
			t.Errorf("%s lacks a schema or description", tool.Name)
		}
	}
	want := map[string]bool{
		"cwac_scan": false, "cwac_scan_status": true, "cwac_get_results": true,
		"cwac_get_summary": true, "cwac_list_scans": true, "cwac_generate_report": true,
		"cwac_compare_scans": true, "cwac_cancel_scan": false, "cwac_decide": false,
		"cwac_issue_history": true, "cwac_organisation_trend": true, "cwac_sector_trend": true, "cwac_scan_changes": true,
		"cwac_get_templates": true, "cwac_get_page_titles": true, "cwac_get_broken_responses": true, "cwac_get_readability": true,
	}
	if diff := cmp.Diff(want, readOnly); diff != "" {
		t.Errorf("tools and read-only hints (-want +got):\n%s", diff)
	}
}

func getScanObj(t *testing.T, ns, name string) *cwacv1alpha1.CwacScan {
	t.Helper()
	scan := &cwacv1alpha1.CwacScan{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, scan); err != nil {
		t.Fatal(err)
	}
	return scan
}

func TestResultsAndSummaryOfCompleteScan(t *testing.T) {
	h := newHarness(t)
	id := h.mustCall("cwac_scan", map[string]any{"urls": []any{"http://127.0.0.1:8765/"}, "audit_name": "real-scan-1"})["scan_id"].(string)
	rel := h.completeScan(id)

	st := h.mustCall("cwac_scan_status", map[string]any{"scan_id": id})
	if st["status"] != "complete" || st["results_dir"] != rel || st["exit_code"] != 0.0 || st["elapsed_time"] != "2m 15s" {
		t.Errorf("complete status = %v", st)
	}

	all := h.mustCall("cwac_get_results", map[string]any{"scan_id": id})
	// 14 axe + 10 focus + 4 element (cells with newlines) + 2 language + 4 reflow + 8 screenshot + 8 title rows.
	if all["total_results"] != 50.0 || all["returned_results"] != 50.0 || all["audit_type"] != "all" {
		t.Errorf("all results: total %v returned %v", all["total_results"], all["returned_results"])
	}
	crit := h.mustCall("cwac_get_results", map[string]any{"scan_id": id, "audit_type": "axe_core_audit", "impact": "critical", "limit": 4})
	if crit["total_results"] != 6.0 || crit["returned_results"] != 4.0 || !strings.Contains(crit["note"].(string), "offset=4") {
		t.Errorf("critical results = total %v returned %v note %v", crit["total_results"], crit["returned_results"], crit["note"])
	}
	row := crit["results"].([]any)[0].(map[string]any)
	if row["impact"] != "critical" || row["audit_type"] != "axe_core_audit" || row["audit_class"] != "AxeCoreAudit" {
		t.Errorf("row = %v", row)
	}
	if vp, ok := row["viewport_size"].(map[string]any); !ok || vp["width"] == nil {
		t.Errorf("viewport_size not parsed: %v", row["viewport_size"])
	}
	if tags, ok := row["tags"].([]any); !ok || len(tags) == 0 {
		t.Errorf("tags not parsed: %v", row["tags"])
	}
	issues := h.mustCall("cwac_get_results", map[string]any{"scan_id": id, "audit_type": "focus_indicator_audit", "issues_only": true})
	if issues["total_results"] != 4.0 {
		t.Errorf("focus issues = %v", issues["total_results"])
	}

	for _, tt := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"scan_id": id, "audit_type": "seo_audit"}, "No results file for audit type: seo_audit"},
		{map[string]any{"scan_id": id, "audit_type": "../../etc/passwd"}, "Invalid audit_type"},
		{map[string]any{"scan_id": id, "audit_type": "/etc/passwd"}, "Invalid audit_type"},
		{map[string]any{"scan_id": id, "impact": "catastrophic"}, "Invalid impact"},
		{map[string]any{"scan_id": id, "limit": 100000}, "Invalid limit: 100000 (must be 1-1000)"},
		{map[string]any{"scan_id": "missing"}, "No scan found with ID: missing"},
		{map[string]any{"scan_id": "../../../etc"}, "Invalid scan_id"},
	} {
		if _, errText := h.call("cwac_get_results", tt.args); !strings.Contains(errText, tt.want) {
			t.Errorf("get_results(%v) = %q, want %q", tt.args, errText, tt.want)
		}
	}

	sum := h.mustCall("cwac_get_summary", map[string]any{"scan_id": id, "recompute": true})
	if sum["total_issues"] != 17.0 || sum["pages_scanned"] != 4.0 || sum["source"] != "results" || sum["duration_seconds"] != 32.0 {
		t.Errorf("summary = %v", sum)
	}
	if diff := cmp.Diff(map[string]any{"axe_core_audit": 12.0, "reflow_audit": 1.0, "focus_indicator_audit": 4.0}, sum["issues_by_audit_type"]); diff != "" {
		t.Errorf("issues by audit type (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"critical": 6.0, "serious": 6.0}, sum["issues_by_impact"]); diff != "" {
		t.Errorf("issues by impact (-want +got):\n%s", diff)
	}
}

// TestConfinement: a status that points outside the root, or a symlink that
// leads out of it, gets a clear error and reads nothing.
func TestConfinement(t *testing.T) {
	h := newHarness(t)
	outside := t.TempDir()
	copyFixture(t, filepath.Join(outside, "2026-11-21_23-18-23_secret"))
	tests := []struct {
		name, resultsPath string
		setup             func()
		want              string
	}{
		{"dot-dot", "../" + filepath.Base(outside) + "/2026-11-21_23-18-23_secret", nil, "unsafe segment"},
		{"absolute", outside + "/2026-11-21_23-18-23_secret", nil, "not relative"},
		{"symlink out", "escape/2026-11-21_23-18-23_secret", func() {
			if err := os.Symlink(outside, filepath.Join(h.root, "escape")); err != nil {
				t.Fatal(err)
			}
		}, "cannot be read"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.setup != nil {
				tt.setup()
			}
			id := h.mustCall("cwac_scan", map[string]any{"urls": []any{"https://a.example/"}, "audit_name": "secret" + string(rune('a'+i))})["scan_id"].(string)
			now := metav1.Now()
			h.setStatus(id, cwacv1alpha1.CwacScanStatus{Phase: cwacv1alpha1.PhaseComplete, ResultsPath: tt.resultsPath, CompletionTime: &now})
			for _, tool := range []string{"cwac_get_results", "cwac_get_summary", "cwac_generate_report"} {
				out, errText := h.call(tool, map[string]any{"scan_id": id})
				if out != nil || !strings.Contains(errText, tt.want) {
					t.Errorf("%s: out %v, error %q, want %q", tool, out, errText, tt.want)
				}
			}
		})
	}
	entries, _ := os.ReadDir(filepath.Join(outside, "2026-11-21_23-18-23_secret"))
	for _, e := range entries {
		if e.Name() == "report.html" {
			t.Error("a report was written outside the results root")
		}
	}
}

func TestListScans(t *testing.T) {
	h := newHarness(t)
	id := h.mustCall("cwac_scan", map[string]any{"urls": []any{"https://a.example/"}, "audit_name": "listed"})["scan_id"].(string)
	rel := h.completeScan(id)
	pending := h.mustCall("cwac_scan", map[string]any{"urls": []any{"https://b.example/"}})["scan_id"].(string)
	copyFixture(t, filepath.Join(h.root, "by-hand", "2025-01-02_03-04-05_manual"))

	out := h.mustCall("cwac_list_scans", map[string]any{})
	scans := out["scans"].([]any)
	if out["total"] != 3.0 || len(scans) != 3 {
		t.Fatalf("list = %v", out)
	}
	byID := map[string]map[string]any{}
	for _, s := range scans {
		e := s.(map[string]any)
		byID[e["scan_id"].(string)] = e
	}
	done := byID[id]
	if done["path"] != rel || done["status"] != "complete" || done["file_count"].(float64) < 15 ||
		done["size_bytes"].(float64) < 10000 || done["source"] != "cwacscan" {
		t.Errorf("complete scan entry = %v", done)
	}
	if types := toStrings(done["audit_types"]); !slices.Contains(types, "axe_core_audit") ||
		slices.Contains(types, "progress") || slices.Contains(types, "pages_scanned") || slices.Contains(types, "axe_core_audit_template_aware") {
		t.Errorf("audit types = %v", done["audit_types"])
	}
	if byID[pending]["status"] != "pending" {
		t.Errorf("pending entry = %v", byID[pending])
	}
	hand := byID["by-hand/2025-01-02_03-04-05_manual"]
	if hand == nil || hand["source"] != "results-dir" || hand["timestamp"] != "2025-01-02T03:04:05Z" || hand["audit_name"] != "manual" {
		t.Errorf("hand-run entry = %v", hand)
	}
	// Newest first: the hand-run scan of 2025 is last.
	if last := scans[2].(map[string]any); last["scan_id"] != "by-hand/2025-01-02_03-04-05_manual" {
		t.Errorf("order: last is %v", last["scan_id"])
	}
	// A hand-run scan's path works as a scan_id for the read tools.
	sum := h.mustCall("cwac_get_summary", map[string]any{"scan_id": "by-hand/2025-01-02_03-04-05_manual"})
	if sum["total_issues"] != 17.0 {
		t.Errorf("hand-run summary = %v", sum)
	}
}

func TestListScansWithoutResultsRoot(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.ResultsRoot = filepath.Join(os.TempDir(), "does-not-exist-"+t.Name()) })
	out := h.mustCall("cwac_list_scans", map[string]any{})
	if out["total"] != 0.0 || len(out["scans"].([]any)) != 0 || !strings.Contains(out["note"].(string), "not available") {
		t.Errorf("list without a results root = %v", out)
	}
}

func TestAuditLogLines(t *testing.T) {
	h := newHarness(t)
	h.call("cwac_scan_status", map[string]any{"scan_id": "nope"})
	h.mustCall("cwac_list_scans", map[string]any{})
	lines := strings.Split(strings.TrimSpace(h.audit.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("audit lines = %d:\n%s", len(lines), h.audit.String())
	}
	var first map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]any{"tool": "cwac_scan_status", "outcome": "error", "caller": "stdio", "target": h.ns + "/nope", "args": `scan_id="nope"`} {
		if first[k] != v {
			t.Errorf("audit %s = %v, want %v", k, first[k], v)
		}
	}
	if _, ok := first["duration_ms"]; !ok {
		t.Error("audit line has no duration")
	}
}

func toStrings(v any) []string {
	items := v.([]any)
	out := make([]string, 0, len(items))
	for _, e := range items {
		out = append(out, e.(string))
	}
	return out
}

var _ = mcp.NewClient
