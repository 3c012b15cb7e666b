package results

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

// parsed is what a CSV parser made of some input: its records, the input
// offset after each, and whether it stopped on an error.
type parsed struct {
	Records [][]string
	Offsets []int64
	Failed  bool
	// Err is the error's text: a parse error names its line and column.
	Err string
}

func parseWithEncodingCSV(data []byte) parsed {
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	var p parsed
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return p
		}
		if err != nil {
			p.Failed, p.Err = true, err.Error()
			return p
		}
		p.Records = append(p.Records, rec)
		p.Offsets = append(p.Offsets, r.InputOffset())
	}
}

func parseWithRecordReader(data []byte, bufSize int) parsed {
	rr := newRecordReader(bufio.NewReaderSize(bytes.NewReader(data), bufSize), 1<<30)
	var p parsed
	for {
		err := rr.read()
		if errors.Is(err, io.EOF) {
			return p
		}
		if err != nil {
			p.Failed, p.Err = true, err.Error()
			return p
		}
		rec := make([]string, rr.fields)
		for i := range rec {
			rec[i] = rr.text(i)
		}
		p.Records = append(p.Records, rec)
		p.Offsets = append(p.Offsets, rr.offset)
	}
}

// recordReaderCases are inputs on every path of the parser.
var recordReaderCases = []string{
	"", "\n", "\r\n", "a", "a\n", "a,b\r\nc,d\r\n", "a,b\rc\n", "a\r", "\n\n a,b \n\n", ",\n,,\n",
	`"a","b""c",d` + "\n", `"a` + "\n" + `b","c` + "\r\n" + `d"` + "\n", `"a"`, `"a"` + "\r", `"a""`, `"a"b`, `a"b`, `"a"` + "\r\n",
	`"unterminated`, `"x",` + "\n", `"",""` + "\n", "\"a\n\n\"\n", "x,\"y\"\"\"\n", "\xff,\xfe\"\n", "a,\"b\r\n", "é,\"ü\",ß\n",
	// Errors placed by line and column: in later cells, after quoted
	// cells, on a quoted cell's later lines, at the end of the input.
	"ab,cd\"e\n", "x\nab,c\"\n", `"ab"x,c` + "\n", `a,"b""c"x` + "\n", `a,"b` + "\n" + `cd"e` + "\n", `a,"b` + "\n" + `cd`,
	"x\n\"a\nb\"c\n", `a,b,"c""d""e",f"g` + "\n", "\"a\n\nb\"\"c\"d\n", "\"a\r\nbc\r\nd", `"a",b"` + "\n", "a,\"b\nc\",d\"\n",
	"\"ab\ncd\nef\"x\n", "aa,\"b\ncc\n", "\n\n\"a\"\"b\n",
}

// TestRecordReaderMatchesEncodingCSV: the same records, offsets and
// failures as encoding/csv on the table's inputs and on real CWAC CSVs, with
// a read buffer small enough that long lines are gathered across reads.
func TestRecordReaderMatchesEncodingCSV(t *testing.T) {
	inputs := append([]string(nil), recordReaderCases...)
	for _, name := range []string{"axe_core_audit.csv", "element_audit.csv", "screenshot_audit.csv", "progress.csv"} {
		data, err := os.ReadFile(realScan + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, string(data))
	}
	for _, in := range inputs {
		want := parseWithEncodingCSV([]byte(in))
		for _, size := range []int{16, 4096} {
			if diff := cmp.Diff(want, parseWithRecordReader([]byte(in), size)); diff != "" {
				t.Errorf("%.60q with a %d-byte buffer (-encoding/csv +recordReader):\n%s", in, size, diff)
			}
		}
	}
}

// FuzzRecordReader: on any input, the same records, offsets and failures
// as encoding/csv.
func FuzzRecordReader(f *testing.F) {
	for _, c := range recordReaderCases {
		f.Add([]byte(c))
	}
	f.Add([]byte(strings.Repeat("ab,\"c\nd\",", 5) + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		want := parseWithEncodingCSV(data)
		for _, size := range []int{16, 4096} {
			if diff := cmp.Diff(want, parseWithRecordReader(data, size)); diff != "" {
				t.Fatalf("%q with a %d-byte buffer (-encoding/csv +recordReader):\n%s", data, size, diff)
			}
		}
	})
}

// failingReader gives data, then fails with err (with the last bytes, as
// a reader may).
type failingReader struct {
	data string
	err  error
}

func (f *failingReader) Read(p []byte) (int, error) {
	n := copy(p, f.data)
	f.data = f.data[n:]
	if f.data == "" {
		return n, f.err
	}
	return n, nil
}

// TestRecordReaderReadErrors: a read that fails part-way gives the records
// before it and then the error encoding/csv gives: a parse error in the
// bytes read first, else the read's own.
func TestRecordReaderReadErrors(t *testing.T) {
	errDisk := errors.New("disk on fire")
	for _, in := range []string{"a,b\nx\"y", "a,b\nx,y", "a,b\n\"x", "a,b\n\"x\"y", "a,b\n", "a", "\"a\"\"b\"", "a,b\n\"x\ny\""} {
		want := parseReader(func(r io.Reader) func() ([]string, int64, error) {
			c := csv.NewReader(r)
			c.FieldsPerRecord = -1
			return func() ([]string, int64, error) { rec, err := c.Read(); return rec, c.InputOffset(), err }
		}(&failingReader{in, errDisk}))
		rr := newRecordReader(bufio.NewReaderSize(&failingReader{in, errDisk}, 16), 1<<30)
		got := parseReader(func() ([]string, int64, error) {
			if err := rr.read(); err != nil {
				return nil, 0, err
			}
			rec := make([]string, rr.fields)
			for i := range rec {
				rec[i] = rr.text(i)
			}
			return rec, rr.offset, nil
		})
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%q then a read error (-encoding/csv +recordReader):\n%s", in, diff)
		}
	}
}

func parseReader(next func() ([]string, int64, error)) parsed {
	var p parsed
	for {
		rec, off, err := next()
		if errors.Is(err, io.EOF) {
			return p
		}
		if err != nil {
			p.Failed, p.Err = true, err.Error()
			return p
		}
		p.Records = append(p.Records, rec)
		p.Offsets = append(p.Offsets, off)
	}
}

// TestTextInterns: short values that repeat are made into a string once
// (up to 128 bytes, and up to 4096 distinct values); longer ones, and
// values past the cap, are new strings each time. Between the two reads of
// a value the column holds another (long, never interned), so what is
// tested is the table, not the previous record's string (TestTextOfARecord).
func TestTextInterns(t *testing.T) {
	if maxInternBytes != 128 || maxInterned != 4096 {
		t.Fatalf("limits are %d bytes and %d values; the cases below are written for 128 and 4096", maxInternBytes, maxInterned)
	}
	// Between the two reads of a value come more other values than a
	// column remembers, so the second read finds it only interned.
	between := make([]string, 0, recentTexts+1)
	for i := range recentTexts + 1 {
		between = append(between, strings.Repeat(strconv.Itoa(i), 200))
	}
	sameTwice := func(rr *recordReader, value string) bool {
		var got [2]string
		for i := range got {
			rr.br.Reset(strings.NewReader(value + "\n" + strings.Join(between, "\n") + "\n"))
			must(t, rr.read())
			got[i] = rr.text(0)
			if got[i] != value {
				t.Fatalf("text = %q, want %q", got[i], value)
			}
			for _, want := range between {
				must(t, rr.read())
				if other := rr.text(0); other != want {
					t.Fatalf("text = %q, want %q", other, want)
				}
			}
		}
		return unsafe.StringData(got[0]) == unsafe.StringData(got[1])
	}
	rr := newRecordReader(bufio.NewReader(strings.NewReader("")), 1<<20)
	for _, tt := range []struct {
		size int
		want bool
	}{{1, true}, {127, true}, {128, true}, {129, false}, {1000, false}} {
		if got := sameTwice(rr, strings.Repeat("v", tt.size)); got != tt.want {
			t.Errorf("a %d-byte value interned: %v, want %v", tt.size, got, tt.want)
		}
	}
	if rr.text(0) == "" && len(rr.record) != 0 {
		t.Error("text of a non-empty cell is empty")
	}
	// Fill the table to one below its cap, at the cap, then past it.
	rr = newRecordReader(bufio.NewReader(strings.NewReader("")), 1<<20)
	for i := range maxInterned - 1 {
		rr.br.Reset(strings.NewReader(strconv.Itoa(i) + "\n"))
		must(t, rr.read())
		_ = rr.text(0)
	}
	if !sameTwice(rr, "the last value that fits") {
		t.Error("the 4096th value is not interned")
	}
	if sameTwice(rr, "one value too many") {
		t.Error("a value past the cap is interned")
	}
	if !sameTwice(rr, "0") {
		t.Error("a value interned before the cap is no longer")
	}
}

// TestTextOfARecord: a cell asked for again in the same record, or equal
// to the same column's cell of the record before, is the string already
// made, whatever its size and however full the table; a cell that differs
// from the record before is its own value.
func TestTextOfARecord(t *testing.T) {
	long := strings.Repeat("p", 300) // never interned
	// Record 2 repeats the first two columns of record 1, record 3 changes
	// them, record 4's second is empty.
	in := "a," + long + ",x\n" + "a," + long + ",y\n" + "b," + long + "q,y\n" + "a,,y\n"
	rr := newRecordReader(bufio.NewReader(strings.NewReader(in)), 1<<20)
	for i := range maxInterned + 1 { // the table full: only the records' own strings are reused
		rr.internMap[strconv.Itoa(i)] = strconv.Itoa(i)
	}
	type cells [3]string
	got := make([]cells, 0, 4)
	for range cap(got) {
		must(t, rr.read())
		var c cells
		for i := range c {
			c[i] = rr.text(i)
			if again := rr.text(i); unsafe.StringData(again) != unsafe.StringData(c[i]) || again != c[i] {
				t.Errorf("record %d cell %d asked twice: %q then %q, not the same string", len(got)+1, i, c[i], again)
			}
		}
		got = append(got, c)
	}
	want := []cells{{"a", long, "x"}, {"a", long, "y"}, {"b", long + "q", "y"}, {"a", "", "y"}}
	for r := range want {
		if got[r] != want[r] {
			t.Errorf("record %d = %q, want %q", r+1, got[r], want[r])
		}
	}
	same := func(a, b string) bool { return unsafe.StringData(a) == unsafe.StringData(b) }
	if !same(got[0][1], got[1][1]) || !same(got[1][2], got[2][2]) {
		t.Error("a cell equal to the record before's is made into a new string")
	}
	if same(got[1][1], got[2][1]) {
		t.Error("a changed cell shares the record before's string")
	}
}

// TestTextRemembersRecentValues: a column taking turns among a few values
// too long to intern gives each the string it made the first time, as long
// as the turn is no longer than what a column remembers (its last value and
// recentTexts others); one value more and each is made anew.
func TestTextRemembersRecentValues(t *testing.T) {
	for _, tt := range []struct {
		values int
		reused bool
	}{{recentTexts + 1, true}, {recentTexts + 2, false}} {
		var values []string
		for i := range tt.values {
			values = append(values, strings.Repeat(strconv.Itoa(i), maxInternBytes+1))
		}
		turn := strings.Join(values, "\n") + "\n"
		rr := newRecordReader(bufio.NewReader(strings.NewReader(turn+turn+turn)), 1<<20)
		var first []string
		for round := range 3 {
			for i, want := range values {
				must(t, rr.read())
				got := rr.text(0)
				if got != want {
					t.Fatalf("round %d value %d: %q, want %q", round, i, got, want)
				}
				if round == 0 {
					first = append(first, got)
				} else if same := unsafe.StringData(got) == unsafe.StringData(first[i]); same != tt.reused {
					t.Errorf("%d values in turn, round %d value %d: the first string again %v, want %v", tt.values, round, i, same, tt.reused)
				}
			}
		}
	}
}

// TestCellsWithDoubledQuotes: the doubled quotes of a one-line record's
// cells are undone whichever cell is asked for first, and a cell asked for
// twice is not undone twice.
func TestCellsWithDoubledQuotes(t *testing.T) {
	in := `"a""b",plain,"""q""","x""""y"` + "\n" + `"c""d",e,"",f` + "\n"
	rr := newRecordReader(bufio.NewReader(strings.NewReader(in)), 1<<20)
	must(t, rr.read())
	for _, c := range []struct {
		i    int
		want string
	}{{2, `"q"`}, {0, `a"b`}, {2, `"q"`}, {3, `x""y`}, {1, "plain"}, {3, `x""y`}, {0, `a"b`}} {
		if got := string(rr.cell(c.i)); got != c.want {
			t.Errorf("record 1 cell %d = %q, want %q", c.i, got, c.want)
		}
	}
	must(t, rr.read())
	for i, want := range []string{`c"d`, "e", "", "f"} {
		if got := rr.text(i); got != want {
			t.Errorf("record 2 cell %d = %q, want %q", i, got, want)
		}
	}
}

// TestWhichRecordsAreReadInPlace: a record whole on one line is read where
// it lies in the read buffer (whatever its cells: empty, quoted, with
// doubled quotes, quoted after quoted, a trailing empty cell, with or
// without its newline); one over several lines, or one the format
// refuses, takes the general path. Both give encoding/csv's cells.
func TestWhichRecordsAreReadInPlace(t *testing.T) {
	for _, tt := range []struct {
		in      string
		inPlace bool
	}{
		{"a,b,c\n", true}, {"a,b,c", true}, {"a,\n", true}, {"a,", true}, {",\n", true}, {"a\r\n", true},
		{`"a","b"` + "\n", true}, {`"",""` + "\n", true}, {`""`, true}, {`"a""b",c` + "\n", true},
		{`x,"y""",z` + "\n", true}, {`"a",b,c` + "\n", true}, {`a,"b"` + "\n", true}, {`"a,b",c` + "\n", true},
		{`"a` + "\nb\"\n", false}, {`a"b` + "\n", false}, {`"a"b` + "\n", false}, {`a,b"` + "\n", false},
		{`"a",b"c` + "\n", false}, {`"unterminated`, false},
	} {
		rr := newRecordReader(bufio.NewReader(strings.NewReader(tt.in)), 1<<20)
		err := rr.read()
		if rr.oneLine != tt.inPlace {
			t.Errorf("%q read in place: %v, want %v", tt.in, rr.oneLine, tt.inPlace)
		}
		want := parseWithEncodingCSV([]byte(tt.in))
		if !tt.inPlace {
			continue // FuzzRecordReader compares the general path's cells and errors
		}
		if err != nil || want.Failed || len(want.Records) == 0 {
			t.Errorf("%q: %v (encoding/csv: %v)", tt.in, err, want.Err)
			continue
		}
		got := make([]string, rr.fields)
		for i := range got {
			got[i] = rr.text(i)
		}
		if !slices.Equal(got, want.Records[0]) {
			t.Errorf("%q = %q, want %q", tt.in, got, want.Records[0])
		}
	}
}
