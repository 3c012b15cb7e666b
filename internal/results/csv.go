// Package results reads CWAC's results directory — CSVs with a UTF-8
// byte-order mark, quoted fields with embedded newlines, Python-repr values —
// and computes a scan's summary. It streams: no CSV is ever held whole in
// memory, and Walk reads each CSV once for every RowVisitor (the summary,
// the row index, the report). The row index (RowIndexFile) lets ReadPage
// serve a page of rows without reading the rows before it. It knows nothing
// of Kubernetes; the runner and the MCP server share it.
package results

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

var bom = []byte("\xef\xbb\xbf")

// Limits on the shape of a CSV, so that a hostile or broken results file
// (whoever can write the results volume can plant one) costs bounded
// memory: the reader holds a whole record at once.
const (
	// MaxRecordBytes caps one record (a row, or the header), every cell of
	// it included. CWAC's largest cells are an element's HTML: kilobytes.
	MaxRecordBytes = 4 << 20
	// MaxColumns caps the header's columns; CWAC's CSVs have about 20.
	MaxColumns = 512
)

// ErrTooLarge is returned (wrapped, with the limit) when a CSV breaks a limit.
var ErrTooLarge = errors.New("CSV is larger than the reader allows")

// Reader streams the rows of one CWAC CSV.
type Reader struct {
	src    io.Reader
	rr     *recordReader
	header []string
	index  map[string]int
	// base is the file offset the parser started at (past the byte-order
	// mark, or where SeekRow put it): its offsets count from there.
	base      int64
	headerEnd int64 // file offset of the first row
	rowStart  int64 // file offset of the row Next returned last
}

// readBufferBytes is the read buffer: large reads cost fewer system calls
// on CSVs of hundreds of megabytes.
const readBufferBytes = 64 << 10

// NewReader reads the header of a CWAC CSV (skipping the byte-order mark CWAC
// writes first) and returns a Reader positioned at the first row.
func NewReader(src io.Reader) (*Reader, error) {
	br := bufio.NewReaderSize(src, readBufferBytes)
	r := &Reader{src: src, rr: newRecordReader(br, MaxRecordBytes)}
	if peek, err := br.Peek(len(bom)); err == nil && bytes.Equal(peek, bom) {
		_, _ = br.Discard(len(bom))
		r.base = int64(len(bom))
	}
	err := r.rr.read()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("empty CSV: no header")
	}
	if err != nil {
		return nil, fmt.Errorf("reading CSV header: %w", err)
	}
	if r.rr.fields > MaxColumns {
		return nil, fmt.Errorf("%w: the header has %d columns, more than %d", ErrTooLarge, r.rr.fields, MaxColumns)
	}
	r.headerEnd = r.Offset()
	r.header = make([]string, r.rr.fields)
	r.index = make(map[string]int, len(r.header))
	for i := range r.header {
		r.header[i] = string(r.rr.cell(i))
		if _, dup := r.index[r.header[i]]; !dup {
			r.index[r.header[i]] = i
		}
	}
	return r, nil
}

// Offset is the file offset the next row starts at (the file's size once
// Next has returned io.EOF).
func (r *Reader) Offset() int64 { return r.base + r.rr.offset }

// RowOffset is the file offset of the row Next returned last: SeekRow there
// reads it again.
func (r *Reader) RowOffset() int64 { return r.rowStart }

// HeaderEnd is the file offset of the first row.
func (r *Reader) HeaderEnd() int64 { return r.headerEnd }

// SeekRow moves the reader to a row that starts at file offset off (one
// RowOffset gave), so a page deep in a large CSV is read without the rows
// before it. The source must be an io.Seeker; off must not be inside the header.
func (r *Reader) SeekRow(off int64) error {
	seeker, ok := r.src.(io.Seeker)
	if !ok {
		return errors.New("seeking a CSV: the file cannot seek")
	}
	if off < r.headerEnd {
		return fmt.Errorf("seeking a CSV: offset %d is inside the header (rows start at %d)", off, r.headerEnd)
	}
	if _, err := seeker.Seek(off, io.SeekStart); err != nil {
		return fmt.Errorf("seeking a CSV: %w", err)
	}
	r.rr.br.Reset(r.src)
	r.rr.offset, r.base = 0, off
	return nil
}

// Header returns the column names.
func (r *Reader) Header() []string { return r.header }

// Has reports whether the CSV has a column.
func (r *Reader) Has(column string) bool { _, ok := r.index[column]; return ok }

// Column is a column's index for Row.Field, or -1 when the CSV has no such
// column: looked up once per file, it spares a lookup per row.
func (r *Reader) Column(name string) int {
	if i, ok := r.index[name]; ok {
		return i
	}
	return -1
}

// Row is one record, read by column name. It is valid until the next call
// to Next (the reader reuses its memory); the strings it returns are the
// caller's to keep.
type Row struct {
	r *Reader
}

// Get returns a column's value, or "" when the CSV has no such column.
func (row Row) Get(column string) string {
	i, ok := row.r.index[column]
	if !ok {
		return ""
	}
	return row.r.rr.text(i)
}

// Len is the row's number of fields (the header's).
func (row Row) Len() int { return len(row.r.header) }

// Field returns field i (0 ≤ i < Len), or "" for i = -1 (a Column that is not there).
func (row Row) Field(i int) string {
	if i < 0 {
		return ""
	}
	return row.r.rr.text(i)
}

// Fields returns every field, in the header's order.
func (row Row) Fields() []string {
	out := make([]string, row.Len())
	for i := range out {
		out[i] = row.Field(i)
	}
	return out
}

// Map returns the row as column → value.
func (row Row) Map() map[string]string {
	m := make(map[string]string, len(row.r.header))
	for i, h := range row.r.header {
		m[h] = row.Field(i)
	}
	return m
}

// Next returns the next row, or io.EOF after the last.
func (r *Reader) Next() (Row, error) {
	r.rowStart = r.Offset()
	err := r.rr.read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return Row{}, io.EOF
		}
		return Row{}, fmt.Errorf("reading CSV: %w", err)
	}
	if r.rr.fields != len(r.header) {
		return Row{}, fmt.Errorf("reading CSV: line %d has %d fields, header has %d", r.rr.recLine, r.rr.fields, len(r.header))
	}
	return Row{r: r}, nil
}

// EachRow streams every row of the CSV at path to fn; fn returning an error stops it.
func EachRow(path string, fn func(*Reader, Row) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }() // read only: closing loses nothing
	return EachRowFrom(f, fn)
}

// EachRowFS is EachRow over a file system (such as an os.Root's, which keeps
// reads inside the results root).
func EachRowFS(fsys fs.FS, name string, fn func(*Reader, Row) error) error {
	f, err := fsys.Open(name)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }() // read only: closing loses nothing
	if err := EachRowFrom(f, fn); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// EachRowFrom is EachRow over any reader.
func EachRowFrom(src io.Reader, fn func(*Reader, Row) error) error {
	r, err := NewReader(src)
	if err != nil {
		return err
	}
	for {
		row, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(r, row); err != nil {
			return err
		}
	}
}
