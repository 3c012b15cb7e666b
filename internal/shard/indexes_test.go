package shard

import (
	"slices"
	"strings"
	"testing"
)

func TestParseIndexes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []int
		err  string
	}{
		{in: "", want: nil},
		{in: "0", want: []int{0}},
		{in: "1,3-5", want: []int{1, 3, 4, 5}},
		{in: "5,1,3-4,4", want: []int{1, 3, 4, 5}},
		{in: "2-2", want: []int{2}},
		{in: "0-1023", want: seq(0, 1023)},
		{in: "0-1024", err: "more than 1024"},
		{in: "0-1022,2000", want: append(seq(0, 1022), 2000)},
		{in: "0-1022,2000,2001", err: "more than 1024"},
		{in: "x", err: `"x" is not an index`},
		{in: "-1", err: `"-1" is not an index`},
		{in: "3-1", err: `"3-1" is not an index`},
		{in: "1-x", err: `"1-x" is not an index`},
		{in: "1,,2", err: `"" is not an index`},
	} {
		got, err := ParseIndexes(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseIndexes(%q) error = %v, want one containing %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("ParseIndexes(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func seq(first, last int) []int {
	var out []int
	for i := first; i <= last; i++ {
		out = append(out, i)
	}
	return out
}

func FuzzParseIndexes(f *testing.F) {
	for _, s := range []string{"", "0", "1,3-5", "0-1023", "9-3", "a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseIndexes(s)
		if err != nil {
			return
		}
		if len(got) > maxIndexes {
			t.Fatalf("%q expanded to %d indexes", s, len(got))
		}
		if !slices.IsSorted(got) || len(slices.Compact(slices.Clone(got))) != len(got) {
			t.Fatalf("%q gave %v: not ascending and distinct", s, got)
		}
	})
}
