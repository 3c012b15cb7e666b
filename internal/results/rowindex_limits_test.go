package results

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestRowIndexLimits: every bound Validate enforces, one below, at and one
// above: the checkpoint interval, the number of files, a file's size, the
// rows per class, the checkpoints' offsets and counts, the index's bytes.
func TestRowIndexLimits(t *testing.T) {
	if maxIndexEvery != 1<<20 || maxIndexedFiles != 10000 || maxIndexedRows != 1<<40 {
		t.Fatalf("limits changed: every %d, files %d, rows %d", maxIndexEvery, maxIndexedFiles, int64(maxIndexedRows))
	}
	// one is a file of 3 rows every 2: checkpoints before rows 0 and 2.
	one := func(size int64, cps ...Checkpoint) FileIndex {
		return FileIndex{File: "a.csv", Size: size, Counts: RowCounts{3}, Checkpoints: cps}
	}
	cp := func(offset int64, before ...int64) Checkpoint {
		c := Checkpoint{Offset: offset}
		copy(c.Before[:], before)
		return c
	}
	files := func(n int) []FileIndex {
		out := make([]FileIndex, n)
		for i := range out {
			out[i] = FileIndex{File: fmt.Sprintf("f%d.csv", i), Checkpoints: []Checkpoint{}}
		}
		return out
	}
	tests := []struct {
		name string
		x    RowIndex
		want string // "" when valid
	}{
		{"every 1", RowIndex{Every: 1}, ""},
		{"every at the limit", RowIndex{Every: 1 << 20}, ""},
		{"every over the limit", RowIndex{Every: 1<<20 + 1}, "every 1048577 is not 1-1048576"},
		{"every negative", RowIndex{Every: -1}, "every -1 is not"},
		{"files at the limit", RowIndex{Every: 1, Files: files(10000)}, ""},
		{"files over the limit", RowIndex{Every: 1, Files: files(10001)}, "10001 files, more than 10000"},
		{"size 0", RowIndex{Every: 2, Files: []FileIndex{{File: "a.csv"}}}, ""},
		{"size -1", RowIndex{Every: 2, Files: []FileIndex{{File: "a.csv", Size: -1}}}, "size -1 is negative"},
		{"valid", RowIndex{Every: 2, Files: []FileIndex{one(30, cp(10), cp(20, 2))}}, ""},
		{"a checkpoint at offset 0", RowIndex{Every: 2, Files: []FileIndex{one(30, cp(0), cp(20, 2))}}, ""},
		{"a checkpoint one before the end", RowIndex{Every: 2, Files: []FileIndex{one(30, cp(10), cp(29, 2))}}, ""},
		{"a checkpoint at the end", RowIndex{Every: 2, Files: []FileIndex{one(30, cp(10), cp(30, 2))}}, "offset 30 is not after 10 and before the size 30"},
		{"a negative offset", RowIndex{Every: 2, Files: []FileIndex{one(30, cp(-1), cp(20, 2))}}, "offset -1 is not after -1"},
		{"two checkpoints at one offset", RowIndex{Every: 2, Files: []FileIndex{one(30, cp(10), cp(10, 2))}}, "offset 10 is not after 10"},
		{"too many checkpoints", RowIndex{Every: 2, Files: []FileIndex{one(30, cp(10), cp(20, 2), cp(25, 4))}}, "3 checkpoints for 3 rows every 2, want 2"},
		{"a class before a checkpoint over its total", RowIndex{Every: 2, Files: []FileIndex{{File: "a.csv", Size: 30, Counts: RowCounts{1, 2},
			Checkpoints: []Checkpoint{cp(10), cp(20, 2)}}}}, "checkpoint 1: class 0 count 2 is out of order"},
		{"a class at its total", RowIndex{Every: 2, Files: []FileIndex{{File: "a.csv", Size: 30, Counts: RowCounts{2, 1},
			Checkpoints: []Checkpoint{cp(10), cp(20, 2)}}}}, ""},
		{"classes rising at every checkpoint", RowIndex{Every: 2, Files: []FileIndex{{File: "a.csv", Size: 40, Counts: RowCounts{3, 3},
			Checkpoints: []Checkpoint{cp(10), cp(20, 1, 1), cp(30, 2, 2)}}}}, ""},
		{"a class going back", RowIndex{Every: 2, Files: []FileIndex{{File: "a.csv", Size: 40, Counts: RowCounts{3, 3},
			Checkpoints: []Checkpoint{cp(10), cp(20, 2, 0), cp(30, 1, 3)}}}}, "checkpoint 2: class 0 count 1 is out of order"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.x.Version = RowIndexVersion
			for i := range tt.x.Files {
				if tt.x.Files[i].Checkpoints == nil {
					tt.x.Files[i].Checkpoints = []Checkpoint{}
				}
			}
			err := tt.x.Validate()
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

// TestRowCountsTotal: each class counts 0 to 2^40 rows.
func TestRowCountsTotal(t *testing.T) {
	for _, tt := range []struct {
		c       RowCounts
		want    int64
		wantErr string
	}{
		{RowCounts{}, 0, ""},
		{RowCounts{1, 2, 3}, 6, ""},
		{RowCounts{1 << 40}, 1 << 40, ""},
		{RowCounts{1<<40 - 1, 0, 0, 0, 0, 0, 0, 0, 0, 1 << 40}, 1<<41 - 1, ""},
		{RowCounts{1<<40 + 1}, 0, "class 0 count 1099511627777 is not 0-1099511627776"},
		{RowCounts{0, -1}, 0, "class 1 count -1 is not"},
	} {
		got, err := tt.c.total()
		if got != tt.want || (err == nil) != (tt.wantErr == "") || err != nil && !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("total(%v) = %d, %v; want %d, %q", tt.c, got, err, tt.want, tt.wantErr)
		}
	}
}

// TestRowIndexSizeLimit: an index of exactly MaxRowIndexBytes is read,
// one byte more is refused.
func TestRowIndexSizeLimit(t *testing.T) {
	x := RowIndex{Version: RowIndexVersion, Every: 1, Files: []FileIndex{}}
	data, err := json.Marshal(x)
	must(t, err)
	pad := func(n int) []byte { return append(append([]byte(nil), data...), strings.Repeat(" ", n-len(data))...) }
	if _, err := ParseRowIndex(pad(MaxRowIndexBytes)); err != nil {
		t.Errorf("at the limit: %v", err)
	}
	if _, err := ParseRowIndex(pad(MaxRowIndexBytes + 1)); err == nil ||
		err.Error() != fmt.Sprintf("%s: %d bytes, more than %d", RowIndexFile, MaxRowIndexBytes+1, MaxRowIndexBytes) {
		t.Errorf("one byte over: %v", err)
	}
}

// TestIndexErrorsTruncateNames: a file name in an error is cut to 64
// bytes, the mark of the cut included (one below, at and one above).
func TestIndexErrorsTruncateNames(t *testing.T) {
	for _, n := range []int{63, 64, 65} {
		name := strings.Repeat("n", n-len(".csv")) + ".csv"
		x := RowIndex{Version: RowIndexVersion, Every: 1, Files: []FileIndex{{File: name, Size: -1}}}
		err := x.Validate()
		want := name
		if n > 64 {
			want = name[:64-len("…")] + "…"
		}
		if err == nil || err.Error() != fmt.Sprintf("file %q: size -1 is negative", want) {
			t.Errorf("a %d-byte name: %v", n, err)
		}
	}
	var nilIndex *RowIndex
	if nilIndex.Lookup("a.csv") != nil {
		t.Error("a nil index found a file")
	}
}

// TestIndexBuilderEvery: a builder asked for no interval uses the default;
// checkpoints fall every `every` rows, the first before row 0.
func TestIndexBuilderEvery(t *testing.T) {
	for _, tt := range []struct {
		every, want int64
	}{{0, DefaultIndexEvery}, {-1, DefaultIndexEvery}, {1, 1}, {3, 3}} {
		if got := NewIndexBuilder(tt.every).Index().Every; got != tt.want {
			t.Errorf("NewIndexBuilder(%d): every %d, want %d", tt.every, got, tt.want)
		}
	}
}
