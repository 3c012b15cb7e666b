package diff

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestReadDocumentRefuses: what ReadDocument will not read, and why.
func TestReadDocumentRefuses(t *testing.T) {
	huge := `{"format":"` + Format + `","rows":[{"change":"new","html":"` + strings.Repeat("x", MaxValueBytes+1) + `"}]}`
	tests := []struct {
		name, doc, want string
		is              error
	}{
		{name: "another format", doc: `{"format":"v0","rows":[]}`, want: `format "v0"`},
		{name: "rows before the figures", doc: `{"rows":[],"format":"` + Format + `"}`, want: "figures must come before its rows"},
		{name: "not an object", doc: `[1]`, want: "where \"{\" was expected"},
		{name: "a row over the limit", doc: huge, is: ErrValueTooLarge},
		{name: "cut short", doc: `{"format":"` + Format + `","rows":[{"change":"new"}`, want: "reading diff.json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadDocument(strings.NewReader(tc.doc), func(*Row) error { return nil })
			switch {
			case err == nil:
				t.Fatal("read without error")
			case tc.is != nil && !errors.Is(err, tc.is):
				t.Errorf("err = %v, want %v", err, tc.is)
			case tc.want != "" && !strings.Contains(err.Error(), tc.want):
				t.Errorf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// TestWriteDocumentLayout: the figures come first and each row has its own
// line, so a person (or head, or grep) can read diff.json.
func TestWriteDocumentLayout(t *testing.T) {
	var spool bytes.Buffer
	rw := NewRowWriter(&spool)
	for _, ch := range []Change{ChangeNew, ChangeFixed} {
		if err := rw.Write(&Row{Change: ch, HTML: "<a href=\"x\">&</a>", Issues: 1}); err != nil {
			t.Fatal(err)
		}
	}
	if err := rw.Flush(); err != nil {
		t.Fatal(err)
	}
	res := &Result{ByRule: []RuleChange{}}
	res.Counts.Baseline = "monday"
	var doc bytes.Buffer
	if err := WriteDocument(&doc, res, &spool); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(doc.String(), "\n")
	want := []string{"{", `"format": "` + Format + `",`, `"baseline": "monday",`}
	for i, w := range want {
		if lines[i] != w {
			t.Errorf("line %d = %q, want %q", i+1, lines[i], w)
		}
	}
	rowLines := 0
	for _, l := range lines {
		if strings.HasPrefix(l, `{"change":`) {
			rowLines++
			if !strings.Contains(l, `<a href=\"x\">&</a>`) {
				t.Errorf("HTML is escaped: %s", l)
			}
		}
	}
	if rowLines != 2 {
		t.Errorf("%d row lines, want 2:\n%s", rowLines, doc.String())
	}
}

// TestReadSpooledRows: rows come back as a RowWriter spooled them, each
// whole and in order (a reused Row keeps nothing of the one before), and a
// spool that is not rows says which line.
func TestReadSpooledRows(t *testing.T) {
	written := []Row{
		{Change: ChangeFixed, Audit: "axe_core_audit", URL: "https://a.example/", HTML: "<b>&</b>", Issues: 2, IssueID: "x", Decided: true},
		{Change: ChangeNew, Audit: "axe_core_audit", URL: "https://b.example/", Issues: 1},
	}
	var spool bytes.Buffer
	rw := NewRowWriter(&spool)
	for i := range written {
		if err := rw.Write(&written[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := rw.Flush(); err != nil {
		t.Fatal(err)
	}
	var read []Row
	if err := ReadSpooledRows(bytes.NewReader(spool.Bytes()), func(r *Row) error {
		read = append(read, *r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(read) != len(written) {
		t.Fatalf("read %d rows, want %d", len(read), len(written))
	}
	for i := range written {
		if read[i] != written[i] {
			t.Errorf("row %d = %+v, want %+v", i+1, read[i], written[i])
		}
	}

	stop := errors.New("stop")
	tests := []struct {
		name, spool string
		fn          func(*Row) error
		want        string
		is          error
	}{
		{name: "garbled second line", spool: `{"change":"new"}` + "\n{nope\n", want: "spooled row 2"},
		{name: "a line over the limit", spool: `{"html":"` + strings.Repeat("x", maxRowLine) + `"}` + "\n", want: "reading the spooled rows"},
		{name: "fn's error", spool: `{"change":"new"}` + "\n", fn: func(*Row) error { return stop }, is: stop},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fn := tc.fn
			if fn == nil {
				fn = func(*Row) error { return nil }
			}
			err := ReadSpooledRows(strings.NewReader(tc.spool), fn)
			switch {
			case err == nil:
				t.Fatal("read without error")
			case tc.is != nil && !errors.Is(err, tc.is):
				t.Errorf("err = %v, want %v", err, tc.is)
			case tc.want != "" && !strings.Contains(err.Error(), tc.want):
				t.Errorf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}
