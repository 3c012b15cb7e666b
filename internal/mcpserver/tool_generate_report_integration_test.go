//go:build integration

package mcpserver

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// snapshot records every entry under dir (name, type, size, modification
// time), to show a call changed nothing on the results volume.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out[p] = fmt.Sprintf("%v %d %d", info.Mode(), info.Size(), info.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestGenerateReportWritesNothing: the tool reads the results volume and
// never writes to it. Missing reports are rendered into the answer.
func TestGenerateReportWritesNothing(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.ReadOnly = true }) // available read-only too
	id := "by-hand/2026-11-21_23-18-23_real-scan-1"
	dir := filepath.Join(h.root, id)
	copyFixture(t, dir)
	before := snapshot(t, h.root)

	rep := h.mustCall("cwac_generate_report", map[string]any{"scan_id": id})
	if rep["generated"] != true || len(rep["files"].([]any)) != 0 || rep["report_html"] != nil || rep["truncated"] != nil {
		t.Errorf("rendered report answer = %v", withoutContent(rep))
	}
	if html, _ := rep["report_html_content"].(string); !strings.Contains(html, "<strong>17</strong> issues") ||
		!strings.HasSuffix(strings.TrimSpace(html), "</html>") {
		t.Errorf("report_html_content is not the report: %.200q", html)
	}
	if csv, _ := rep["leaderboard_csv_content"].(string); !strings.HasPrefix(csv, `"rank","organisation","sector",`) || strings.Count(csv, "\n") < 2 {
		t.Errorf("leaderboard_csv_content = %q", csv)
	}
	if diff := cmp.Diff(before, snapshot(t, h.root)); diff != "" {
		t.Errorf("the results volume changed (-before +after):\n%s", diff)
	}

	// The scan pod's reports are returned by path, as they are.
	for name, text := range map[string]string{"report.html": "<p>the scan pod's report</p>", "leaderboard.csv": "rank\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before = snapshot(t, h.root)
	rep = h.mustCall("cwac_generate_report", map[string]any{"scan_id": id})
	want := map[string]any{"scan_id": id, "generated": false, "files": []any{id + "/report.html", id + "/leaderboard.csv"},
		"report_html": id + "/report.html", "leaderboard_csv": id + "/leaderboard.csv", "scoring": scoringNote}
	if diff := cmp.Diff(want, rep); diff != "" {
		t.Errorf("existing reports (-want +got):\n%s", diff)
	}
	// regenerate renders them again, into the answer, leaving the files be.
	rep = h.mustCall("cwac_generate_report", map[string]any{"scan_id": id, "regenerate": true})
	if html, _ := rep["report_html_content"].(string); rep["generated"] != true || !strings.Contains(html, "<strong>17</strong> issues") {
		t.Errorf("regenerated = %v", withoutContent(rep))
	}
	if diff := cmp.Diff(before, snapshot(t, h.root)); diff != "" {
		t.Errorf("regenerate changed the results volume (-before +after):\n%s", diff)
	}
}

// TestGenerateReportAnswerCap: a rendered report larger than the answer cap
// is cut at a line end, and the answer says so.
func TestGenerateReportAnswerCap(t *testing.T) {
	const limit = 16 * 1024
	h := newHarness(t, func(c *Config) { c.MaxResponseBytes = limit })
	id := h.mustCall("cwac_scan", map[string]any{"urls": []any{"https://a.example/"}, "audit_name": "capped"})["scan_id"].(string)
	h.completeScan(id)
	rep := h.mustCall("cwac_generate_report", map[string]any{"scan_id": id})
	data, _ := json.Marshal(rep)
	html, _ := rep["report_html_content"].(string)
	if len(data) > limit || len(data) < limit*3/4 || rep["truncated"] != true || html == "" {
		t.Errorf("capped answer: %d bytes, truncated %v, html %d bytes", len(data), rep["truncated"], len(html))
	}
	if note, _ := rep["note"].(string); !strings.Contains(note, "report.html is ") || !strings.Contains(note, fmt.Sprintf("under %d bytes", limit)) {
		t.Errorf("note = %q", note)
	}
	if csv, _ := rep["leaderboard_csv_content"].(string); !strings.HasPrefix(csv, `"rank",`) {
		t.Errorf("the leaderboard did not come first: %q", csv)
	}
}

func withoutContent(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		if !strings.HasSuffix(k, "_content") {
			out[k] = v
		}
	}
	return out
}
