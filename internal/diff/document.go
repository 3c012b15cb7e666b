package diff

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/a11y-dev/cwac-operator/internal/jsonlimit"
	"github.com/a11y-dev/cwac-operator/internal/plainjson"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// fieldBaseline is diff.json's key for the baseline's name.
const fieldBaseline = "baseline"

// Format names the layout of diff.json; a reader refuses any other.
const Format = "cwac-operator.diff/v1"

// Document is diff.json (results.DiffFile): one JSON object whose figures
// come first and whose rows (every issue row of both scans with its change)
// come last, one row per line:
//
//	{
//	"format": "cwac-operator.diff/v1",
//	"baseline": "<the baseline scan>",
//	"totals": {"baseline_issues": …, "current_issues": …, "unstable_baseline": …, "unstable_current": …},
//	"counts": {results.DiffCounts},
//	"by_rule": [{"audit", "rule", "impact", "new", "fixed", "unchanged", "unstable"}, …],
//	"rows": [
//	{Row},
//	…
//	]
//	}
//
// The rows are streamed: WriteDocument copies them from a spool, and
// ReadDocument passes them one at a time, so neither holds them all.
type Document struct {
	Format   string             `json:"format"`
	Baseline string             `json:"baseline"`
	Totals   Totals             `json:"totals"`
	Counts   results.DiffCounts `json:"counts"`
	ByRule   []RuleChange       `json:"by_rule"`
	Rows     []Row              `json:"rows"`
}

// RowWriter spools rows, one JSON object a line, for WriteDocument.
type RowWriter struct {
	w   *bufio.Writer
	enc *json.Encoder
}

// NewRowWriter writes rows to w; call Flush when done.
func NewRowWriter(w io.Writer) *RowWriter {
	bw := bufio.NewWriterSize(w, rowsBufferBytes)
	return &RowWriter{w: bw, enc: plainjson.NewEncoder(bw)} // HTML cells stay readable
}

// Write spools one row (Encode ends it with a newline).
func (rw *RowWriter) Write(r *Row) error { return rw.enc.Encode(r) }

// Flush writes what is buffered.
func (rw *RowWriter) Flush() error { return rw.w.Flush() }

// ReadSpooledRows passes each row a RowWriter spooled to r to fn, in the
// order written (the Row is reused: copy what you keep). A line is at most
// maxRowLine bytes, as WriteDocument reads them.
func ReadSpooledRows(r io.Reader, fn func(*Row) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, rowsBufferBytes), maxRowLine)
	var row Row
	for n := 1; sc.Scan(); n++ {
		row = Row{}
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			return fmt.Errorf("spooled row %d: %w", n, err)
		}
		if err := fn(&row); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading the spooled rows: %w", err)
	}
	return nil
}

// rowsBufferBytes is the buffer rows are written and copied through: a
// million rows are 400 MB of JSON, written twice (spooled, then copied into
// diff.json), and bufio's own 4 KiB made a write call every ten rows.
const rowsBufferBytes = 64 << 10

// maxRowLine bounds a spooled row: its cells are capped (rows.go), so a row
// is a few kilobytes.
const maxRowLine = 1 << 20

// WriteDocument writes diff.json for res, with the rows spooled by a
// RowWriter.
func WriteDocument(w io.Writer, res *Result, spool io.Reader) error {
	bw := bufio.NewWriterSize(w, rowsBufferBytes)
	head := []struct {
		key   string
		value any
	}{
		{"format", Format}, {fieldBaseline, res.Counts.Baseline}, {"totals", res.Totals}, {"counts", res.Counts}, {"by_rule", res.ByRule},
	}
	_, _ = bw.WriteString("{\n")
	for _, h := range head {
		data, err := plainjson.Marshal(h.value)
		if err != nil {
			return fmt.Errorf("encoding %s: %w", h.key, err)
		}
		_, _ = fmt.Fprintf(bw, "%q: %s,\n", h.key, data)
	}
	_, _ = bw.WriteString("\"rows\": [")
	sc := bufio.NewScanner(spool)
	sc.Buffer(make([]byte, rowsBufferBytes), maxRowLine)
	for n := 0; sc.Scan(); n++ {
		if n > 0 {
			_ = bw.WriteByte(',')
		}
		_ = bw.WriteByte('\n')
		_, _ = bw.Write(sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading the spooled rows: %w", err)
	}
	_, _ = bw.WriteString("\n]\n}\n")
	return bw.Flush() // bufio keeps the first write error: this reports it
}

// MaxValueBytes caps one value of diff.json as ReadDocument reads it (a row,
// or the counts): whoever can write the results volume can plant the file.
const MaxValueBytes = 16 << 20

// MaxFigureBytes caps one of diff.json's figures (totals, counts, by_rule),
// which is decoded whole: a scan of 10,000 organisations writes counts of
// about a megabyte.
const MaxFigureBytes = 4 << 20

// FigureLimits bound what decoding one of diff.json's figures may cost,
// counted before it is decoded (4 MiB of "{}," in by_rule would be 1.4
// million structs): 9 values an organisation, 15 a rule.
var FigureLimits = jsonlimit.Limits{MaxDepth: 6, MaxValues: 200_000, MaxString: 4096, MaxDecoded: 16 << 20}

// ErrValueTooLarge is returned (wrapped) when a value of diff.json passes MaxValueBytes.
var ErrValueTooLarge = errors.New("diff.json holds a value larger than the reader allows")

// valueLimiter fails a read once the decoder has read more than limit bytes
// past the end of the last value it finished.
type valueLimiter struct {
	r          io.Reader
	read, mark int64
	limit      int64
}

func (l *valueLimiter) Read(p []byte) (int, error) {
	left := l.limit - (l.read - l.mark)
	if left <= 0 {
		return 0, fmt.Errorf("%w (%d bytes)", ErrValueTooLarge, l.limit)
	}
	if int64(len(p)) > left {
		p = p[:left] // the decoder asks for ever larger reads: never more than the limit allows
	}
	n, err := l.r.Read(p)
	l.read += int64(n)
	return n, err
}

// ReadDocument reads diff.json, passing each row to fn (the Row is reused:
// copy what you keep), and returns the rest of the document without rows.
// Values are read one at a time, each at most MaxValueBytes.
func ReadDocument(r io.Reader, fn func(*Row) error) (*Document, error) {
	return ReadDocumentThen(r, nil, fn)
}

// ReadDocumentThen is ReadDocument with a look at the figures before the
// rows are read: header returning an error (say, the document compares
// another baseline) stops the reading with that error.
func ReadDocumentThen(r io.Reader, header func(*Document) error, fn func(*Row) error) (*Document, error) {
	lim := &valueLimiter{r: r, limit: MaxValueBytes}
	dec := json.NewDecoder(lim)
	doc := &Document{}
	if err := expectDelim(dec, '{'); err != nil {
		return nil, err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("reading diff.json: %w", err)
		}
		key, _ := tok.(string)
		var target any
		switch key {
		case "format":
			target = &doc.Format
		case fieldBaseline:
			target = &doc.Baseline
		case "totals":
			target = &doc.Totals
		case "counts":
			target = &doc.Counts
		case "by_rule":
			target = &doc.ByRule
		case "rows":
			if doc.Format != Format {
				return nil, fmt.Errorf("diff.json has format %q, not %q: its figures must come before its rows", doc.Format, Format)
			}
			if header != nil {
				if err := header(doc); err != nil {
					return nil, err
				}
			}
			if err := readRows(dec, lim, fn); err != nil {
				return nil, err
			}
			continue
		default:
			target = nil // a later version's field: skipped
		}
		if err := decodeFigure(dec, lim, target); err != nil {
			return nil, fmt.Errorf("reading diff.json's %q: %w", textcap.Head(key, 64), err)
		}
		lim.mark = dec.InputOffset()
	}
	if err := expectDelim(dec, '}'); err != nil {
		return nil, err
	}
	if doc.Format != Format {
		return nil, fmt.Errorf("diff.json has format %q, not %q", doc.Format, Format)
	}
	return doc, nil
}

// decodeFigure reads one figure of at most MaxFigureBytes and decodes it
// into target (nil: skipped) within FigureLimits.
func decodeFigure(dec *json.Decoder, lim *valueLimiter, target any) error {
	lim.limit = MaxFigureBytes
	defer func() { lim.limit = MaxValueBytes }()
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return err
	}
	if target == nil {
		return nil
	}
	if err := jsonlimit.Check(raw, FigureLimits); err != nil {
		return err
	}
	return json.Unmarshal(raw, target)
}

func readRows(dec *json.Decoder, lim *valueLimiter, fn func(*Row) error) error {
	if err := expectDelim(dec, '['); err != nil {
		return err
	}
	row := &Row{}
	for n := 0; dec.More(); n++ {
		*row = Row{}
		if err := dec.Decode(row); err != nil {
			return fmt.Errorf("reading diff.json's row %d: %w", n, err)
		}
		lim.mark = dec.InputOffset()
		if err := fn(row); err != nil {
			return err
		}
	}
	return expectDelim(dec, ']')
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("reading diff.json: %w", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return fmt.Errorf("reading diff.json: found %v where %q was expected", tok, string(want))
	}
	return nil
}
