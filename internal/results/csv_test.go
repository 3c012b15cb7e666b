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
