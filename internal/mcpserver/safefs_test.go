package mcpserver

import (
	"context"
	"errors"
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

// A read stops as soon as the call's context ends.
func TestCallFSStopsWithTheCall(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.csv"), []byte("a\n1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer closeReadOnly(root)
	ctx, cancel := context.WithCancel(context.Background())
	fsys := callFS{ctx: ctx, root: root}
	f, err := fsys.Open("a.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer closeReadOnly(f)
	cancel()
	if _, err := f.Read(make([]byte, 8)); !errors.Is(err, context.Canceled) {
		t.Errorf("read after the call ended: %v, want context.Canceled", err)
	}
	if _, err := fsys.Open("a.csv"); !errors.Is(err, context.Canceled) {
		t.Errorf("open after the call ended: %v, want context.Canceled", err)
	}
}
