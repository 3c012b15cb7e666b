//go:build integration

package mcpserver

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/diff"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/testutil/heap"
)

// plant writes a file into a results directory.
func plant(t *testing.T, dir, name, data string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// maxPlantedHeap is how far the heap may grow for one call on a planted
// file: the calls grow it by 15 to 35 MiB, and the bound is more than twice
// that, so it catches memory that grows with the file (426 MB and 2.68 GB
// before the bounds), never the collector's noise.
const maxPlantedHeap = 80 << 20

// callBounded calls a tool, and checks that its answer honours
// MaxResponseBytes and that the heap grew by less than maxPlantedHeap meanwhile.
func (h *harness) callBounded(name string, args map[string]any) (map[string]any, string) {
	h.t.Helper()
	var out map[string]any
	var errText string
	grew := heap.PeakDuring(func() { out, errText = h.call(name, args) })
	h.t.Logf("%s: heap grew by %.1f MiB at most", name, float64(grew)/(1<<20))
	if grew > maxPlantedHeap {
		h.t.Errorf("%s: the heap grew by %.1f MiB, more than %d MiB", name, float64(grew)/(1<<20), maxPlantedHeap>>20)
	}
	if data, _ := json.Marshal(out); len(data) > h.srv.cfg.MaxResponseBytes {
		h.t.Errorf("%s: an answer of %d bytes, over --max-response-bytes %d", name, len(data), h.srv.cfg.MaxResponseBytes)
	}
	return out, errText
}

// The planted files of issue 20 on a scan's results directory (scan pods
// write it, and they run a browser on arbitrary websites), each read by
// the tool that reads it: every call answers, from what it can use, within
// --max-response-bytes and with the heap far under the 128 MiB target.
// Before: a 4 MiB summary.json of top_violations [{}] answered 50 MB and
// peaked at 426 MB; a 16 MiB row_index.json of {} at 2.68 GB; a 16 MiB
// diff.json by_rule of {} at 1.43 GB.
func TestPlantedResultFiles(t *testing.T) {
	if raceDetector {
		t.Skip("memory is bounded without the race detector: hack/test.sh runs this test again without -race")
	}
	// Answers of at most 256 KiB: half the default, so that the caps are
	// seen to follow the flag.
	h, _, scan, dir := compareFixture(t, func(c *Config) { c.MaxResponseBytes = 256 << 10 })

	t.Run("summary.json of top_violations [{}]", func(t *testing.T) {
		plant(t, dir, results.SummaryFile, `{"total_issues":1,"top_violations":[`+strings.Repeat("{},", (4<<20-100)/3)+`{}]}`)
		out, errText := h.callBounded("cwac_get_summary", map[string]any{"scan_id": scan})
		note, _ := out["note"].(string)
		if errText != "" || out["source"] != "status" || !strings.Contains(note, "more values than the limit of 250000") {
			t.Errorf("answer %v, error %q: want the status summary and a note naming the limit", out, errText)
		}
	})
	t.Run("summary.json within its budget, too large an answer", func(t *testing.T) {
		var b strings.Builder
		b.WriteString(`{"total_issues":1,"top_violations":[`)
		for i := range 5000 {
			fmt.Fprintf(&b, `{"id":"r%d","description":"%s","count":1},`, i, strings.Repeat("d", 300))
		}
		b.WriteString(`{}],"base_urls":[`)
		for i := range 1500 {
			fmt.Fprintf(&b, `{"base_url":"https://a.example/%d/%s","organisation":"o","pages":1},`, i, strings.Repeat("p", 1000))
		}
		b.WriteString(`{}]}`)
		plant(t, dir, results.SummaryFile, b.String())
		out, errText := h.callBounded("cwac_get_summary", map[string]any{"scan_id": scan})
		note, _ := out["note"].(string)
		tops, _ := out["top_violations"].([]any)
		if errText != "" || out["source"] != "summary.json" || len(tops) != maxSummaryViolations ||
			!strings.Contains(note, "10 of 5001 top violations") || !strings.Contains(note, "To fit the answer's size limit") {
			t.Errorf("error %q, %d top violations, note %q", errText, len(tops), note)
		}
	})
	t.Run("row_index.json of {}", func(t *testing.T) {
		plant(t, dir, results.RowIndexFile, `{"version":1,"every":1024,"files":[{"file":"axe_core_audit.csv","size":1,"checkpoints":[`+
			strings.Repeat("{},", (results.MaxRowIndexBytes-200)/3)+`{}]}]}`)
		out, errText := h.callBounded("cwac_get_results", map[string]any{"scan_id": scan, "audit_type": "axe_core_audit", "limit": 5})
		if rows, _ := out["results"].([]any); errText != "" || len(rows) != 5 {
			t.Errorf("answer %v, error %q: want 5 rows read without the index", out, errText)
		}
	})
	t.Run("diff.json by_rule of {}", func(t *testing.T) {
		plant(t, dir, results.DiffFile, `{"format":"`+diff.Format+`","baseline":"`+strings.TrimSuffix(scan, "-next")+`","by_rule":[`+
			strings.Repeat("{},", (16<<20)/3)+`{}],"rows":[]}`)
		out, errText := h.callBounded("cwac_compare_scans", map[string]any{"scan_id": scan})
		note, _ := out["note"].(string)
		if errText != "" || out["source"] != "results" || !strings.Contains(note, "diff.json could not be used") {
			t.Errorf("answer %v, error %q: want a comparison from the CSVs, saying why", out, errText)
		}
		plant(t, dir, results.DiffFile, `{"format":"`+diff.Format+`","baseline":"`+strings.TrimSuffix(scan, "-next")+`","counts":{"by_organisation":`+
			strings.Repeat("[", 7)+strings.Repeat("]", 7)+`},"rows":[]}`)
		out, errText = h.callBounded("cwac_compare_scans", map[string]any{"scan_id": scan})
		if note, _ = out["note"].(string); errText != "" || !strings.Contains(note, "nest deeper than the limit of 6 levels") {
			t.Errorf("answer %v, error %q: want the depth limit named", out, errText)
		}
	})
	t.Run("a CSV of 40,000 distinct rule ids", func(t *testing.T) {
		f, err := os.OpenFile(filepath.Join(dir, "axe_core_audit.csv"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 40_000 {
			if _, err := fmt.Fprintf(f, "O,S,T,https://a.example/,https://a.example/%d,\"{'width': 320, 'height': 450}\",1_small,1,AxeCoreAudit,%010x,%s,/e%d,1,"+
				"help %s,https://h.example/,rule-%d,serious,<p>%s</p>,\"['wcag2aa']\",No\n",
				i%500, i, strings.Repeat("d", 300), i, strings.Repeat("h", 100), i, strings.Repeat("x", 150)); err != nil {
				t.Fatal(err)
			}
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		out, errText := h.callBounded("cwac_generate_report", map[string]any{"scan_id": scan, "regenerate": true})
		if errText != "" || out["generated"] != true {
			t.Errorf("answer %v, error %q", out, errText)
		}
		out, errText = h.callBounded("cwac_get_summary", map[string]any{"scan_id": scan, "recompute": true})
		if tops, _ := out["top_violations"].([]any); errText != "" || len(tops) != maxSummaryViolations {
			t.Errorf("recomputed summary: %v, error %q", out, errText)
		}
	})
}
