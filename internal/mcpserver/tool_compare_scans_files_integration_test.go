//go:build integration

package mcpserver

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// inflate adds n copies of the first issue row of dir's axe audit, each on
// a page of its own: results large enough to be compared in parts.
func inflate(t *testing.T, dir string, n int) {
	t.Helper()
	path := filepath.Join(dir, "axe_core_audit.csv")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	_ = f.Close()
	if err != nil {
		t.Fatal(err)
	}
	url := slices.Index(rows[0], "url")
	out, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	w := csv.NewWriter(out)
	row := slices.Clone(rows[1])
	for i := range n {
		row[url] = fmt.Sprintf("%sbulk-%d", rows[1][url], i)
		if err := w.Write(row); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestCompareScansInFiles: with a compare directory, scans too large to
// compare in one part are compared in files there and answer as the
// comparison in memory does, leaving nothing behind; the directory is what
// they need (gone, the comparison fails and says so). A directory the
// server cannot write in is refused at start.
func TestCompareScansInFiles(t *testing.T) {
	dir := t.TempDir()
	h, base, scan, scanDir := compareFixture(t, func(c *Config) { c.CompareDir = dir })
	const bulk = 40_000 // about 28 MB of CSV a side: two parts
	inflate(t, filepath.Join(h.root, getScanObj(t, h.ns, base).Status.ResultsPath), bulk)
	inflate(t, scanDir, bulk)
	inMemory := connectHarness(t, h.ns, func(c *Config) { c.ResultsRoot = h.root })

	for _, args := range []map[string]any{
		{"scan_id": scan},
		{"scan_id": scan, "change": "fixed"},
		{"scan_id": scan, "change": "unchanged", "limit": 5, "offset": 20_000},
	} {
		got, want := h.mustCall("cwac_compare_scans", args), inMemory.mustCall("cwac_compare_scans", args)
		if counts, _ := got["counts"].(map[string]any); counts["unchanged"] != float64(15+bulk) || counts["fixed"] != 2.0 {
			t.Errorf("%v: counts %v, want %d unchanged and 2 fixed", args, got["counts"], 15+bulk)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%v: compared in files %v\nin memory %v", args, got, want)
		}
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
		t.Errorf("the compare directory holds %d files after the calls (%v)", len(entries), err)
	}

	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if _, msg := h.call("cwac_compare_scans", map[string]any{"scan_id": scan}); !strings.Contains(msg, "a file to compare in") {
		t.Errorf("compared without its directory: %q, want the comparison to say it has no file to compare in", msg)
	}
	if _, err := New(Config{Client: k8s, Namespace: h.ns, ResultsRoot: h.root, CompareDir: dir}); err == nil ||
		!strings.Contains(err.Error(), "cannot hold scratch files") {
		t.Errorf("a compare directory that is gone: %v", err)
	}
}
