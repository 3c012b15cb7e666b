package results

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/a11y-dev/cwac-operator/internal/jsonlimit"
)

// pagingFS is a results directory whose rows are numbered in their "n"
// column, with every impact and issue class, quoted multi-line cells, empty
// lines and a file without num_issues.
func pagingFS() fstest.MapFS {
	impacts := []string{"critical", "Serious", "moderate", "minor", "", "unknown"}
	var a strings.Builder
	a.WriteString("\xef\xbb\xbfn,impact,num_issues,html\r\n")
	for i := range 2600 {
		issues := []string{"1", "0", "", " 2 "}[i%4]
		html := "<p>x</p>"
		if i%7 == 0 {
			html = "\"<p>\nline, \"\"two\"\"</p>\""
		}
		fmt.Fprintf(&a, "%d,%s,%s,%s\r\n", i, impacts[i%len(impacts)], issues, html)
		if i%500 == 0 {
			a.WriteString("\r\n") // an empty line, skipped by CSV readers
		}
	}
	var b strings.Builder
	b.WriteString("n,impact\n")
	for i := range 300 {
		fmt.Fprintf(&b, "b%d,%s\n", i, impacts[i%len(impacts)])
	}
	return fstest.MapFS{
		"a_audit.csv": {Data: []byte(a.String())},
		"b_audit.csv": {Data: []byte(b.String())},
		"empty.csv":   {Data: []byte("n,impact,num_issues\n")},
	}
}

func buildIndex(t testing.TB, fsys fstest.MapFS, every int64) *RowIndex {
	t.Helper()
	b := NewIndexBuilder(every)
	if err := Walk(context.Background(), fsys, b); err != nil {
		t.Fatal(err)
	}
	data, err := b.Index().Marshal()
	if err != nil {
		t.Fatal(err)
	}
	x, err := ParseRowIndex(data) // what the server reads back must validate
	if err != nil {
		t.Fatalf("the builder's own index is refused: %v", err)
	}
	return x
}

func pageOf(t *testing.T, fsys fstest.MapFS, req PageRequest) ([]string, PageResult) {
	t.Helper()
	var got []string
	req.Keep = func(file string, _ *Reader, row Row) bool { got = append(got, file+":"+row.Get("n")); return true }
	res, err := ReadPage(context.Background(), fsys, req)
	if err != nil {
		t.Fatal(err)
	}
	return got, res
}

// An indexed page is the same page as one read from the start, with the
// exact total.
func TestReadPageWithAndWithoutIndex(t *testing.T) {
	fsys := pagingFS()
	files := []string{"a_audit.csv", "b_audit.csv", "empty.csv"}
	index := buildIndex(t, fsys, 64)
	filters := []RowFilter{{}, {IssuesOnly: true}, {Impact: "serious"}, {Impact: "critical", IssuesOnly: true}, {Impact: "minor"}}
	for _, f := range filters {
		// The reference: every matching row, counted by reading all.
		all, full := pageOf(t, fsys, PageRequest{Files: files, Filter: f, Limit: 1 << 40})
		if !full.Exact || full.Indexed || int64(len(all)) != full.Total {
			t.Fatalf("%+v: full read %+v of %d rows", f, full, len(all))
		}
		n := int64(len(all))
		pages := []struct{ offset, limit int64 }{{0, 100}, {63, 2}, {64, 64}, {1000, 100}, {n - 3, 10}, {n, 5}, {n + 9, 5}}
		for _, p := range pages {
			t.Run(fmt.Sprintf("%+v/offset=%d,limit=%d", f, p.offset, p.limit), func(t *testing.T) {
				lo, hi := min(p.offset, int64(len(all))), min(p.offset+p.limit, int64(len(all)))
				want := all[lo:hi]
				got, res := pageOf(t, fsys, PageRequest{Files: files, Filter: f, Offset: p.offset, Limit: p.limit, Index: index})
				if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("indexed page (-want +got):\n%s", diff)
				}
				if res != (PageResult{Total: full.Total, Exact: true, Indexed: true}) {
					t.Errorf("indexed result %+v, want exact total %d", res, full.Total)
				}
				got, res = pageOf(t, fsys, PageRequest{Files: files, Filter: f, Offset: p.offset, Limit: p.limit})
				if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("unindexed page (-want +got):\n%s", diff)
				}
				if res != (PageResult{Total: full.Total, Exact: true}) { // within CountAheadRows of the end
					t.Errorf("unindexed result %+v, want exact total %d", res, full.Total)
				}
			})
		}
	}
}

// A file that changed size since it was indexed is read from the start.
func TestReadPageIgnoresStaleIndex(t *testing.T) {
	fsys := pagingFS()
	index := buildIndex(t, fsys, 64)
	fsys["b_audit.csv"].Data = append(fsys["b_audit.csv"].Data, "b300,minor\n"...)
	got, res := pageOf(t, fsys, PageRequest{Files: []string{"b_audit.csv"}, Limit: 1000, Index: index})
	if res.Indexed || res.Total != 301 || len(got) != 301 {
		t.Errorf("stale index used: %+v, %d rows", res, len(got))
	}
}

func TestBuiltIndexRecordsSizes(t *testing.T) {
	fsys := pagingFS()
	index := buildIndex(t, fsys, DefaultIndexEvery)
	for name, f := range fsys {
		e := index.Lookup(name)
		if e == nil || e.Size != int64(len(f.Data)) {
			t.Errorf("%s: entry %+v, want size %d", name, e, len(f.Data))
		}
	}
	if got := index.Lookup("a_audit.csv"); len(got.Checkpoints) != 3 { // 2600 rows, every 1024
		t.Errorf("checkpoints = %d, want 3", len(got.Checkpoints))
	}
}

func TestParseRowIndexRefuses(t *testing.T) {
	cp := func(o int64, before int64) string {
		return fmt.Sprintf(`{"o":%d,"b":[%d,0,0,0,0,0,0,0,0,0]}`, o, before)
	}
	file := func(name string, size, rows int64, cps ...string) string {
		return fmt.Sprintf(`{"version":1,"every":2,"files":[{"file":%q,"size":%d,"counts":[%d,0,0,0,0,0,0,0,0,0],"checkpoints":[%s]}]}`,
			name, size, rows, strings.Join(cps, ","))
	}
	tests := []struct{ name, in, want string }{
		{"valid", file("a.csv", 100, 3, cp(10, 0), cp(20, 2)), ""},
		{"not JSON", "{", "unexpected end"},
		{"another version", `{"version":2,"every":2,"files":[]}`, "version 2, this reader knows 1"},
		{"every zero", `{"version":1,"every":0,"files":[]}`, "every 0 is not 1-1048576"},
		{"a path", file("../a.csv", 100, 0), "not a CSV name"},
		{"a subdirectory", file("x/a.csv", 100, 0), "not a CSV name"},
		{"not a CSV", file("a.json", 100, 0), "not a CSV name"},
		{"negative count", file("a.csv", 100, -1), "class 0 count -1 is not"},
		{"huge count", file("a.csv", 100, 1<<41), "is not 0-"},
		{"too few checkpoints", file("a.csv", 100, 3, cp(10, 0)), "1 checkpoints for 3 rows every 2, want 2"},
		{"offsets going back", file("a.csv", 100, 3, cp(20, 0), cp(10, 2)), "offset 10 is not after 20"},
		{"offset past the file", file("a.csv", 100, 3, cp(10, 0), cp(100, 2)), "before the size 100"},
		{"wrong count before", file("a.csv", 100, 3, cp(10, 0), cp(20, 1)), "counts 1 rows before it, want 2"},
		{"listed twice", `{"version":1,"every":1,"files":[{"file":"a.csv","size":1,"checkpoints":[]},{"file":"a.csv","size":1}]}`, "listed twice"},
		{"too large", strings.Repeat(" ", MaxRowIndexBytes+1), "more than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseRowIndex([]byte(tt.in))
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
			if err != nil && !strings.HasPrefix(err.Error(), RowIndexFile+": ") {
				t.Errorf("err = %v, want it to name %s", err, RowIndexFile)
			}
		})
	}
}

// FuzzRowIndex: whatever index the volume holds, parsing it either fails or
// yields one that pages through the real files without erring, looping or
// keeping more than the limit. A valid but lying index may misplace a page;
// it may never make a read leave the file.
func FuzzRowIndex(f *testing.F) {
	fsys := pagingFS()
	good, err := buildIndex(f, fsys, 512).Marshal() // small: the fuzzer minimises what it finds
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good, int64(100), false)
	f.Add([]byte(`{"version":1,"every":1,"files":[{"file":"b_audit.csv","size":9,"counts":[1],"checkpoints":[{"o":8}]}]}`), int64(0), true)
	files := []string{"a_audit.csv", "b_audit.csv", "empty.csv"}
	f.Fuzz(func(t *testing.T, data []byte, offset int64, issuesOnly bool) {
		// The memory bound: parsing allocates within a small multiple of
		// the budget's decoded-size estimate, whatever the file.
		c := jsonlimit.New(RowIndexLimits)
		_, _ = c.Write(data)
		_, _ = ParseRowIndex(data) // once first: encoding/json caches what it learns of the types
		var x *RowIndex
		var err error
		if got, bound := measureAlloc(func() { x, err = ParseRowIndex(data) }), uint64(4*c.Decoded()+16<<10); got > bound {
			t.Fatalf("parsing allocated %d bytes, more than %d (4× the estimate %d plus 16 KiB)", got, bound, c.Decoded())
		}
		if err != nil {
			return
		}
		if offset < 0 {
			offset = -offset
		}
		kept := 0
		_, _ = ReadPage(context.Background(), fsys, PageRequest{
			Files: files, Filter: RowFilter{IssuesOnly: issuesOnly}, Offset: offset % 4000, Limit: 50, Index: x,
			Keep: func(string, *Reader, Row) bool { kept++; return true },
		})
		if kept > 50 {
			t.Fatalf("kept %d rows, limit 50", kept)
		}
	})
}

// Without an index the read stops CountAheadRows rows past the page and
// says the total is a lower bound.
func TestReadPageCountsAheadBoundedly(t *testing.T) {
	var b strings.Builder
	b.WriteString("n,impact\n")
	rows := int64(CountAheadRows + 500)
	for i := range rows {
		fmt.Fprintf(&b, "%d,%s\n", i, []string{"critical", "minor"}[i%2])
	}
	fsys := fstest.MapFS{"a.csv": {Data: []byte(b.String())}}
	tests := []struct {
		name   string
		offset int64
		filter RowFilter
		want   PageResult
	}{
		{name: "far from the end", want: PageResult{Total: 10 + 1 + CountAheadRows}}, // the page, the row past it, the rows ahead
		{name: "far from the end, filtered", filter: RowFilter{Impact: "minor"}, want: PageResult{Total: 10 + 1 + CountAheadRows/2}},
		{name: "near the end", offset: 600, want: PageResult{Total: rows, Exact: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, res := pageOf(t, fsys, PageRequest{Files: []string{"a.csv"}, Filter: tt.filter, Offset: tt.offset, Limit: 10})
			if len(got) != 10 || res != tt.want {
				t.Errorf("%d rows, %+v; want 10 rows, %+v", len(got), res, tt.want)
			}
		})
	}
}
