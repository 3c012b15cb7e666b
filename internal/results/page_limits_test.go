package results

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// openCounting is a file system that counts the opens of each file (a
// Stat is not an open).
type openCounting struct {
	fstest.MapFS
	opens map[string]int
}

func (o *openCounting) Open(name string) (fs.File, error) {
	o.opens[name]++
	return o.MapFS.Open(name)
}

func (o *openCounting) Stat(name string) (fs.FileInfo, error) { return o.MapFS.Stat(name) }

// numbered is a CSV of rows n = prefix0 … prefix(count-1), all issues.
func numbered(prefix string, count int) []byte {
	var b strings.Builder
	b.WriteString("n,num_issues\n")
	for i := range count {
		fmt.Fprintf(&b, "%s%d,1\n", prefix, i)
	}
	return []byte(b.String())
}

// TestIndexedPageReadsOnlyWhatItNeeds: with the index, a file whose
// matching rows all lie before the page is not opened (its last row one
// before the offset, at it), and a page that ends with a file's last row
// opens no further file; the rows are those a read from the start gives.
func TestIndexedPageReadsOnlyWhatItNeeds(t *testing.T) {
	mapFS := fstest.MapFS{"a.csv": {Data: numbered("a", 5)}, "b.csv": {Data: numbered("b", 5)}, "c.csv": {Data: numbered("c", 5)}}
	index := buildIndex(t, mapFS, 2)
	files := []string{"a.csv", "b.csv", "c.csv"}
	tests := []struct {
		offset, limit int64
		want          []string
		opened        []string
	}{
		{offset: 4, limit: 1, want: []string{"a.csv:a4"}, opened: []string{"a.csv"}},
		{offset: 5, limit: 1, want: []string{"b.csv:b0"}, opened: []string{"b.csv"}},
		{offset: 6, limit: 2, want: []string{"b.csv:b1", "b.csv:b2"}, opened: []string{"b.csv"}},
		{offset: 6, limit: 4, want: []string{"b.csv:b1", "b.csv:b2", "b.csv:b3", "b.csv:b4"}, opened: []string{"b.csv"}},
		{offset: 6, limit: 5, want: []string{"b.csv:b1", "b.csv:b2", "b.csv:b3", "b.csv:b4", "c.csv:c0"}, opened: []string{"b.csv", "c.csv"}},
		{offset: 10, limit: 5, want: []string{"c.csv:c0", "c.csv:c1", "c.csv:c2", "c.csv:c3", "c.csv:c4"}, opened: []string{"c.csv"}},
		{offset: 15, limit: 5, want: nil, opened: nil},
		{offset: 0, limit: 0, want: nil, opened: []string{"a.csv"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("offset %d limit %d", tt.offset, tt.limit), func(t *testing.T) {
			fsys := &openCounting{MapFS: mapFS, opens: map[string]int{}}
			var got []string
			res, err := ReadPage(context.Background(), fsys, PageRequest{
				Files: files, Offset: tt.offset, Limit: tt.limit, Index: index,
				Keep: func(file string, _ *Reader, row Row) bool { got = append(got, file+":"+row.Get("n")); return true },
			})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("page (-want +got):\n%s", diff)
			}
			if !res.Indexed || !res.Exact || res.Total != 15 {
				t.Errorf("result %+v, want indexed, exact, 15", res)
			}
			var opened []string
			for _, f := range files {
				if fsys.opens[f] > 0 {
					opened = append(opened, f)
				}
			}
			if diff := cmp.Diff(tt.opened, opened); diff != "" {
				t.Errorf("files opened (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPageCountsAheadExactly: without an index, a read goes on exactly
// CountAheadRows rows past the first row after its page to count: a total
// within them is exact, one row more is a lower bound.
func TestPageCountsAheadExactly(t *testing.T) {
	for _, tt := range []struct {
		rows      int
		wantExact bool
		wantTotal int64
	}{
		// The page's row, the first row past it, then the rows counted ahead.
		{rows: 2 + CountAheadRows - 1, wantExact: true, wantTotal: CountAheadRows + 1},
		{rows: 2 + CountAheadRows, wantExact: true, wantTotal: CountAheadRows + 2},
		{rows: 2 + CountAheadRows + 1, wantExact: false, wantTotal: CountAheadRows + 2},
	} {
		fsys := fstest.MapFS{"a.csv": {Data: numbered("a", tt.rows)}}
		kept := 0
		res, err := ReadPage(context.Background(), fsys, PageRequest{
			Files: []string{"a.csv"}, Limit: 1,
			Keep: func(string, *Reader, Row) bool { kept++; return true },
		})
		if err != nil {
			t.Fatal(err)
		}
		if kept != 1 || res.Exact != tt.wantExact || res.Total != tt.wantTotal || res.Indexed {
			t.Errorf("%d rows: kept %d, %+v; want exact %v, total %d", tt.rows, kept, res, tt.wantExact, tt.wantTotal)
		}
	}
}

// seekRecording is a file system whose files record where they were
// sought: an indexed read starts at the checkpoint it chose.
type seekRecording struct {
	fstest.MapFS
	seeks map[string][]int64
}

func (s *seekRecording) Open(name string) (fs.File, error) {
	f, err := s.MapFS.Open(name)
	if err != nil {
		return nil, err
	}
	return &recordedFile{File: f, name: name, fsys: s}, nil
}

func (s *seekRecording) Stat(name string) (fs.FileInfo, error) { return s.MapFS.Stat(name) }

type recordedFile struct {
	fs.File
	name string
	fsys *seekRecording
}

func (f *recordedFile) Seek(off int64, whence int) (int64, error) {
	f.fsys.seeks[f.name] = append(f.fsys.seeks[f.name], off)
	return f.File.(io.Seeker).Seek(off, whence)
}

// TestIndexedPageStartsAtTheLastCheckpointBeforeIt: the read seeks to the
// last checkpoint with no more matching rows before it than the offset (a
// checkpoint exactly at the offset included); at the first checkpoint,
// which is the first row, it reads on from the header without seeking.
func TestIndexedPageStartsAtTheLastCheckpointBeforeIt(t *testing.T) {
	mapFS := fstest.MapFS{"a.csv": {Data: numbered("a", 9)}}
	index := buildIndex(t, mapFS, 3) // checkpoints before rows 0, 3 and 6
	cps := index.Lookup("a.csv").Checkpoints
	tests := []struct {
		offset int64
		seeks  []int64
	}{
		{offset: 0, seeks: nil},
		{offset: 2, seeks: nil},
		{offset: 3, seeks: []int64{cps[1].Offset}},
		{offset: 5, seeks: []int64{cps[1].Offset}},
		{offset: 6, seeks: []int64{cps[2].Offset}},
		{offset: 8, seeks: []int64{cps[2].Offset}},
	}
	for _, tt := range tests {
		fsys := &seekRecording{MapFS: mapFS, seeks: map[string][]int64{}}
		var got []string
		_, err := ReadPage(context.Background(), fsys, PageRequest{
			Files: []string{"a.csv"}, Offset: tt.offset, Limit: 1, Index: index,
			Keep: func(_ string, _ *Reader, row Row) bool { got = append(got, row.Get("n")); return true },
		})
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{fmt.Sprintf("a%d", tt.offset)}; !cmp.Equal(got, want) {
			t.Errorf("offset %d: page %v, want %v", tt.offset, got, want)
		}
		if diff := cmp.Diff(tt.seeks, fsys.seeks["a.csv"]); diff != "" {
			t.Errorf("offset %d: seeks (-want +got):\n%s", tt.offset, diff)
		}
	}
}

// TestPageHonoursItsContextEveryBatch: a page read looks at its context
// every ctxCheckRows rows (with or without an index): a cancelled read
// hands over the rows before the first look, then stops with the
// context's error.
func TestPageHonoursItsContextEveryBatch(t *testing.T) {
	mapFS := fstest.MapFS{"a.csv": {Data: numbered("a", ctxCheckRows+5)}}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, index := range []*RowIndex{nil, buildIndex(t, mapFS, DefaultIndexEvery)} {
		kept := 0
		_, err := ReadPage(ctx, mapFS, PageRequest{
			Files: []string{"a.csv"}, Limit: 1 << 20, Index: index,
			Keep: func(string, *Reader, Row) bool { kept++; return true },
		})
		if !errors.Is(err, context.Canceled) || kept != ctxCheckRows-1 {
			t.Errorf("indexed %v: kept %d, err %v; want %d rows, then context.Canceled", index != nil, kept, err, ctxCheckRows-1)
		}
	}
}
