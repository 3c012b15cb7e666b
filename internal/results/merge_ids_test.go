package results

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestShiftID(t *testing.T) {
	for in, want := range map[string]string{
		"12": "112", "12.0": "112", "3_small": "103_small", "3_small.png": "103_small.png", "1_a_b": "101_a_b",
		"": "", "x": "x", "12x": "12x", "12.5": "12.5", "-1": "-1", "1234567890123456": "1234567890123456",
	} {
		if got := string(shiftID([]byte(in), 100)); got != want {
			t.Errorf("shiftID(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCopyShiftingIDs(t *testing.T) {
	tests := []struct {
		name, in, want string
		cols           []int
	}{
		{"first and last columns, CRLF", "1,a,1_s\r\n2,b,2_m\r\n", "11,a,11_s\r\n12,b,12_m\r\n", []int{0, 2}},
		{"LF, no final line end", "a,1\nb,2", "a,11\nb,12", []int{1}},
		{"quoted cells elsewhere keep every byte", "\"x,\r\ny\",3,\"say \"\"hi\"\"\"\r\n", "\"x,\r\ny\",13,\"say \"\"hi\"\"\"\r\n", []int{1}},
		{"a quoted id", "\"4\",z\r\n", "\"14\",z\r\n", []int{0}},
		{"an id cell that is not one", "n/a,z\r\n,z\r\n", "n/a,z\r\n,z\r\n", []int{0}},
		{"other columns untouched", "5,5,5\r\n", "5,15,5\r\n", []int{1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cols := map[int]bool{}
			for _, c := range tt.cols {
				cols[c] = true
			}
			var out bytes.Buffer
			if err := copyShiftingIDs(&out, strings.NewReader(tt.in), cols, 10); err != nil {
				t.Fatal(err)
			}
			if out.String() != tt.want {
				t.Errorf("got %q, want %q", out.String(), tt.want)
			}
		})
	}
}

// A cell past MaxRecordBytes is refused, one at it is copied.
func TestCopyShiftingIDsCellLimit(t *testing.T) {
	at := strings.Repeat("9", MaxRecordBytes)
	var out bytes.Buffer
	if err := copyShiftingIDs(&out, strings.NewReader(at+"\n"), map[int]bool{0: true}, 1); err != nil || out.Len() != MaxRecordBytes+1 {
		t.Errorf("a cell of MaxRecordBytes: %v (%d bytes out)", err, out.Len())
	}
	err := copyShiftingIDs(io.Discard, strings.NewReader(at+"9\n"), map[int]bool{0: true}, 1)
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("a cell past MaxRecordBytes: %v", err)
	}
}

// FuzzShiftIDs: for CSV that encoding/csv reads, the copy reads as the
// same records with only the chosen column's page numbers moved.
func FuzzShiftIDs(f *testing.F) {
	f.Add("1,a,1_s\r\n2,\"b\r\n,\"\"\",2_m\r\n", uint8(0))
	f.Add("x,\"3\"\n", uint8(1))
	f.Fuzz(func(t *testing.T, in string, col uint8) {
		want, err := csv.NewReader(strings.NewReader(in)).ReadAll()
		if err != nil {
			return
		}
		c := int(col % 4)
		var out bytes.Buffer
		if err := copyShiftingIDs(&out, strings.NewReader(in), map[int]bool{c: true}, 7); err != nil {
			t.Fatal(err)
		}
		r := csv.NewReader(&out)
		r.FieldsPerRecord = -1
		got, err := r.ReadAll()
		if err != nil {
			t.Fatalf("the copy of %q does not read: %v (%q)", in, err, out.String())
		}
		if len(got) != len(want) {
			t.Fatalf("%d records, want %d", len(got), len(want))
		}
		for i := range want {
			if len(got[i]) != len(want[i]) {
				t.Fatalf("record %d: %q, want %q", i, got[i], want[i])
			}
			for j := range want[i] {
				g, w := got[i][j], want[i][j]
				if j != c {
					if g != w {
						t.Fatalf("record %d cell %d: %q, want %q", i, j, g, w)
					}
					continue
				}
				// The page number moves; a cell with quotes or line ends
				// inside may also stay as it was.
				shifted := string(shiftID([]byte(w), 7))
				if trimmed, ok := strings.CutSuffix(w, "\r"); ok {
					shifted = string(shiftID([]byte(trimmed), 7)) + "\r"
				}
				if g != shifted && (g != w || !strings.ContainsAny(w, "\"\r\n")) {
					t.Fatalf("record %d id cell: %q, want %q", i, g, shifted)
				}
			}
		}
	})
}
