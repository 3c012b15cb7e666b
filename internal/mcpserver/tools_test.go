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
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
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
	want := map[string]bool{"cwac_scan": false, "cwac_scan_status": true, "cwac_get_results": true, "cwac_get_summary": true, "cwac_list_scans": true, "cwac_generate_report": false}
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

func TestScanCreatesCwacScan(t *testing.T) {
	h := newHarness(t)
	out := h.mustCall("cwac_scan", map[string]any{
		"urls": []any{"https://www.example.govt.nz/", "https://a.example.org/"}, "audit_name": "Weekly_Check.1",
		"plugins": map[string]any{"axe_core_audit": true, "language_audit": false}, "max_links_per_domain": 10,
		"viewport_sizes":   map[string]any{"phone": map[string]any{"width": 375, "height": 667}},
		"only_allow_https": false,
	})
	if out["status"] != "started" || out["audit_name"] != "Weekly_Check.1" || !strings.HasPrefix(out["scan_id"].(string), "weekly-check-1-") {
		t.Fatalf("answer = %v", out)
	}
	scan := getScanObj(t, h.ns, out["scan_id"].(string))
	want := cwacv1alpha1.CwacScanSpec{
		URLs: []string{"https://www.example.govt.nz/", "https://a.example.org/"}, AuditName: "Weekly_Check.1",
		Plugins: map[string]bool{"axe_core_audit": true, "language_audit": false}, MaxLinksPerDomain: 10,
		ViewportSizes: map[string]cwacv1alpha1.Viewport{"phone": {Width: 375, Height: 667}},
		Timeout:       "1h", ThreadCount: 1,
		ConfigOverrides: map[string]apiextensionsv1.JSON{"only_allow_https": {Raw: []byte("false")}},
	}
	if diff := cmp.Diff(want, scan.Spec); diff != "" {
		t.Errorf("spec (-want +got):\n%s", diff)
	}
	if scan.Annotations[AnnotationCreatedBy] != CreatedByMCP || scan.Annotations[AnnotationCaller] != "stdio" {
		t.Errorf("annotations = %v", scan.Annotations)
	}
}

func TestScanInputForms(t *testing.T) {
	h := newHarness(t)
	tests := []struct {
		name      string
		args      map[string]any
		plugins   map[string]bool
		viewports map[string]cwacv1alpha1.Viewport
	}{
		{"seeds' single {width, height}", map[string]any{"viewport_sizes": map[string]any{"width": 1280, "height": 800}}, nil,
			map[string]cwacv1alpha1.Viewport{"1280x800": {Width: 1280, Height: 800}}},
		{"list of {width, height}", map[string]any{"viewport_sizes": []any{map[string]any{"width": 320, "height": 450}, map[string]any{"width": 1280, "height": 800, "name": "desk"}}}, nil,
			map[string]cwacv1alpha1.Viewport{"320x450": {Width: 320, Height: 450}, "desk": {Width: 1280, Height: 800}}},
		{"plugins as a list", map[string]any{"plugins": []any{"axe_core_audit", "reflow_audit"}},
			map[string]bool{"axe_core_audit": true, "reflow_audit": true, "language_audit": false, "title_audit": false, "focus_indicator_audit": false, "screenshot_audit": false, "element_audit": false}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.args["urls"] = []any{"https://a.example/"}
			out := h.mustCall("cwac_scan", tt.args)
			scan := getScanObj(t, h.ns, out["scan_id"].(string))
			if diff := cmp.Diff(tt.plugins, scan.Spec.Plugins); diff != "" {
				t.Errorf("plugins (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.viewports, scan.Spec.ViewportSizes); diff != "" {
				t.Errorf("viewports (-want +got):\n%s", diff)
			}
		})
	}
}

func TestScanRefusals(t *testing.T) {
	h := newHarness(t)
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"no urls", map[string]any{}, "At least one URL is required"},
		{"empty urls", map[string]any{"urls": []any{}}, "At least one URL is required"},
		{"ftp", map[string]any{"urls": []any{"ftp://example.org/"}}, "Invalid URL: ftp://example.org/"},
		{"javascript", map[string]any{"urls": []any{"javascript:alert(1)"}}, "Invalid URL: javascript:alert(1)"},
		{"userinfo", map[string]any{"urls": []any{"http://public@example.org/"}}, "user-info"},
		{"seed plugin", map[string]any{"urls": []any{"https://a.example/"}, "plugins": map[string]any{"seo_audit": true}}, "unknown plugin(s) seo_audit; valid plugins are: axe_core_audit, language_audit, reflow_audit, title_audit, focus_indicator_audit, screenshot_audit, element_audit"},
		{"seed plugins in a list", map[string]any{"urls": []any{"https://a.example/"}, "plugins": []any{"html_validation", "crawl_audit"}}, "unknown plugin(s) crawl_audit, html_validation"},
		{"bad audit name", map[string]any{"urls": []any{"https://a.example/"}, "audit_name": "../etc"}, "Invalid audit_name"},
		{"long audit name", map[string]any{"urls": []any{"https://a.example/"}, "audit_name": strings.Repeat("a", 51)}, "Invalid audit_name"},
		{"negative max links", map[string]any{"urls": []any{"https://a.example/"}, "max_links_per_domain": -1}, "Invalid max_links_per_domain"},
		{"tiny viewport", map[string]any{"urls": []any{"https://a.example/"}, "viewport_sizes": map[string]any{"width": 10, "height": 10}}, "must be 100-10000"},
		{"viewport name", map[string]any{"urls": []any{"https://a.example/"}, "viewport_sizes": map[string]any{"../x": map[string]any{"width": 300, "height": 400}}}, "name \"../x\""},
		{"unknown argument", map[string]any{"urls": []any{"https://a.example/"}, "shell": "rm -rf /"}, "shell"},
		{"wrong type", map[string]any{"urls": "https://a.example/"}, "urls"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errText := h.call("cwac_scan", tt.args)
			if !strings.Contains(errText, tt.want) {
				t.Errorf("error %q, want it to contain %q", errText, tt.want)
			}
		})
	}
	list := &cwacv1alpha1.CwacScanList{}
	if err := k8s.List(context.Background(), list, client.InNamespace(h.ns)); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 0 {
		t.Errorf("refused calls created %d scans", len(list.Items))
	}
}

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
	progress := "\xef\xbb\xbftime,iteration,total,speed,percent,elapsed,remaining\r\n1795303112.5,1,50,0.11,2.0,0h 0m,0h 7m\r\n1795303118.6,2,50,0.13,4.0,0h 0m,0h 6m\r\n"
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

	// Failed, with CWAC's stderr tail in the message.
	code := int32(1)
	h.setStatus(id, cwacv1alpha1.CwacScanStatus{Phase: cwacv1alpha1.PhaseFailed, StartTime: &start, CompletionTime: &metav1.Time{Time: start.Add(75e9)}, ExitCode: &code,
		Message:    "CWAC exited with code 1\nstderr tail:\nTraceback (most recent call last):\nValueError: boom",
		Conditions: []metav1.Condition{{Type: "Failed", Status: metav1.ConditionTrue, Reason: "CWACExitedNonZero", Message: "x", LastTransitionTime: start}}})
	st = h.mustCall("cwac_scan_status", map[string]any{"scan_id": id})
	want := map[string]any{"status": "failed", "exit_code": 1.0, "stderr": "Traceback (most recent call last):\nValueError: boom", "reason": "CWACExitedNonZero", "elapsed_time": "1m 15s"}
	for k, v := range want {
		if st[k] != v {
			t.Errorf("failed status %s = %v, want %v", k, st[k], v)
		}
	}
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

	sum := h.mustCall("cwac_get_summary", map[string]any{"scan_id": id})
	if sum["total_issues"] != 17.0 || sum["pages_scanned"] != 4.0 || sum["source"] != "results" || sum["duration_seconds"] != 32.0 {
		t.Errorf("summary = %v", sum)
	}
	if diff := cmp.Diff(map[string]any{"axe_core_audit": 12.0, "reflow_audit": 1.0, "focus_indicator_audit": 4.0}, sum["issues_by_audit_type"]); diff != "" {
		t.Errorf("issues by audit type (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"critical": 6.0, "serious": 6.0}, sum["issues_by_impact"]); diff != "" {
		t.Errorf("issues by impact (-want +got):\n%s", diff)
	}

	rep := h.mustCall("cwac_generate_report", map[string]any{"scan_id": id})
	if rep["report_html"] != rel+"/report.html" || rep["generated"] != true {
		t.Errorf("report = %v", rep)
	}
	html, err := os.ReadFile(filepath.Join(h.root, rel, "report.html"))
	if err != nil || !strings.Contains(string(html), "<strong>17</strong> issues") {
		t.Errorf("report.html: %v", err)
	}
	again := h.mustCall("cwac_generate_report", map[string]any{"scan_id": id})
	if again["generated"] != false {
		t.Errorf("existing reports were rewritten: %v", again)
	}
}

// TestConfinement: a status that points outside the root, or a symlink that
// leads out of it, gets a clear error and reads nothing.
func TestConfinement(t *testing.T) {
	h := newHarness(t)
	outside := t.TempDir()
	copyDir(t, fixtureDir, filepath.Join(outside, "2026-11-21_23-18-23_secret"))
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
	copyDir(t, fixtureDir, filepath.Join(h.root, "by-hand", "2025-01-02_03-04-05_manual"))

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
	if done["path"] != rel || done["status"] != "complete" || done["file_count"].(float64) < 15 || done["size_bytes"].(float64) < 10000 || done["source"] != "cwacscan" {
		t.Errorf("complete scan entry = %v", done)
	}
	if types := toStrings(done["audit_types"]); !slices.Contains(types, "axe_core_audit") || slices.Contains(types, "progress") || slices.Contains(types, "pages_scanned") || slices.Contains(types, "axe_core_audit_template_aware") {
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
	var out []string
	for _, e := range v.([]any) {
		out = append(out, e.(string))
	}
	return out
}

var _ = mcp.NewClient
