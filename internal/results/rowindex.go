package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// RowIndexFile is the row index the runner writes beside the results, so
// that a page of rows deep in a large CSV, and the number of rows matching
// a filter, are found without reading every row before them.
const RowIndexFile = "row_index.json"

// RowIndexVersion is the format written; a reader refuses any other.
const RowIndexVersion = 1

// DefaultIndexEvery is how many rows lie between checkpoints: a page read
// starts at most this many rows before its first row.
const DefaultIndexEvery = 1024

// Bounds on an index read back. The results volume is writable by scan
// pods, so an index may be hostile: these keep it from costing more than
// a few megabytes, and Validate keeps it from sending a reader outside a
// file or backwards.
const (
	// MaxRowIndexBytes caps the index file (1M rows take about 100 KB).
	MaxRowIndexBytes = 16 << 20
	maxIndexedFiles  = 10000
	maxIndexEvery    = 1 << 20
	maxIndexedRows   = 1 << 40 // per class and file: keeps sums far from overflow
)

// RowIndex lists, for each CSV of a results directory, its row counts per
// RowClass and a checkpoint every Every rows.
type RowIndex struct {
	Version int         `json:"version"`
	Every   int64       `json:"every"`
	Files   []FileIndex `json:"files"`
}

// FileIndex is one CSV's entry.
type FileIndex struct {
	File string `json:"file"`
	// Size is the file's size when indexed: a file of another size has
	// changed since, and its entry is not used.
	Size        int64        `json:"size"`
	Counts      RowCounts    `json:"counts"`
	Checkpoints []Checkpoint `json:"checkpoints"`
}

// Checkpoint is where row number k×Every starts, and how many rows of
// each class come before it in the file.
type Checkpoint struct {
	Offset int64     `json:"o"`
	Before RowCounts `json:"b"`
}

// Lookup returns a file's entry, or nil.
func (x *RowIndex) Lookup(file string) *FileIndex {
	if x == nil {
		return nil
	}
	for i := range x.Files {
		if x.Files[i].File == file {
			return &x.Files[i]
		}
	}
	return nil
}

// ParseRowIndex decodes an index within RowIndexLimits and validates it.
func ParseRowIndex(data []byte) (*RowIndex, error) {
	if len(data) > MaxRowIndexBytes {
		return nil, fmt.Errorf("%s: %d bytes, more than %d", RowIndexFile, len(data), MaxRowIndexBytes)
	}
	var x RowIndex
	if err := DecodeBounded(data, RowIndexLimits, &x); err != nil {
		return nil, fmt.Errorf("%s: %w", RowIndexFile, err)
	}
	if err := x.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", RowIndexFile, err)
	}
	return &x, nil
}

// Validate checks an index is one IndexBuilder could have written: a known
// version, sane bounds, and in each file checkpoints at strictly increasing
// offsets inside the file whose counts add up to exactly Every rows apart.
func (x *RowIndex) Validate() error {
	if x.Version != RowIndexVersion {
		return fmt.Errorf("version %d, this reader knows %d", x.Version, RowIndexVersion)
	}
	if x.Every < 1 || x.Every > maxIndexEvery {
		return fmt.Errorf("every %d is not 1-%d", x.Every, maxIndexEvery)
	}
	if len(x.Files) > maxIndexedFiles {
		return fmt.Errorf("%d files, more than %d", len(x.Files), maxIndexedFiles)
	}
	seen := make(map[string]bool, len(x.Files))
	for i := range x.Files {
		f := &x.Files[i]
		if seen[f.File] {
			return fmt.Errorf("file %q is listed twice", textcap.Head(f.File, maxNameInError))
		}
		seen[f.File] = true
		if err := f.validate(x.Every); err != nil {
			return fmt.Errorf("file %q: %w", textcap.Head(f.File, maxNameInError), err)
		}
	}
	return nil
}

func (f *FileIndex) validate(every int64) error {
	if !fs.ValidPath(f.File) || strings.Contains(f.File, "/") || !strings.HasSuffix(f.File, ".csv") {
		return errors.New("not a CSV name in the results directory")
	}
	if f.Size < 0 {
		return fmt.Errorf("size %d is negative", f.Size)
	}
	rows, err := f.Counts.total()
	if err != nil {
		return fmt.Errorf("counts: %w", err)
	}
	if want := (rows + every - 1) / every; int64(len(f.Checkpoints)) != want {
		return fmt.Errorf("%d checkpoints for %d rows every %d, want %d", len(f.Checkpoints), rows, every, want)
	}
	prev := int64(-1)
	for k, cp := range f.Checkpoints {
		if cp.Offset <= prev || cp.Offset >= f.Size {
			return fmt.Errorf("checkpoint %d: offset %d is not after %d and before the size %d", k, cp.Offset, prev, f.Size)
		}
		prev = cp.Offset
		before, err := cp.Before.total()
		if err != nil {
			return fmt.Errorf("checkpoint %d: %w", k, err)
		}
		if before != int64(k)*every {
			return fmt.Errorf("checkpoint %d: counts %d rows before it, want %d", k, before, int64(k)*every)
		}
		for c := range cp.Before {
			if cp.Before[c] > f.Counts[c] || k > 0 && cp.Before[c] < f.Checkpoints[k-1].Before[c] {
				return fmt.Errorf("checkpoint %d: class %d count %d is out of order", k, c, cp.Before[c])
			}
		}
	}
	return nil
}

func (c *RowCounts) total() (int64, error) {
	var n int64
	for i, v := range *c {
		if v < 0 || v > maxIndexedRows {
			return 0, fmt.Errorf("class %d count %d is not 0-%d", i, v, int64(maxIndexedRows))
		}
		n += v
	}
	return n, nil
}

// maxNameInError bounds a file name an error quotes: the index comes from
// the results volume, and its names are not to be trusted.
const maxNameInError = 64

// IndexBuilder builds a RowIndex as a RowVisitor (and FileVisitor) of Walk.
type IndexBuilder struct {
	x   RowIndex
	cur *FileIndex
	row int64
	cls rowClassifier
}

// NewIndexBuilder returns a builder with a checkpoint every `every` rows
// (DefaultIndexEvery when every < 1).
func NewIndexBuilder(every int64) *IndexBuilder {
	if every < 1 {
		every = DefaultIndexEvery
	}
	return &IndexBuilder{x: RowIndex{Version: RowIndexVersion, Every: every, Files: []FileIndex{}}}
}

// BeginFile opens the file's entry.
func (b *IndexBuilder) BeginFile(file string, r *Reader) error {
	b.cls = classifierOf(r)
	b.x.Files = append(b.x.Files, FileIndex{File: file, Checkpoints: []Checkpoint{}})
	b.cur, b.row = &b.x.Files[len(b.x.Files)-1], 0
	return nil
}

// VisitRow counts the row, and checkpoints it when it starts a stretch.
func (b *IndexBuilder) VisitRow(file string, r *Reader, row Row) error {
	if b.cur == nil || b.cur.File != file {
		return fmt.Errorf("row index: a row of %s outside BeginFile/EndFile", file)
	}
	if b.row%b.x.Every == 0 {
		b.cur.Checkpoints = append(b.cur.Checkpoints, Checkpoint{Offset: r.RowOffset(), Before: b.cur.Counts})
	}
	b.cur.Counts[b.cls.classOf(row)]++
	b.row++
	return nil
}

// EndFile records the file's size: where its reader stopped, at its end.
func (b *IndexBuilder) EndFile(_ string, r *Reader) error {
	b.cur.Size = r.Offset()
	b.cur = nil
	return nil
}

// Index returns the index built.
func (b *IndexBuilder) Index() *RowIndex { return &b.x }

// Marshal encodes the index as it is written to RowIndexFile.
func (x *RowIndex) Marshal() ([]byte, error) { return json.Marshal(x) }
