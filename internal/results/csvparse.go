package results

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
)

// recordReader parses CSV exactly as encoding/csv.Reader does with its
// defaults (comma ',', no comments, strict quotes, any number of fields),
// which FuzzRecordReader checks byte for byte, but faster for CWAC's large
// CSVs: it keeps each record's bytes in one reused buffer and turns only
// the cells asked for into strings (most of them interned), where
// encoding/csv makes a string of every record, which was most of the cost
// of a summary (measured in docs/development.md, Benchmarks).
type recordReader struct {
	br        *bufio.Reader
	raw       []byte // a line longer than br's buffer, gathered
	record    []byte // the current record's cells, unquoted, end to end
	ends      []int  // end of each cell in record
	fields    int    // cells in the current record (ends holds at most maxKept)
	maxKept   int
	numLine   int   // lines read, as encoding/csv counts them
	recLine   int   // the line the current record starts on
	offset    int64 // bytes consumed from br
	recStart  int64 // offset where the current record's reading began
	limit     int64 // most bytes one record may take
	internMap map[string]string
	records   uint64     // records read: numbers the current one
	made      []madeText // by cell: the string last made of it
}

// madeText is the string last made of one column's cell, and the record
// it was made for. Every visitor of a walk asks for the same cells, and
// CWAC's rows of one page repeat most of them (page, organisation, title,
// viewport), so the string is made once per record, and the next record's
// equal cell is the same string: no lookup, no copy.
type madeText struct {
	s      string
	record uint64
}

func newRecordReader(br *bufio.Reader, limit int64) *recordReader {
	return &recordReader{br: br, limit: limit, maxKept: MaxColumns + 1, internMap: map[string]string{}}
}

// maxInterned bounds the interned cells: values that repeat (impacts, rule
// ids, help texts, "1") are made into strings once.
const (
	maxInterned    = 4096
	maxInternBytes = 128
)

// readLine reads one line as encoding/csv does: \r\n made \n, a \r just
// before the end of input dropped, counted in numLine and offset.
func (r *recordReader) readLine() ([]byte, error) {
	line, err := r.br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		r.raw = append(r.raw[:0], line...)
		for errors.Is(err, bufio.ErrBufferFull) {
			if r.offset+int64(len(r.raw))-r.recStart > r.limit {
				return nil, r.tooLarge()
			}
			line, err = r.br.ReadSlice('\n')
			r.raw = append(r.raw, line...)
		}
		line = r.raw
	}
	n := len(line)
	if n > 0 && errors.Is(err, io.EOF) {
		err = nil
		if line[n-1] == '\r' {
			line = line[:n-1]
		}
	}
	r.numLine++
	r.offset += int64(n)
	if r.offset-r.recStart > r.limit {
		return nil, r.tooLarge()
	}
	if n := len(line); n >= 2 && line[n-2] == '\r' && line[n-1] == '\n' {
		line[n-2] = '\n'
		line = line[:n-1]
	}
	return line, err
}

func (r *recordReader) tooLarge() error {
	return fmt.Errorf("%w: a record over %d bytes", ErrTooLarge, r.limit)
}

func endsInNL(b []byte) int {
	if len(b) > 0 && b[len(b)-1] == '\n' {
		return 1
	}
	return 0
}

// endCell closes the current cell.
func (r *recordReader) endCell() {
	if r.fields < r.maxKept {
		r.ends = append(r.ends, len(r.record))
	}
	r.fields++
}

// read parses the next record into record and ends; io.EOF after the last.
func (r *recordReader) read() error {
	r.recStart = r.offset
	var line []byte
	var errRead error
	for errRead == nil {
		line, errRead = r.readLine()
		if errRead == nil && len(line) == endsInNL(line) {
			line = nil
			continue // an empty line
		}
		break
	}
	if errors.Is(errRead, io.EOF) {
		return io.EOF
	}
	if errRead != nil && line == nil {
		return errRead
	}
	r.recLine = r.numLine
	r.record, r.ends, r.fields = r.record[:0], r.ends[:0], 0
	r.records++
	// col and line place a parse error as encoding/csv does: line counts
	// only the lines that held something (the read at the end of the
	// input, which holds nothing, is not a line).
	col, lineNo := 1, r.recLine
	for {
		if len(line) == 0 || line[0] != '"' {
			i := bytes.IndexByte(line, ',')
			cell := line
			if i >= 0 {
				cell = cell[:i]
			} else {
				cell = cell[:len(cell)-endsInNL(cell)]
			}
			if j := bytes.IndexByte(cell, '"'); j >= 0 {
				return &csv.ParseError{StartLine: r.recLine, Line: r.numLine, Column: col + j, Err: csv.ErrBareQuote}
			}
			r.record = append(r.record, cell...)
			r.endCell()
			if i < 0 {
				return errRead
			}
			line = line[i+1:]
			col += i + 1
			continue
		}
		// A quoted cell, which may run over several lines.
		line = line[1:]
		col++
		for {
			i := bytes.IndexByte(line, '"')
			switch {
			case i >= 0:
				r.record = append(r.record, line[:i]...)
				line = line[i+1:]
				col += i + 1
				switch {
				case len(line) > 0 && line[0] == '"': // "" is a quote
					r.record = append(r.record, '"')
					line = line[1:]
					col++
					continue
				case len(line) > 0 && line[0] == ',': // the cell ends
					line = line[1:]
					col++
					r.endCell()
				case len(line) == endsInNL(line): // the record ends
					r.endCell()
					return errRead
				default:
					return &csv.ParseError{StartLine: r.recLine, Line: r.numLine, Column: col - 1, Err: csv.ErrQuote}
				}
			case len(line) > 0:
				r.record = append(r.record, line...)
				if errRead != nil {
					return errRead
				}
				col += len(line)
				var err error
				line, err = r.readLine()
				if len(line) > 0 {
					col, lineNo = 1, r.numLine
				}
				if errors.Is(err, io.EOF) {
					err = nil
				}
				if err != nil {
					return err
				}
				continue
			default: // the input ends inside the quotes
				return &csv.ParseError{StartLine: r.recLine, Line: lineNo, Column: col, Err: csv.ErrQuote}
			}
			break // to the next cell
		}
	}
}

// cell returns cell i of the current record as bytes (valid until read).
func (r *recordReader) cell(i int) []byte {
	start := 0
	if i > 0 {
		start = r.ends[i-1]
	}
	return r.record[start:r.ends[i]]
}

// text returns cell i as a string: the one already made of it for this
// record or, when equal, for the previous one; else interning short values.
func (r *recordReader) text(i int) string {
	for len(r.made) <= i {
		r.made = append(r.made, madeText{})
	}
	m := &r.made[i]
	if m.record == r.records {
		return m.s
	}
	b := r.cell(i)
	if m.s != string(b) {
		m.s = r.intern(b)
	}
	m.record = r.records
	return m.s
}

// intern makes a string of b, the same one for equal short values.
func (r *recordReader) intern(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > maxInternBytes {
		return string(b)
	}
	if s, ok := r.internMap[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(r.internMap) < maxInterned {
		r.internMap[s] = s
	}
	return s
}
