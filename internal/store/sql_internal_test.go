package store

import (
	"slices"
	"strings"
	"testing"
)

// TestChunkRows: statements take full chunks, then the rest in falling
// powers of two, so a scan's statements come in a few sizes.
func TestChunkRows(t *testing.T) {
	for _, c := range []struct {
		left, per int
		want      []int
	}{
		{1, 380, []int{1}},
		{380, 380, []int{380}},
		{1000, 380, []int{380, 380, 128, 64, 32, 16}},
		{1003, 380, []int{380, 380, 128, 64, 32, 16, 2, 1}},
		{7, 5, []int{5, 2}},
		{3, 1, []int{1, 1, 1}},
	} {
		var got []int
		for left := c.left; left > 0; {
			n := chunkRows(left, c.per)
			if n < 1 || n > left {
				t.Fatalf("chunkRows(%d, %d) = %d", left, c.per, n)
			}
			got = append(got, n)
			left -= n
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%d rows by %d: chunks %v, want %v", c.left, c.per, got, c.want)
		}
	}
}

// TestGrowsStatistics: autovacuum's rule for analyzing, more than 50 rows
// and a tenth of those held, applied to the issues a scan added.
func TestGrowsStatistics(t *testing.T) {
	for _, c := range []struct {
		before, added int64
		want          bool
	}{
		{0, 0, false}, {0, 50, false}, {0, 51, true},
		{51, 55, false}, {51, 56, true},
		{1_000_000, 100_050, false}, {1_000_000, 100_051, true},
	} {
		if got := growsStatistics(c.before, c.added); got != c.want {
			t.Errorf("growsStatistics(%d, %d) = %v, want %v", c.before, c.added, got, c.want)
		}
	}
}

// TestSameInEveryRowLiteral: a column written as a literal reads back as
// the value (quotes doubled), and a value of another type is refused,
// naming the column, rather than written as something else.
func TestSameInEveryRowLiteral(t *testing.T) {
	for _, c := range []struct {
		value   any
		want    string
		wantErr string
	}{
		{value: int64(42), want: "42"},
		{value: int64(-7), want: "-7"},
		{value: "open", want: "'open'"},
		{value: "it's", want: "'it''s'"},
		{value: "", want: "''"},
		{value: 42, wantErr: "column c: int is not a value written as a literal"},
		{value: nil, wantErr: "column c: <nil> is not a value written as a literal"},
	} {
		got, err := sameInEveryRow{column: "c", value: c.value}.literal()
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%#v: %q, %v; want an error saying %q", c.value, got, err, c.wantErr)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%#v: %q, %v; want %q", c.value, got, err, c.want)
		}
	}
}
