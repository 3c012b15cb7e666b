//go:build integration

package mcpserver

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/results"
)

// A FIFO planted where CWAC's CSVs belong must not hold a thread: every
// tool that reads the file answers at once (with an error or a note), and
// after many calls no goroutine is left blocked in open().
func TestPlantedFIFOsHoldNoThread(t *testing.T) {
	h := newHarness(t)
	id := h.mustCall("cwac_scan", map[string]any{"urls": []any{"https://a.example/"}, "audit_name": "fifo"})["scan_id"].(string)
	dir := filepath.Join(h.root, h.completeScan(id))
	for _, name := range []string{results.PagesScannedFile, results.ProgressFile, "axe_core_audit.csv"} {
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(filepath.Join(dir, name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"cwac_get_summary", map[string]any{"scan_id": id, "recompute": true}},
		{"cwac_get_results", map[string]any{"scan_id": id, "audit_type": "axe_core_audit"}},
		{"cwac_get_results", map[string]any{"scan_id": id}},
		{"cwac_generate_report", map[string]any{"scan_id": id, "regenerate": true}},
	}
	before := runtime.NumGoroutine()
	for range 10 {
		for _, c := range calls {
			start := time.Now()
			_, errText := h.call(c.tool, c.args)
			if took := time.Since(start); took > time.Second {
				t.Fatalf("%s took %s with a FIFO in the results: it waited on it", c.tool, took)
			}
			if errText != "" && !strings.Contains(errText, "not a regular file") && !strings.Contains(errText, "No results file") {
				t.Errorf("%s: %s", c.tool, errText)
			}
		}
	}
	time.Sleep(100 * time.Millisecond)
	if after := runtime.NumGoroutine(); after > before+5 {
		t.Errorf("goroutines grew from %d to %d after 40 calls: handlers are stuck", before, after)
	}
}
