package results_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/a11y-dev/cwac-operator/internal/cwacconfig"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/shard"
)

const realScan = "../../testdata/cwac-results/2026-11-21_23-18-23_real-scan-1"

// The real scan's one site, which the test relabels as many sites.
const (
	realBaseURL = "http://127.0.0.1:8765/"
	realOrg     = "CWAC Test Org"
	realSector  = "Test Sector"
)

// testSites are sites of several organisations, one larger than a shard's
// share when split in 3 or 4 (so it is cut), in an order that is not the
// organisations'.
func testSites() []cwacconfig.Site {
	var sites []cwacconfig.Site
	add := func(org string, n int) {
		for range n {
			sites = append(sites, cwacconfig.Site{
				Organisation: org, Sector: "Sector of " + org,
				URL: fmt.Sprintf("https://%s-%d.example.govt.nz/", strings.ToLower(strings.ReplaceAll(org, " ", "-")), len(sites)),
			})
		}
	}
	add("Ministry A", 5)
	add("Council B", 2)
	add("Agency C", 1)
	add("Ministry A", 1) // A again, after others
	add("Department D", 3)
	add("Office E", 1)
	return sites
}

// Sites that behave unlike the others, by index in testSites: CWAC could
// not reach one (number_of_pages 0, no rows), and skipped another before
// listing it at all (only_allow_https).
const (
	unreachableSite = 6
	unlistedSite    = 11
)

// rawRows reads a CSV's header bytes and each row's bytes (as they are in
// the file, line breaks included) with the row's base URL.
func rawRows(t *testing.T, data []byte) (header []byte, rows [][]byte, baseURLs []string) {
	t.Helper()
	r, err := results.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	col := r.Column("base_url")
	if col < 0 {
		t.Fatalf("no base_url column in %q", r.Header())
	}
	for {
		row, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, data[r.RowOffset():r.Offset()])
		baseURLs = append(baseURLs, row.Field(col))
	}
	return data[:r.HeaderEnd()], rows, baseURLs
}

// writeUnsplit makes one run's results over sites from the real scan's:
// each site gets the real rows relabelled as its own, some of them left
// out so that the sites (and the rules' counts) differ.
func writeUnsplit(t *testing.T, dir string, sites []cwacconfig.Site) {
	t.Helper()
	must(t, os.MkdirAll(dir, 0o755))
	entries, err := os.ReadDir(realScan)
	must(t, err)
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".csv") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(realScan, e.Name()))
		must(t, err)
		if e.Name() == results.ProgressFile {
			must(t, os.WriteFile(filepath.Join(dir, e.Name()), data, 0o644))
			continue
		}
		header, rows, _ := rawRows(t, data)
		out := slices.Clone(header)
		for k, s := range sites {
			if k == unlistedSite {
				continue
			}
			relabel := strings.NewReplacer(realBaseURL, s.URL, realOrg, s.Organisation, realSector, s.Sector)
			for j, row := range rows {
				switch {
				case e.Name() == results.PagesScannedFile && k == unreachableSite:
					out = append(out, relabel.Replace(strings.Replace(string(row), ",4,", ",0,", 1))...)
				case e.Name() == results.PagesScannedFile || (k != unreachableSite && (j+k)%(k%3+1) == 0):
					out = append(out, relabel.Replace(string(row))...)
				}
			}
		}
		must(t, os.WriteFile(filepath.Join(dir, e.Name()), out, 0o644))
	}
}

// writeShards splits the unsplit results' rows between shard directories
// as shard.Split assigns their sites, keeping each file's header (shard 1's
// without its byte-order mark), and returns the directories relative to
// root. A shard with no rows for a file has no such file, but shard 0,
// which always has every file; every shard also has the files a merge
// must leave alone.
func writeShards(t *testing.T, root, unsplit string, sites []cwacconfig.Site, n int) []string {
	t.Helper()
	split := shard.Split(sites, n)
	shardOf := map[string]int{}
	dirs := make([]string, 0, len(split))
	for i, part := range split {
		for _, s := range part {
			shardOf[s.URL] = i
		}
		dirs = append(dirs, filepath.Join("shards", fmt.Sprint(i), "2026-11-22_10-00-00_test"))
		must(t, os.MkdirAll(filepath.Join(root, dirs[i]), 0o755))
		for name, data := range map[string]string{
			results.ProgressFile: "\ufefftime,iteration\r\n1,1\r\n", results.LeaderboardFile: "organisation,score\r\nX,1\r\n",
			"config.json": "{}", "2026-11-22_10-00-00_test.log": "log\n",
		} {
			must(t, os.WriteFile(filepath.Join(root, dirs[i], name), []byte(data), 0o644))
		}
	}
	entries, err := os.ReadDir(unsplit)
	must(t, err)
	for _, e := range entries {
		if e.Name() == results.ProgressFile {
			continue
		}
		data, err := os.ReadFile(filepath.Join(unsplit, e.Name()))
		must(t, err)
		header, rows, baseURLs := rawRows(t, data)
		parts := make([][]byte, len(split))
		for j, row := range rows {
			parts[shardOf[baseURLs[j]]] = append(parts[shardOf[baseURLs[j]]], row...)
		}
		for i, part := range parts {
			if part == nil && i > 0 {
				continue
			}
			h := header
			if i == 1 {
				h = bytes.TrimPrefix(h, []byte("\ufeff"))
			}
			must(t, os.WriteFile(filepath.Join(root, dirs[i], e.Name()), append(slices.Clone(h), part...), 0o644))
		}
	}
	return dirs
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func openRoot(t *testing.T, dir string) *os.Root {
	t.Helper()
	root, err := os.OpenRoot(dir)
	must(t, err)
	t.Cleanup(func() { _ = root.Close() })
	return root
}

// TestMergeShardsSummaryEqualsUnsplit is the merge's test of record: the
// results of one run over many organisations' sites, split by site as
// shard.Split assigns them into 2, 3 and 4 shards and merged again, give
// the same summary as the one run.
func TestMergeShardsSummaryEqualsUnsplit(t *testing.T) {
	sites := testSites()
	expected := make([]string, 0, len(sites))
	for _, s := range sites {
		expected = append(expected, s.URL)
	}
	opts := results.Options{ExpectedBaseURLs: expected, Duration: 42}
	tmp := t.TempDir()
	unsplit := filepath.Join(tmp, "unsplit")
	writeUnsplit(t, unsplit, sites)
	want, err := results.Summarize(unsplit, opts)
	must(t, err)
	if want.TotalIssues == 0 || len(want.TopViolations) < 5 || want.UnexpectedResponses == 0 || len(want.UnscannedBaseURLs) != 2 ||
		len(want.Informational) == 0 || want.URLsScanned < 20 {
		t.Fatalf("the unsplit results are too thin to prove anything: %+v", want)
	}
	for _, n := range []int{2, 3, 4} {
		t.Run(fmt.Sprintf("%d shards", n), func(t *testing.T) {
			dir := filepath.Join(tmp, fmt.Sprint(n))
			shards := writeShards(t, dir, unsplit, sites, n)
			if len(shards) != n {
				t.Fatalf("%d shards, want %d", len(shards), n)
			}
			files, err := results.MergeShards(context.Background(), openRoot(t, dir), "merged", shards)
			must(t, err)
			wantFiles, err := results.WalkFiles(os.DirFS(unsplit))
			must(t, err)
			if !slices.Equal(files, wantFiles) {
				t.Errorf("merged %v, want %v", files, wantFiles)
			}
			got, err := results.Summarize(filepath.Join(dir, "merged"), opts)
			must(t, err)
			// pages_scanned.csv lists base URLs in the order of the shards'
			// rows, and Summary keeps that order: the same base URLs in
			// another order (see sortBaseURLs).
			sortBaseURLs(got)
			sortBaseURLs(want)
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("merged summary differs from the unsplit one (-unsplit +merged):\n%s", d)
			}
			left, err := os.ReadDir(filepath.Join(dir, "merged"))
			must(t, err)
			if len(left) != len(wantFiles)+1 {
				t.Errorf("the merged directory holds %d entries, want only the %d CSVs and %s: %v", len(left), len(wantFiles), results.ShardsFile, left)
			}
		})
	}
}

// sortBaseURLs orders what Summary lists in the order of pages_scanned.csv's rows.
func sortBaseURLs(s *results.Summary) {
	s.BaseURLs = slices.Clone(s.BaseURLs)
	slices.SortFunc(s.BaseURLs, func(a, b results.BaseURLPages) int { return strings.Compare(a.BaseURL, b.BaseURL) })
	s.UnscannedBaseURLs = slices.Sorted(slices.Values(s.UnscannedBaseURLs))
}

const (
	bomHeader = "\ufeffa,b\r\n"
	hdr       = "a,b\r\n"
)

// TestMergeShardsFiles: how one file's parts join, byte for byte.
func TestMergeShardsFiles(t *testing.T) {
	tests := []struct {
		name    string
		shards  []map[string]string // file name → content, per shard
		want    map[string]string   // merged file → content
		wantErr []string
	}{
		{
			name:   "BOM and header once, rows in shard order",
			shards: []map[string]string{{"x.csv": bomHeader + "1,2\r\n"}, {"x.csv": bomHeader + "3,4\r\n5,6\r\n"}, {"x.csv": bomHeader + "7,8\r\n"}},
			want:   map[string]string{"x.csv": bomHeader + "1,2\r\n3,4\r\n5,6\r\n7,8\r\n"},
		},
		{
			name:   "a later shard without the byte-order mark",
			shards: []map[string]string{{"x.csv": bomHeader + "1,2\r\n"}, {"x.csv": hdr + "3,4\r\n"}},
			want:   map[string]string{"x.csv": bomHeader + "1,2\r\n3,4\r\n"},
		},
		{
			name:   "the first shard without it: the merged file has none",
			shards: []map[string]string{{"x.csv": hdr + "1,2\r\n"}, {"x.csv": bomHeader + "3,4\r\n"}},
			want:   map[string]string{"x.csv": hdr + "1,2\r\n3,4\r\n"},
		},
		{
			name:   "CRLF and LF shards: each row's bytes kept",
			shards: []map[string]string{{"x.csv": bomHeader + "1,2\r\n"}, {"x.csv": "\ufeffa,b\n3,4\n"}},
			want:   map[string]string{"x.csv": bomHeader + "1,2\r\n3,4\n"},
		},
		{
			name: "quoted cells with line breaks, quotes and commas pass untouched",
			shards: []map[string]string{
				{"x.csv": bomHeader + "\"<p>\r\n  one\r\n</p>\",\"say \"\"hi\"\", ok\"\r\n"},
				{"x.csv": bomHeader + "\"two\nlines\",\"a,b\"\r\n"},
			},
			want: map[string]string{"x.csv": bomHeader + "\"<p>\r\n  one\r\n</p>\",\"say \"\"hi\"\", ok\"\r\n\"two\nlines\",\"a,b\"\r\n"},
		},
		{
			name:   "a quoted header is the same header",
			shards: []map[string]string{{"x.csv": bomHeader + "1,2\r\n"}, {"x.csv": "\"a\",\"b\"\r\n3,4\r\n"}},
			want:   map[string]string{"x.csv": bomHeader + "1,2\r\n3,4\r\n"},
		},
		{
			name:   "empty and BOM-only files add nothing; the next file with a header comes whole",
			shards: []map[string]string{{"x.csv": ""}, {"x.csv": "\ufeff"}, {"x.csv": bomHeader + "3,4\r\n"}, {"x.csv": ""}},
			want:   map[string]string{"x.csv": bomHeader + "3,4\r\n"},
		},
		{
			name:   "every part empty: an empty file",
			shards: []map[string]string{{"x.csv": ""}, {"x.csv": ""}},
			want:   map[string]string{"x.csv": ""},
		},
		{
			name:   "header-only files: the header once",
			shards: []map[string]string{{"x.csv": bomHeader}, {"x.csv": bomHeader}, {"x.csv": bomHeader + "1,2\r\n"}, {"x.csv": hdr}},
			want:   map[string]string{"x.csv": bomHeader + "1,2\r\n"},
		},
		{
			name:   "shards lacking a file, and an empty shard",
			shards: []map[string]string{{"x.csv": bomHeader + "1,2\r\n"}, {}, {"y.csv": "\ufeffc\r\n9\r\n"}},
			want:   map[string]string{"x.csv": bomHeader + "1,2\r\n", "y.csv": "\ufeffc\r\n9\r\n"},
		},
		{
			name:   "no shards' files at all",
			shards: []map[string]string{{}, {}},
			want:   map[string]string{},
		},
		{
			name:   "a part without a final line ending gets the header's",
			shards: []map[string]string{{"x.csv": bomHeader + "1,2"}, {"x.csv": "\ufeffa,b\n3,4"}, {"x.csv": bomHeader + "5,6\r\n"}},
			want:   map[string]string{"x.csv": bomHeader + "1,2\r\n3,4\r\n5,6\r\n"},
		},
		{
			name:   "a header without a line ending, then rows",
			shards: []map[string]string{{"x.csv": "a,b"}, {"x.csv": "a,b\n1,2\n"}},
			want:   map[string]string{"x.csv": "a,b\r\n1,2\n"},
		},
		{
			name:   "a part ending in a bare carriage return",
			shards: []map[string]string{{"x.csv": "a,b\r\n1,2\r"}, {"x.csv": "a,b\r\n3,4\r\n"}},
			want:   map[string]string{"x.csv": "a,b\r\n1,2\r\n3,4\r\n"},
		},
		{
			name:   "an LF header: a part without a final line ending gets \\n",
			shards: []map[string]string{{"x.csv": "a,b\n1,2"}, {"x.csv": "a,b\r\n3,4\r\n"}},
			want:   map[string]string{"x.csv": "a,b\n1,2\n3,4\r\n"},
		},
		{
			name:   "a one-column header of one byte, LF",
			shards: []map[string]string{{"x.csv": "a\n1"}, {"x.csv": "a\n2"}, {"x.csv": "a\n3\n"}},
			want:   map[string]string{"x.csv": "a\n1\n2\n3\n"},
		},
		{
			name:   "a one-column header of one byte, CRLF",
			shards: []map[string]string{{"x.csv": "a\r\n1"}, {"x.csv": "a\n2\n"}},
			want:   map[string]string{"x.csv": "a\r\n1\r\n2\n"},
		},
		{
			name:   "a one-byte header alone, then rows",
			shards: []map[string]string{{"x.csv": "a"}, {"x.csv": "a\n2\n"}},
			want:   map[string]string{"x.csv": "a\r\n2\n"},
		},
		{
			name:   "a header alone after a part without a final line ending adds nothing",
			shards: []map[string]string{{"x.csv": "a,b\n1,2"}, {"x.csv": "a,b\n"}, {"x.csv": "a,b"}},
			want:   map[string]string{"x.csv": "a,b\n1,2"},
		},
		{
			name: "progress.csv, our leaderboard and files that are not CSVs stay in the shards",
			shards: []map[string]string{
				{"x.csv": hdr + "1,2\r\n", "progress.csv": "time\r\n1\r\n", "leaderboard.csv": "o\r\n", "config.json": "{}", "a.log": "x", "x.CSV": "q"},
				{"progress.csv": "time\r\n2\r\n", "summary.json": "{}"},
			},
			want: map[string]string{"x.csv": hdr + "1,2\r\n"},
		},
		{
			name:    "a different header names both files",
			shards:  []map[string]string{{"x.csv": bomHeader + "1,2\r\n"}, {"x.csv": bomHeader + "1,2\r\n"}, {"x.csv": "\ufeffa,c\r\n3,4\r\n"}},
			wantErr: []string{"shards/2/x.csv", `"a,c"`, "shards/0/x.csv", `"a,b"`, "cannot be joined"},
		},
		{
			name:    "a header with a column more",
			shards:  []map[string]string{{"x.csv": hdr}, {"x.csv": "a,b,c\r\n1,2,3\r\n"}},
			wantErr: []string{"shards/1/x.csv has the columns \"a,b,c\", but shards/0/x.csv has \"a,b\""},
		},
		{
			name:    "a file cut short inside a quoted cell",
			shards:  []map[string]string{{"x.csv": hdr + "1,\"two\r\nlin"}, {"x.csv": hdr + "3,4\r\n"}},
			wantErr: []string{"shards/0/x.csv ends inside a quoted cell"},
		},
		{
			name:    "a header that cannot be read",
			shards:  []map[string]string{{"x.csv": hdr + "1,2\r\n"}, {"x.csv": "a,\"b\r\n"}},
			wantErr: []string{"shards/1/x.csv: reading CSV header"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			var shards []string
			for i, files := range tt.shards {
				d := filepath.Join("shards", fmt.Sprint(i))
				shards = append(shards, d)
				must(t, os.MkdirAll(filepath.Join(dir, d), 0o755))
				for name, content := range files {
					must(t, os.WriteFile(filepath.Join(dir, d, name), []byte(content), 0o644))
				}
			}
			files, err := results.MergeShards(context.Background(), openRoot(t, dir), "merged", shards)
			if tt.wantErr != nil {
				if err == nil {
					t.Fatalf("merged %v, want an error", files)
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not contain %q", err, w)
					}
				}
				if _, statErr := os.Stat(filepath.Join(dir, "merged")); !errors.Is(statErr, os.ErrNotExist) {
					t.Errorf("a failed merge left its directory behind: %v", statErr)
				}
				return
			}
			must(t, err)
			got := readDir(t, filepath.Join(dir, "merged"))
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("merged files (-want +got):\n%s", d)
			}
			if want := slices.Sorted(maps.Keys(tt.want)); (len(files) > 0 || len(want) > 0) && !slices.Equal(files, want) {
				t.Errorf("returned %v, want %v", files, want)
			}
		})
	}
}

func readDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	must(t, err)
	got := map[string]string{}
	for _, e := range entries {
		if e.Name() == results.ShardsFile {
			continue // TestMergeShardsPageIDs reads it
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		must(t, err)
		got[e.Name()] = string(data)
	}
	return got
}

// TestMergeShardsRefuses: what a scan pod could plant in its shard's
// directory, an existing destination, and a cancelled context.
func TestMergeShardsRefuses(t *testing.T) {
	outside := t.TempDir()
	must(t, os.WriteFile(filepath.Join(outside, "secret.csv"), []byte("a\r\nsecret\r\n"), 0o644))
	tests := []struct {
		name    string
		plant   func(t *testing.T, dir string) // dir is shard 1's
		ctx     func() context.Context
		dst     string
		wantErr string
	}{
		{
			name: "a CSV that links outside",
			plant: func(t *testing.T, dir string) {
				must(t, os.Symlink(filepath.Join(outside, "secret.csv"), filepath.Join(dir, "x.csv")))
			},
			wantErr: "x.csv is not a regular file",
		},
		{
			name:    "a CSV that links to another shard's",
			plant:   func(t *testing.T, dir string) { must(t, os.Symlink("../0/x.csv", filepath.Join(dir, "x.csv"))) },
			wantErr: "x.csv is not a regular file",
		},
		{
			name:    "a directory named like a CSV",
			plant:   func(t *testing.T, dir string) { must(t, os.Mkdir(filepath.Join(dir, "y.csv"), 0o755)) },
			wantErr: "y.csv is not a regular file",
		},
		{
			name: "a shard directory that links outside",
			plant: func(t *testing.T, dir string) {
				must(t, os.RemoveAll(dir))
				must(t, os.Symlink(outside, dir))
			},
			wantErr: "opening shard results shards/1",
		},
		{
			name:    "a destination that exists",
			dst:     "shards",
			wantErr: "creating the merged results directory",
		},
		{
			name:    "a context cancelled during a copy",
			ctx:     func() context.Context { return &cancelAfter{Context: context.Background(), calls: 2} },
			wantErr: context.Canceled.Error(),
		},
		{
			name: "a cancelled context",
			ctx: func() context.Context {
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				return ctx
			},
			wantErr: context.Canceled.Error(),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for i := range 2 {
				d := filepath.Join(dir, "shards", fmt.Sprint(i))
				must(t, os.MkdirAll(d, 0o755))
				must(t, os.WriteFile(filepath.Join(d, "z.csv"), []byte("a\r\n1\r\n"), 0o644))
			}
			must(t, os.WriteFile(filepath.Join(dir, "shards", "0", "x.csv"), []byte("a\r\n1\r\n"), 0o644))
			if tt.plant != nil {
				tt.plant(t, filepath.Join(dir, "shards", "1"))
			}
			ctx := context.Background()
			if tt.ctx != nil {
				ctx = tt.ctx()
			}
			dst := "merged"
			if tt.dst != "" {
				dst = tt.dst
			}
			_, err := results.MergeShards(ctx, openRoot(t, dir), dst, []string{"shards/0", "shards/1"})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
			if _, statErr := os.Stat(filepath.Join(dir, "merged")); !errors.Is(statErr, os.ErrNotExist) {
				t.Errorf("a failed merge left its directory behind: %v", statErr)
			}
		})
	}
}

// csvRows reads a CSV's header and rows (nil, false when it cannot be read).
func csvRows(data []byte) ([]string, [][]string, bool) {
	r, err := results.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, nil, false
	}
	header := slices.Clone(r.Header())
	var rows [][]string
	for {
		row, err := r.Next()
		if errors.Is(err, io.EOF) {
			return header, rows, true
		}
		if err != nil {
			return nil, nil, false
		}
		rows = append(rows, row.Fields())
	}
}

// FuzzMergeShards: whenever two shards' files can each be read, the merged
// file reads as the first's rows then the second's when their headers
// match, and the merge fails naming both when they do not.
func FuzzMergeShards(f *testing.F) {
	f.Add([]byte(bomHeader+"1,2\r\n"), []byte(bomHeader+"3,4\r\n"))
	f.Add([]byte(bomHeader+"\"x\r\ny\",2"), []byte("a,b\n\"3\"\"\",4\n"))
	f.Add([]byte("a,b"), []byte("\ufeff\"a\",b\r\n\r\n3,4\r"))
	f.Add([]byte(""), []byte(hdr+"1,2\r\n"))
	f.Add([]byte(hdr+"1,2\r\n"), []byte("a,c\r\n1,2\r\n"))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		dir := t.TempDir()
		for i, data := range [][]byte{a, b} {
			d := filepath.Join(dir, "shards", fmt.Sprint(i))
			must(t, os.MkdirAll(d, 0o755))
			must(t, os.WriteFile(filepath.Join(d, "x.csv"), data, 0o644))
		}
		_, err := results.MergeShards(context.Background(), openRoot(t, dir), "merged", []string{"shards/0", "shards/1"})
		empty := func(d []byte) bool { return len(d) == 0 || string(d) == "\ufeff" }
		ha, ra, okA := csvRows(a)
		hb, rb, okB := csvRows(b)
		switch {
		case empty(a) && empty(b):
			if err != nil {
				t.Fatalf("merging empty files failed: %v", err)
			}
			return
		case empty(a) || empty(b):
			other, ok := a, okA
			if empty(a) {
				other, ok = b, okB
			}
			if !ok {
				return // a file that cannot be read: the merge may fail or pass it on
			}
			merged, rerr := os.ReadFile(filepath.Join(dir, "merged", "x.csv"))
			if err != nil || rerr != nil || !bytes.Equal(merged, other) {
				t.Fatalf("merging with an empty file: err %v, %v; merged %q, want %q", err, rerr, merged, other)
			}
			return
		case !okA || !okB:
			return // a file that cannot be read: the merge may fail or pass it on
		case !slices.Equal(ha, hb):
			if err == nil || !strings.Contains(err.Error(), "shards/1/x.csv") || !strings.Contains(err.Error(), "shards/0/x.csv") {
				t.Fatalf("headers %q and %q: err = %v, want one naming both files", ha, hb, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("both files can be read with the same header, but the merge failed: %v", err)
		}
		merged, rerr := os.ReadFile(filepath.Join(dir, "merged", "x.csv"))
		must(t, rerr)
		if !bytes.HasPrefix(merged, a) {
			t.Fatalf("the merged file does not start with the first file whole:\n%q\n%q", merged, a)
		}
		hm, rm, ok := csvRows(merged)
		if !ok {
			t.Fatalf("the merged file cannot be read: %q", merged)
		}
		if d := cmp.Diff(append(ra, rb...), rm); !slices.Equal(hm, ha) || d != "" {
			t.Fatalf("merged rows (-want +got):\n%s\nheader %q, want %q\nmerged %q", d, hm, ha, merged)
		}
	})
}

// BenchmarkMergeShards joins 4 shards of 25,000 real axe rows each, beside
// the floor: the same bytes copied into one file with io.Copy.
func BenchmarkMergeShards(b *testing.B) {
	src, err := os.ReadFile(filepath.Join(realScan, "axe_core_audit.csv"))
	if err != nil {
		b.Fatal(err)
	}
	r, err := results.NewReader(bytes.NewReader(src))
	if err != nil {
		b.Fatal(err)
	}
	header, body := src[:r.HeaderEnd()], src[r.HeaderEnd():]
	dir := b.TempDir()
	shards := make([]string, 4)
	var total int64
	for i := range shards {
		shards[i] = filepath.Join("shards", fmt.Sprint(i))
		if err := os.MkdirAll(filepath.Join(dir, shards[i]), 0o755); err != nil {
			b.Fatal(err)
		}
		data := append(slices.Clone(header), bytes.Repeat(body, 25_000/14)...)
		total += int64(len(data))
		if err := os.WriteFile(filepath.Join(dir, shards[i], "axe_core_audit.csv"), data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = root.Close() }()
	b.Run("io.Copy", func(b *testing.B) {
		b.SetBytes(total)
		for b.Loop() {
			out, err := os.Create(filepath.Join(dir, "copy.csv"))
			if err != nil {
				b.Fatal(err)
			}
			for _, s := range shards {
				in, err := os.Open(filepath.Join(dir, s, "axe_core_audit.csv"))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := io.Copy(out, in); err != nil {
					b.Fatal(err)
				}
				_ = in.Close()
			}
			_ = out.Close()
			if err := os.Remove(out.Name()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("MergeShards", func(b *testing.B) {
		b.SetBytes(total)
		for b.Loop() {
			if _, err := results.MergeShards(context.Background(), root, "merged", shards); err != nil {
				b.Fatal(err)
			}
			if err := root.RemoveAll("merged"); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// cancelAfter is a context that reports itself cancelled from its calls+1st
// Err on: a cancellation that lands in the middle of a merge.
type cancelAfter struct {
	context.Context
	calls int
}

func (c *cancelAfter) Err() error {
	if c.calls <= 0 {
		return context.Canceled
	}
	c.calls--
	return nil
}
