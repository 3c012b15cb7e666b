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
