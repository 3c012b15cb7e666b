package results

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
)

// recordReader parses CSV exactly as encoding/csv.Reader does with its
// defaults (comma ',', no comments, strict quotes, any number of fields),
// which FuzzRecordReader checks byte for byte, but faster for CWAC's large
// CSVs: it keeps each record's bytes in one reused buffer and turns only
// the cells asked for into strings (most of them interned), where
// encoding/csv makes a string of every record, which was most of the cost
// of a summary (measured in docs/development.md, Benchmarks).
//
// A record on one line (nearly every row CWAC writes) is not copied: its
// cells are found where the line lies in the read buffer, jumping from
// quote to quote, and a cell's doubled quotes are undone in place. Any
// other record (over several lines, or one the format refuses) is parsed
// by the general path, which places the error as encoding/csv does.
type recordReader struct {
	br        *bufio.Reader
	raw       []byte // a line longer than br's buffer, gathered
	line      []byte // the current record's line, when it was read on one
	oneLine   bool   // the cells lie in line, not in record
	record    []byte // the current record's cells, unquoted, end to end
	starts    []int  // start of each cell in line or record
	ends      []int  // end of each cell in line or record
	doubled   []int  // the cells of line whose doubled quotes are not yet undone
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
// equal cell is the same string: no lookup, no copy. recent are the last
// few other strings the column gave: a page's rows take turns among a few
// rules, impacts and help texts, which then cost a comparison or two, not
// a hash and a lookup.
type madeText struct {
	s      string
	record uint64
	recent [recentTexts]string
	next   uint8 // the slot of recent the next new string takes
}

// recentTexts is how many strings a column remembers besides its last.
const recentTexts = 4

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

// endCell closes the current cell of record.
func (r *recordReader) endCell() {
	if r.fields < r.maxKept {
		start := 0
		if n := len(r.ends); n > 0 {
			start = r.ends[n-1]
		}
		r.starts = append(r.starts, start)
		r.ends = append(r.ends, len(r.record))
	}
	r.fields++
}

// lineCell adds line[start:end] as the next cell of a one-line record.
func (r *recordReader) lineCell(start, end int) {
	if r.fields < r.maxKept {
		r.starts = append(r.starts, start)
		r.ends = append(r.ends, end)
	}
	r.fields++
}

// readOneLine parses line as a whole record when it is one: every quoted
// cell closed on it and nothing the format refuses. Otherwise it returns
// false having changed nothing but the cells' bounds, which read starts
// again. Outside quotes it looks for commas; a quote there must open a
// cell, which it checks against the next quote of the line (found once per
// quote, not per cell).
func (r *recordReader) readOneLine(line []byte) bool {
	end := len(line) - endsInNL(line)
	r.starts, r.ends, r.doubled, r.fields = r.starts[:0], r.ends[:0], r.doubled[:0], 0
	quote := bytes.IndexByte(line[:end], '"') // the next quote at or after p; -1: none
	for p := 0; ; {
		if p < end && line[p] == '"' {
			i, doubled := p+1, false
			for {
				j := bytes.IndexByte(line[i:end], '"')
				if j < 0 {
					return false // the cell goes on past the line, or never ends
				}
				i += j + 1
				if i < end && line[i] == '"' {
					i++
					doubled = true
					continue
				}
				break
			}
			if doubled && r.fields < r.maxKept {
				r.doubled = append(r.doubled, r.fields)
			}
			r.lineCell(p+1, i-1)
			if i == end {
				break
			}
			if line[i] != ',' {
				return false
			}
			p = i + 1
			if quote = bytes.IndexByte(line[p:end], '"'); quote >= 0 {
				quote += p
			}
			continue
		}
		cellEnd, last := end, true
		if c := bytes.IndexByte(line[p:end], ','); c >= 0 {
			cellEnd, last = p+c, false
		}
		if quote >= 0 && quote < cellEnd {
			return false // a quote inside an unquoted cell
		}
		r.lineCell(p, cellEnd)
		if last {
			break
		}
		p = cellEnd + 1
	}
	r.line, r.oneLine = line, true
	return true
}

// undouble turns each "" of cell into ", in place, and returns what is left.
func undouble(cell []byte) []byte {
	w := 0
	for i := 0; i < len(cell); i++ {
		cell[w] = cell[i]
		w++
		if cell[i] == '"' {
			i++ // a quote in a quoted cell is always doubled
		}
	}
	return cell[:w]
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
	r.records++
	if errRead == nil && r.readOneLine(line) {
		return nil
	}
	r.oneLine = false
	r.record, r.starts, r.ends, r.fields = r.record[:0], r.starts[:0], r.ends[:0], 0
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
	if r.oneLine {
		for k, d := range r.doubled {
			if d == i { // undone when first asked for: most cells never are
				r.ends[i] = r.starts[i] + len(undouble(r.line[r.starts[i]:r.ends[i]]))
				r.doubled = slices.Delete(r.doubled, k, k+1)
				break
			}
		}
		return r.line[r.starts[i]:r.ends[i]]
	}
	return r.record[r.starts[i]:r.ends[i]]
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
	m.record = r.records
	b := r.cell(i)
	if m.s == string(b) {
		return m.s
	}
	for k, s := range m.recent {
		if s == string(b) {
			m.recent[k], m.s = m.s, s
			return s
		}
	}
	m.recent[m.next] = m.s
	m.next = (m.next + 1) % recentTexts
	m.s = r.intern(b)
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
