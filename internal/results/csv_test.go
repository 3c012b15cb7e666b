package results

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReaderRealElementAudit(t *testing.T) {
	var htmls []string
	var viewports []Viewport
	err := EachRow(realScan+"/element_audit.csv", func(r *Reader, row Row) error {
		if r.Header()[0] != "organisation" {
			t.Errorf("first column %q: the byte-order mark was not skipped", r.Header()[0])
		}
		htmls = append(htmls, row.Get("element_html"))
		vp, err := ParseViewport(row.Get("viewport_size"))
		if err != nil {
			return err
		}
		viewports = append(viewports, vp)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(htmls) != 4 {
		t.Fatalf("rows = %d, want 4", len(htmls))
	}
	if want := "<input name=\"fullname\" type=\"text\"/>\n"; htmls[0] != want {
		t.Errorf("element_html = %q, want %q (embedded newline kept)", htmls[0], want)
	}
	if diff := cmp.Diff(Viewport{Width: 320, Height: 450}, viewports[0]); diff != "" {
		t.Errorf("viewport (-want +got):\n%s", diff)
	}
}

func TestReaderErrors(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"empty", "", "no header"},
		{"ragged row", "a,b\n1\n", "has 1 fields, header has 2"},
		{"bad quote", "a\n\"x\n", "reading CSV"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := EachRowFrom(strings.NewReader(tt.in), func(*Reader, Row) error { return nil })
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestRowAccess(t *testing.T) {
	r, err := NewReader(strings.NewReader("\xef\xbb\xbfa,b\n1,2\n"))
	if err != nil {
		t.Fatal(err)
	}
	row, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	if row.Get("b") != "2" || row.Get("missing") != "" || !r.Has("a") || r.Has("c") {
		t.Errorf("row access wrong: %v", row.Map())
	}
	if _, err := r.Next(); !errors.Is(err, io.EOF) {
		t.Errorf("want EOF, got %v", err)
	}
}

// FuzzReader: whatever bytes arrive, the reader returns rows or an error, and
// a CSV written by encoding/csv reads back field for field.
func FuzzReader(f *testing.F) {
	f.Add([]byte("\xef\xbb\xbfa,b\n1,\"x\ny\"\n"))
	f.Add([]byte("a\n\"unterminated\n"))
	f.Add([]byte("organisation,url\n\"Org, \"\"Q\"\"\",http://x/\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = EachRowFrom(bytes.NewReader(data), func(r *Reader, row Row) error {
			if row.Len() != len(r.Header()) {
				t.Fatalf("row of %d fields under a header of %d", row.Len(), len(r.Header()))
			}
			return nil
		})
		// Round trip: use the fuzz input's text as cell values.
		cells := strings.Split(strings.ToValidUTF8(strings.ReplaceAll(string(data), "\r", ""), "?"), ",")
		var buf bytes.Buffer
		w := csv.NewWriter(&buf)
		header := make([]string, len(cells))
		for i := range cells {
			header[i] = "c" + string(rune('a'+i%26)) + strings.Repeat("x", i/26)
		}
		_ = w.Write(header)
		_ = w.Write(cells)
		w.Flush()
		var got []string
		err := EachRowFrom(&buf, func(_ *Reader, row Row) error {
			got = append(got, row.Fields()...)
			return nil
		})
		if err != nil {
			t.Fatalf("reading back %q: %v", buf.String(), err)
		}
		if len(cells) == 1 && cells[0] == "" {
			return // encoding/csv writes a lone empty field as an empty line, which is skipped
		}
		if diff := cmp.Diff(cells, got); diff != "" {
			t.Fatalf("round trip (-want +got):\n%s", diff)
		}
	})
}

// RowOffset and SeekRow: seeking to a row's offset reads that row again,
// with or without a byte-order mark, CRLF line ends, quoted newlines and
// empty lines before it.
func TestSeekRow(t *testing.T) {
	tests := []struct {
		name string
		in   string
	}{
		{"plain", "n,v\n1,a\n2,b\n3,c\n"},
		{"byte-order mark and CRLF", "\xef\xbb\xbfn,v\r\n1,a\r\n2,b\r\n3,c\r\n"},
		{"quoted newlines and empty lines", "n,v\n1,\"a\nx\"\n\n2,\"b,\"\"y\"\"\"\n\n\n3,c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := NewReader(strings.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			var offsets []int64
			var rows [][]string
			for {
				row, err := r.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				offsets, rows = append(offsets, r.RowOffset()), append(rows, row.Fields())
			}
			if r.Offset() != int64(len(tt.in)) {
				t.Errorf("offset at the end = %d, want the size %d", r.Offset(), len(tt.in))
			}
			for i, off := range offsets {
				if err := r.SeekRow(off); err != nil {
					t.Fatal(err)
				}
				row, err := r.Next()
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(rows[i], row.Fields()); diff != "" || r.RowOffset() != off {
					t.Errorf("row %d after seeking to %d (-want +got):\n%s", i, off, diff)
				}
			}
			if err := r.SeekRow(r.HeaderEnd() - 1); err == nil || !strings.Contains(err.Error(), "inside the header") {
				t.Errorf("seeking into the header: err = %v", err)
			}
		})
	}
}

func TestSeekRowNeedsASeeker(t *testing.T) {
	r, err := NewReader(io.MultiReader(strings.NewReader("n\n1\n")))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.SeekRow(r.HeaderEnd()); err == nil || !strings.Contains(err.Error(), "cannot seek") {
		t.Errorf("err = %v, want it to say the file cannot seek", err)
	}
}
