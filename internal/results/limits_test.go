package results

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/fstest"
)

// endless is a CSV whose first data record never ends: without a cap the
// reader would hold it all.
type endless struct{ header string }

func (e *endless) Read(p []byte) (int, error) {
	if e.header != "" {
		n := copy(p, e.header)
		e.header = e.header[n:]
		return n, nil
	}
	for i := range p {
		p[i] = 'a'
	}
	return len(p), nil
}

func TestRecordSizeIsCapped(t *testing.T) {
	row := func(cell int) string { return "a,b\n" + strings.Repeat("x", cell) + ",y\n" }
	tests := []struct {
		name    string
		src     io.Reader
		wantErr bool
	}{
		{name: "a record just under the cap", src: strings.NewReader(row(MaxRecordBytes - 64<<10))},
		{name: "a record well over the cap", src: strings.NewReader(row(MaxRecordBytes + 64<<10)), wantErr: true},
		{name: "a record that never ends", src: &endless{header: "a,b\n"}, wantErr: true},
		{name: "a header that never ends", src: &endless{}, wantErr: true},
		{name: "a quoted cell that never closes", src: io.MultiReader(strings.NewReader("a,b\n\""), &endless{}), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows := 0
			err := EachRowFrom(tt.src, func(*Reader, Row) error { rows++; return nil })
			if tt.wantErr {
				if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "4194304 bytes") {
					t.Fatalf("err = %v, want ErrTooLarge naming the limit", err)
				}
				return
			}
			if err != nil || rows != 1 {
				t.Fatalf("rows %d, err %v", rows, err)
			}
		})
	}
}

func TestColumnCountIsCapped(t *testing.T) {
	header := func(n int) string { return strings.TrimSuffix(strings.Repeat("c,", n), ",") + "\n" }
	for _, tt := range []struct {
		columns int
		wantErr bool
	}{{MaxColumns - 1, false}, {MaxColumns, false}, {MaxColumns + 1, true}} {
		_, err := NewReader(strings.NewReader(header(tt.columns)))
		if tt.wantErr != (err != nil) || tt.wantErr && !errors.Is(err, ErrTooLarge) {
			t.Errorf("%d columns: err = %v, want error %v", tt.columns, err, tt.wantErr)
		}
	}
}

// A file's error names the file.
func TestEachRowFSNamesTheFile(t *testing.T) {
	fsys := fstest.MapFS{"axe_core_audit.csv": {Data: []byte("a,b\n1\n")}}
	err := EachRowFS(fsys, "axe_core_audit.csv", func(*Reader, Row) error { return nil })
	if err == nil || !strings.HasPrefix(err.Error(), "axe_core_audit.csv: ") {
		t.Errorf("err = %v, want it to name the file", err)
	}
}

// TestRecordSizeAtTheCap: a record of exactly MaxRecordBytes (its line
// ending counted) is read, one byte more is refused — for the header and a
// row, a row that ends the file without a line ending, a quoted row over
// several lines; and the cap is per record, however much came before.
func TestRecordSizeAtTheCap(t *testing.T) {
	// line is a record of size bytes in all, ending with end: a cell of
	// x's, then ",y" and the line ending.
	line := func(size int, end string) string {
		return strings.Repeat("x", size-len(",y"+end)) + ",y" + end
	}
	quoted := func(size int) string { // "x…\nx…",y\n
		inner := size - len(`"",y`+"\n") - 1
		return `"` + strings.Repeat("x", inner/2) + "\n" + strings.Repeat("x", inner-inner/2) + `",y` + "\n"
	}
	manyRows := strings.Repeat("1,2\n", (3<<20)/4) // 3 MiB of short rows first
	tests := []struct {
		name    string
		csv     string
		wantErr bool
	}{
		{name: "a row one byte under", csv: "a,b\n" + line(MaxRecordBytes-1, "\n")},
		{name: "a row at the cap", csv: "a,b\n" + line(MaxRecordBytes, "\n")},
		{name: "a row one byte over", csv: "a,b\n" + line(MaxRecordBytes+1, "\n"), wantErr: true},
		{name: "a CRLF row at the cap", csv: "a,b\r\n" + line(MaxRecordBytes, "\r\n")},
		{name: "a CRLF row one byte over", csv: "a,b\r\n" + line(MaxRecordBytes+1, "\r\n"), wantErr: true},
		{name: "a last row at the cap without a line ending", csv: "a,b\n" + line(MaxRecordBytes, "")},
		{name: "a last row one byte over without a line ending", csv: "a,b\n" + line(MaxRecordBytes+1, ""), wantErr: true},
		{name: "a quoted row over two lines at the cap", csv: "a,b\n" + quoted(MaxRecordBytes)},
		{name: "a quoted row over two lines one byte over", csv: "a,b\n" + quoted(MaxRecordBytes+1), wantErr: true},
		{name: "a header at the cap", csv: line(MaxRecordBytes, "\n") + "1,2\n"},
		{name: "a header one byte over", csv: line(MaxRecordBytes+1, "\n") + "1,2\n", wantErr: true},
		{name: "a header at the cap after the byte-order mark", csv: "\ufeff" + line(MaxRecordBytes, "\n") + "1,2\n"},
		{name: "a long row after many short ones", csv: "a,b\n" + manyRows + line(2<<20, "\n")},
		{name: "a row at the cap after many short ones", csv: "a,b\n" + manyRows + line(MaxRecordBytes, "\n")},
		{name: "a row one byte over after many short ones", csv: "a,b\n" + manyRows + line(MaxRecordBytes+1, "\n"), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows := 0
			err := EachRowFrom(strings.NewReader(tt.csv), func(*Reader, Row) error { rows++; return nil })
			if tt.wantErr {
				if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "a record over 4194304 bytes") {
					t.Fatalf("err = %v, want ErrTooLarge naming the limit", err)
				}
				return
			}
			want := 1
			if strings.Contains(tt.csv, manyRows) {
				want += len(manyRows) / 4
			}
			if err != nil || rows != want {
				t.Fatalf("rows %d, err %v; want %d rows", rows, err, want)
			}
		})
	}
}
