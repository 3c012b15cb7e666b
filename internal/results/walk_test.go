package results

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// recorder notes every call Walk makes.
type recorder struct {
	calls  []string
	failOn string // a call to fail, e.g. "row b.csv 2"
}

func (r *recorder) note(s string) error {
	r.calls = append(r.calls, s)
	if s == r.failOn {
		return errors.New("visitor refused")
	}
	return nil
}

func (r *recorder) BeginFile(file string, _ *Reader) error { return r.note("begin " + file) }
func (r *recorder) EndFile(file string, _ *Reader) error   { return r.note("end " + file) }
func (r *recorder) VisitRow(file string, _ *Reader, row Row) error {
	return r.note(fmt.Sprintf("row %s %s", file, row.Get("v")))
}

// rowsOnly implements RowVisitor alone.
type rowsOnly struct{ n int }

func (r *rowsOnly) VisitRow(string, *Reader, Row) error { r.n++; return nil }

func TestWalk(t *testing.T) {
	fsys := fstest.MapFS{
		"b.csv":              {Data: []byte("\xef\xbb\xbfv\n1\n2\n")},
		"a.csv":              {Data: []byte("v\n")},
		LeaderboardFile:      {Data: []byte("v\nx\n")},
		ProgressFile:         {Data: []byte("v\n\"torn")},
		"summary.json":       {Data: []byte("{}")},
		"sub/c.csv":          {Data: []byte("v\n3\n")},
		"screenshots/ignore": {Data: []byte("x")},
	}
	tests := []struct {
		name    string
		failOn  string
		want    []string
		wantErr string
	}{
		{
			name: "every CSV at the root once, in name order, with its boundaries",
			want: []string{"begin a.csv", "end a.csv", "begin b.csv", "row b.csv 1", "row b.csv 2", "end b.csv"},
		},
		{
			name:    "a visitor's error stops the walk, naming the file",
			failOn:  "row b.csv 1",
			want:    []string{"begin a.csv", "end a.csv", "begin b.csv", "row b.csv 1"},
			wantErr: "b.csv: visitor refused",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{failOn: tt.failOn}
			plain := &rowsOnly{}
			err := Walk(context.Background(), fsys, rec, plain)
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, rec.calls); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
			if tt.wantErr == "" && plain.n != 2 {
				t.Errorf("a RowVisitor without file hooks saw %d rows, want 2", plain.n)
			}
		})
	}
}

func TestWalkErrors(t *testing.T) {
	big := "v\n" + strings.Repeat("1\n", 3*ctxCheckRows)
	tests := []struct {
		name    string
		fsys    fstest.MapFS
		cancel  bool
		wantErr string
	}{
		{
			name: "a broken CSV names its file", fsys: fstest.MapFS{"x.csv": {Data: []byte("a,b\n1\n")}},
			wantErr: "x.csv: reading CSV: line 2 has 1 fields, header has 2",
		},
		{name: "an empty CSV names its file", fsys: fstest.MapFS{"x.csv": {Data: nil}}, wantErr: "x.csv: empty CSV: no header"},
		{name: "a cancelled context stops the walk", fsys: fstest.MapFS{"x.csv": {Data: []byte(big)}}, cancel: true, wantErr: context.Canceled.Error()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.cancel {
				cancel()
			}
			err := Walk(ctx, tt.fsys, &rowsOnly{})
			if err == nil || err.Error() != tt.wantErr {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

// Cancelling mid-file stops within ctxCheckRows rows.
func TestWalkStopsMidFile(t *testing.T) {
	fsys := fstest.MapFS{"x.csv": {Data: []byte("v\n" + strings.Repeat("1\n", 10*ctxCheckRows))}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	v := &cancelAfter{n: 10, cancel: cancel}
	if err := Walk(ctx, fsys, v); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if v.seen > ctxCheckRows {
		t.Errorf("saw %d rows after cancelling at 10, want at most %d", v.seen, ctxCheckRows)
	}
}

type cancelAfter struct {
	n, seen int
	cancel  func()
}

func (c *cancelAfter) VisitRow(string, *Reader, Row) error {
	c.seen++
	if c.seen == c.n {
		c.cancel()
	}
	return nil
}
