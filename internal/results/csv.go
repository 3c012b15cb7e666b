// Package results reads CWAC's results directory — CSVs with a UTF-8
// byte-order mark, quoted fields with embedded newlines, Python-repr values —
// and computes a scan's summary. It streams: no CSV is ever held whole in
// memory. It knows nothing of Kubernetes; the runner and the MCP server share it.
package results

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

var bom = []byte("\xef\xbb\xbf")

// Limits on the shape of a CSV, so that a hostile or broken results file
// (whoever can write the results volume can plant one) costs bounded
// memory: encoding/csv holds a whole record at once.
const (
	// MaxRecordBytes caps one record (a row, or the header), every cell of
	// it included. CWAC's largest cells are an element's HTML: kilobytes.
	MaxRecordBytes = 4 << 20
	// MaxColumns caps the header's columns; CWAC's CSVs have about 20.
	MaxColumns = 512
)

// ErrTooLarge is returned (wrapped, with the limit) when a CSV breaks a limit.
var ErrTooLarge = errors.New("CSV is larger than the reader allows")

// recordLimiter fails a read once the current record has taken more than
// MaxRecordBytes of input, before encoding/csv can hold more of it.
type recordLimiter struct {
	r        io.Reader
	read     int64 // bytes handed to the CSV reader so far
	boundary int64 // input offset where the current record starts
	limit    int64
}

func (l *recordLimiter) Read(p []byte) (int, error) {
	if l.read-l.boundary > l.limit {
		return 0, fmt.Errorf("%w: a record over %d bytes", ErrTooLarge, l.limit)
	}
	n, err := l.r.Read(p)
	l.read += int64(n)
	return n, err
}

// Reader streams the rows of one CWAC CSV.
type Reader struct {
	src     io.Reader
	csv     *csv.Reader
	limiter *recordLimiter
	header  []string
	index   map[string]int
	// base is the file offset the CSV parser started at (past the
	// byte-order mark, or where Seek put it): its InputOffset counts from there.
	base      int64
	headerEnd int64 // file offset of the first row
	rowStart  int64 // file offset of the row Next returned last
}

// readBufferBytes is the read buffer: large reads cost fewer system calls
// on CSVs of hundreds of megabytes.
const readBufferBytes = 64 << 10

// newCSV sets up the CSV parser on src, which starts at file offset base.
func (r *Reader) newCSV(src io.Reader, base int64) {
	r.limiter = &recordLimiter{r: src, limit: MaxRecordBytes}
	r.csv = csv.NewReader(r.limiter)
	r.csv.FieldsPerRecord = -1 // checked per row against the header, with a clearer error
	r.csv.ReuseRecord = true   // rows are copied out below only when kept
	r.base = base
}

// NewReader reads the header of a CWAC CSV (skipping the byte-order mark CWAC
// writes first) and returns a Reader positioned at the first row.
func NewReader(src io.Reader) (*Reader, error) {
	br := bufio.NewReaderSize(src, readBufferBytes)
	r := &Reader{src: src}
	var base int64
	if peek, err := br.Peek(len(bom)); err == nil && bytes.Equal(peek, bom) {
		_, _ = br.Discard(len(bom))
		base = int64(len(bom))
	}
	r.newCSV(br, base)
	header, err := r.csv.Read()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("empty CSV: no header")
	}
	if err != nil {
		return nil, fmt.Errorf("reading CSV header: %w", err)
	}
	if len(header) > MaxColumns {
		return nil, fmt.Errorf("%w: the header has %d columns, more than %d", ErrTooLarge, len(header), MaxColumns)
	}
	r.limiter.boundary = r.csv.InputOffset()
	r.headerEnd = r.Offset()
	r.header = append([]string(nil), header...)
	r.index = make(map[string]int, len(r.header))
	for i, h := range r.header {
		if _, dup := r.index[h]; !dup {
			r.index[h] = i
		}
	}
	return r, nil
}

// Offset is the file offset the next row starts at (the file's size once
// Next has returned io.EOF).
func (r *Reader) Offset() int64 { return r.base + r.csv.InputOffset() }

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
	r.newCSV(bufio.NewReaderSize(r.src, readBufferBytes), off)
	return nil
}

// Header returns the column names.
func (r *Reader) Header() []string { return r.header }

// Has reports whether the CSV has a column.
func (r *Reader) Has(column string) bool { _, ok := r.index[column]; return ok }

// Row is one record, read by column name. Its Fields are valid until the
// next call to Next (the reader reuses them): copy what you keep.
type Row struct {
	r      *Reader
	Fields []string
}

// Get returns a column's value, or "" when the CSV has no such column.
func (row Row) Get(column string) string {
	i, ok := row.r.index[column]
	if !ok || i >= len(row.Fields) {
		return ""
	}
	return row.Fields[i]
}

// Map returns the row as column → value.
func (row Row) Map() map[string]string {
	m := make(map[string]string, len(row.r.header))
	for i, h := range row.r.header {
		if i < len(row.Fields) {
			m[h] = row.Fields[i]
		}
	}
	return m
}

// Next returns the next row, or io.EOF after the last.
func (r *Reader) Next() (Row, error) {
	r.rowStart = r.Offset()
	rec, err := r.csv.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return Row{}, io.EOF
		}
		return Row{}, fmt.Errorf("reading CSV: %w", err)
	}
	r.limiter.boundary = r.csv.InputOffset()
	if len(rec) != len(r.header) {
		line, _ := r.csv.FieldPos(0)
		return Row{}, fmt.Errorf("reading CSV: line %d has %d fields, header has %d", line, len(rec), len(r.header))
	}
	return Row{r: r, Fields: rec}, nil
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
