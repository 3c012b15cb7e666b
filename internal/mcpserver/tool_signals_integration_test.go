//go:build integration

package mcpserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// signalsFixture is a results directory in CWAC's format with template
// issues, a missing and a duplicate title, broken responses of three
// organisations and reading levels (see its README.txt).
const signalsFixture = "../results/testdata/signals-scan"

// signalsScan completes a scan whose results are signalsFixture's.
func (h *harness) signalsScan(t *testing.T) (id, dir string) {
	t.Helper()
	id = h.mustCall("cwac_scan", map[string]any{"urls": []any{"http://alpha.example/"}, "audit_name": "signals"})["scan_id"].(string)
	dir = filepath.Join(h.root, h.completeScan(id))
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries { // real-scan-1's files go: only the fixture's are read
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.CopyFS(dir, os.DirFS(signalsFixture)); err != nil {
		t.Fatal(err)
	}
	return id, dir
}

func TestSignalsTools(t *testing.T) {
	h := newHarness(t)
	id, dir := h.signalsScan(t)

	tpl := h.mustCall("cwac_get_templates", map[string]any{"scan_id": id, "limit": 3})
	issues := tpl["issues"].([]any)
	first := issues[0].(map[string]any)
	if tpl["template_issues"] != 4.0 || tpl["instances"] != 14.0 || tpl["total"] != 4.0 || tpl["returned"] != 3.0 || len(issues) != 3 ||
		first["rule_id"] != "link-name" || first["pages"] != 4.0 || first["instances"] != 4.0 || !strings.Contains(tpl["note"].(string), "offset=3") {
		t.Errorf("cwac_get_templates = %v", tpl)
	}
	next := h.mustCall("cwac_get_templates", map[string]any{"scan_id": id, "offset": 3})
	if next["returned"] != 1.0 || next["issues"].([]any)[0].(map[string]any)["rule_id"] != "color-contrast" || next["note"] != nil {
		t.Errorf("cwac_get_templates offset 3 = %v", next)
	}
	if none := h.mustCall("cwac_get_templates", map[string]any{"scan_id": id, "organisation": "Beta Council"}); none["total"] != 0.0 ||
		len(none["by_organisation"].([]any)) != 0 {
		t.Errorf("Beta's templates = %v", none)
	}

	checkTitlesAndResponses(t, h, id)
	checkReadabilityAndErrors(t, h, id, dir)
}

func checkTitlesAndResponses(t *testing.T, h *harness, id string) {
	t.Helper()
	ti := h.mustCall("cwac_get_page_titles", map[string]any{"scan_id": id})
	f := ti["findings"].([]any)
	if ti["missing_or_empty"] != 1.0 || ti["duplicate_titles"] != 1.0 || ti["pages_with_duplicate_title"] != 3.0 || len(f) != 2 ||
		f[0].(map[string]any)["problem"] != "duplicate" || f[0].(map[string]any)["pages"] != 3.0 ||
		f[1].(map[string]any)["problem"] != "missing_or_empty" || f[1].(map[string]any)["urls"].([]any)[0] != "http://alpha.example/news" {
		t.Errorf("cwac_get_page_titles = %v", ti)
	}

	br := h.mustCall("cwac_get_broken_responses", map[string]any{"scan_id": id, "organisation": "Gamma Agency"})
	list := br["list"].([]any)
	if br["responses"] != 4.0 || br["total"] != 1.0 || len(list) != 1 || list[0].(map[string]any)["status"] != "403" ||
		len(br["by_organisation"].([]any)) != 1 {
		t.Errorf("cwac_get_broken_responses = %v", br)
	}

}

func checkReadabilityAndErrors(t *testing.T, h *harness, id, dir string) {
	t.Helper()
	rd := h.mustCall("cwac_get_readability", map[string]any{"scan_id": id, "limit": 1})
	orgs := rd["by_organisation"].([]any)
	if rd["pages"] != 4.0 || len(rd["list"].([]any)) != 1 || rd["list"].([]any)[0].(map[string]any)["url"] != "http://alpha.example/about" ||
		len(orgs) != 2 || orgs[0].(map[string]any)["flesch_kincaid_grade"].(map[string]any)["median"] != 8.0 {
		t.Errorf("cwac_get_readability = %v", rd)
	}

	for _, tt := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"scan_id": id, "limit": 5000}, "Invalid limit: 5000"},
		{map[string]any{"scan_id": id, "offset": -1}, "Invalid offset: -1"},
		{map[string]any{"scan_id": "no-such-scan"}, "no-such-scan"},
	} {
		if _, errText := h.call("cwac_get_templates", tt.args); !strings.Contains(errText, tt.want) {
			t.Errorf("cwac_get_templates(%v) = %q, want %q", tt.args, errText, tt.want)
		}
	}
	// A scan without the language audit says so.
	if err := os.Remove(filepath.Join(dir, "language_audit.csv")); err != nil {
		t.Fatal(err)
	}
	if _, errText := h.call("cwac_get_readability", map[string]any{"scan_id": id}); !strings.Contains(errText, "no language_audit.csv") {
		t.Errorf("readability without its CSV: %q", errText)
	}
}

// The answer stays under the server's cap, however many items are asked for.
func TestSignalsToolsResponseCap(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.MaxResponseBytes = signalsAnswerReserve + 700 })
	id, _ := h.signalsScan(t)
	out := h.mustCall("cwac_get_templates", map[string]any{"scan_id": id, "limit": 4})
	if out["truncated"] != true || out["returned"].(float64) >= 4 || !strings.Contains(out["note"].(string), "Response capped") {
		t.Errorf("capped answer = %v", out)
	}
}
