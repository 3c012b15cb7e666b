package results_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/a11y-dev/cwac-operator/internal/results"
)

// twoRealShards makes two shards from the real scan (its 4 pages each;
// shard 1's site relabelled) with their screenshots and logs.
func twoRealShards(t *testing.T, root string) []string {
	t.Helper()
	dirs := []string{"shards/0/2026-11-22_10-00-00_test", "shards/1/2026-11-22_10-00-01_test"}
	relabel := strings.NewReplacer(realBaseURL, "http://other.example/", realOrg, "Other Org")
	for i, d := range dirs {
		dir := filepath.Join(root, d)
		must(t, os.CopyFS(dir, os.DirFS(realScan)))
		if i == 0 {
			continue
		}
		entries, err := os.ReadDir(dir)
		must(t, err)
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".csv") {
				data, err := os.ReadFile(filepath.Join(dir, e.Name()))
				must(t, err)
				must(t, os.WriteFile(filepath.Join(dir, e.Name()), []byte(relabel.Replace(string(data))), 0o644))
			}
		}
	}
	return dirs
}

// rowMaps reads a merged CSV's rows as maps.
func rowMaps(t *testing.T, path string) []map[string]string {
	t.Helper()
	var rows []map[string]string
	must(t, results.EachRow(path, func(_ *results.Reader, row results.Row) error {
		rows = append(rows, row.Map())
		return nil
	}))
	return rows
}

// TestMergeShardsPageIDs: shard 1's page numbers follow shard 0's in
// every CSV, a row's audit_id still begins with its page_id, its
// screenshot is in the merged screenshots/ under the new name with the
// shard's image, nothing else of a row changes, and shards.json lists the
// shards' directories, offsets and logs.
func TestMergeShardsPageIDs(t *testing.T) {
	root := t.TempDir()
	dirs := twoRealShards(t, root)
	files, err := results.MergeShards(context.Background(), openRoot(t, root), "merged", dirs)
	must(t, err)
	merged := filepath.Join(root, "merged")
	for _, name := range files {
		rows := rowMaps(t, filepath.Join(merged, name))
		orig0 := rowMaps(t, filepath.Join(root, dirs[0], name))
		orig1 := rowMaps(t, filepath.Join(root, dirs[1], name))
		if len(rows) != len(orig0)+len(orig1) {
			t.Fatalf("%s: %d rows, want %d", name, len(rows), len(orig0)+len(orig1))
		}
		for i, row := range rows {
			want, offset := orig0, 0
			if i >= len(orig0) {
				want, offset, i = orig1, 4, i-len(orig0)
			}
			for col, v := range want[i] {
				w := v
				switch col {
				case "page_id":
					n, err := strconv.Atoi(v)
					must(t, err)
					w = strconv.Itoa(n + offset)
				case "audit_id", "screenshot":
					id, rest, _ := strings.Cut(v, "_")
					n, err := strconv.Atoi(id)
					must(t, err)
					w = strconv.Itoa(n+offset) + "_" + rest
				}
				if row[col] != w {
					t.Errorf("%s row %d %s = %q, want %q", name, i, col, row[col], w)
				}
			}
			if id, ok := row["audit_id"]; ok && !strings.HasPrefix(id, row["page_id"]+"_") {
				t.Errorf("%s: audit_id %q is not page %q's", name, id, row["page_id"])
			}
		}
	}
	if got := rowMaps(t, filepath.Join(merged, "title_audit.csv")); got[8]["audit_id"] != "5_small" || got[15]["page_id"] != "8" {
		t.Errorf("shard 1's first title row = %v, last = %v", got[8], got[15])
	}
	for _, shot := range []struct{ merged, shard string }{
		{"1_small.png", dirs[0] + "/screenshots/1_small.png"}, {"5_small.png", dirs[1] + "/screenshots/1_small.png"},
		{"8_medium.png", dirs[1] + "/screenshots/4_medium.png"},
	} {
		got, err := os.ReadFile(filepath.Join(merged, "screenshots", shot.merged))
		must(t, err)
		want, err := os.ReadFile(filepath.Join(root, shot.shard))
		must(t, err)
		if !bytes.Equal(got, want) {
			t.Errorf("screenshots/%s is not %s", shot.merged, shot.shard)
		}
	}
	if shots, err := os.ReadDir(filepath.Join(merged, "screenshots")); err != nil || len(shots) != 16 {
		t.Errorf("merged screenshots: %d (%v), want 16", len(shots), err)
	}
	f, err := os.Open(filepath.Join(merged, results.ShardsFile))
	must(t, err)
	defer func() { _ = f.Close() }()
	data, err := io.ReadAll(f)
	must(t, err)
	var listed struct{ Shards []results.MergedShard }
	must(t, json.Unmarshal(data, &listed))
	want := []results.MergedShard{
		{ResultsDir: dirs[0], PageIDOffset: 0, HighestPageID: 4, Logs: []string{"2026-11-21_23-18-23_real-scan-1.log", "chromedriver.log"}, Screenshots: 8},
		{ResultsDir: dirs[1], PageIDOffset: 4, HighestPageID: 4, Logs: []string{"2026-11-21_23-18-23_real-scan-1.log", "chromedriver.log"}, Screenshots: 8},
	}
	if d := cmp.Diff(want, listed.Shards); d != "" {
		t.Errorf("%s (-want +got):\n%s", results.ShardsFile, d)
	}
}

// A screenshot that is a link, or not a .png, is neither followed nor linked.
func TestMergeShardsScreenshotsSkipLinks(t *testing.T) {
	root := t.TempDir()
	dirs := twoRealShards(t, root)
	shots := filepath.Join(root, dirs[1], "screenshots")
	must(t, os.Symlink("/etc/passwd", filepath.Join(shots, "9_small.png")))
	must(t, os.WriteFile(filepath.Join(shots, "notes.txt"), []byte("x"), 0o644))
	_, err := results.MergeShards(context.Background(), openRoot(t, root), "merged", dirs)
	must(t, err)
	for _, name := range []string{"13_small.png", "notes.txt"} {
		if _, err := os.Lstat(filepath.Join(root, "merged", "screenshots", name)); err == nil {
			t.Errorf("merged screenshots/%s exists", name)
		}
	}
}
