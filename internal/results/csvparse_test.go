package results

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

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
