package results

import (
	"strings"
	"testing"
)

// TestRowFilter: each row falls in one class from its impact (matched in
// any case; none or another is class 0) and whether its num_issues is
// neither empty nor "0"; a filter keeps the classes of its impact and, with
// IssuesOnly, only the issues. Count agrees with Matches row by row.
func TestRowFilter(t *testing.T) {
	// num_issues first: column 0 is a column like any other.
	const csvData = "num_issues,impact,id\n" +
		"1,critical,a\n" + // 0: class 3
		"0,critical,b\n" + // 1: class 2
		" 0 ,Serious,c\n" + // 2: class 4, " 0 " is 0
		"2,MINOR,d\n" + // 3: class 9
		",moderate,e\n" + // 4: class 6, empty is not an issue
		"3,,f\n" + // 5: class 1
		"0,other,g\n" + // 6: class 0
		"00,minor,h\n" // 7: class 9: "00" is not "0"
	wantClass := []RowClass{3, 2, 4, 9, 6, 1, 0, 9}
	tests := []struct {
		filter RowFilter
		want   string // the ids kept
	}{
		{RowFilter{}, "abcdefgh"},
		{RowFilter{IssuesOnly: true}, "adfh"},
		{RowFilter{Impact: "critical"}, "ab"},
		{RowFilter{Impact: "CRITICAL", IssuesOnly: true}, "a"},
		{RowFilter{Impact: "serious"}, "c"},
		{RowFilter{Impact: "serious", IssuesOnly: true}, ""},
		{RowFilter{Impact: "moderate"}, "e"},
		{RowFilter{Impact: "minor"}, "dh"},
		{RowFilter{Impact: "other"}, ""}, // not an impact a filter can name: nothing, not the rows without one
		{RowFilter{Impact: "unknown", IssuesOnly: true}, ""},
	}
	for _, tt := range tests {
		var kept strings.Builder
		var counts RowCounts
		i := 0
		err := EachRowFrom(strings.NewReader(csvData), func(r *Reader, row Row) error {
			c := ClassOf(r, row)
			if c != wantClass[i] {
				t.Errorf("row %d: class %d, want %d", i, c, wantClass[i])
			}
			counts[c]++
			if tt.filter.Matches(r, row) {
				kept.WriteString(row.Get("id"))
			}
			if m := (&matcher{filter: tt.filter}); m.matches(r, row) != tt.filter.Matches(r, row) {
				t.Errorf("row %d: matcher and Matches disagree", i)
			}
			i++
			return nil
		})
		must(t, err)
		if kept.String() != tt.want {
			t.Errorf("%+v keeps %q, want %q", tt.filter, kept.String(), tt.want)
		}
		if n := tt.filter.Count(&counts); n != int64(len(tt.want)) {
			t.Errorf("%+v counts %d, want %d", tt.filter, n, len(tt.want))
		}
	}
}

// TestRowFilterWithoutColumns: a CSV without impact or num_issues puts
// every row in class 0: no issue, no impact.
func TestRowFilterWithoutColumns(t *testing.T) {
	err := EachRowFrom(strings.NewReader("url,x\nhttps://a/,1\n"), func(r *Reader, row Row) error {
		if c := ClassOf(r, row); c != 0 {
			t.Errorf("class %d, want 0", c)
		}
		if (RowFilter{IssuesOnly: true}).Matches(r, row) || (RowFilter{Impact: "minor"}).Matches(r, row) || !(RowFilter{}).Matches(r, row) {
			t.Error("a row without the columns passed a filter that needs them, or failed the empty filter")
		}
		return nil
	})
	must(t, err)
}

// TestMatcherFollowsTheFile: a matcher looks the columns up again for each
// CSV it is handed, which may order them differently.
func TestMatcherFollowsTheFile(t *testing.T) {
	m := &matcher{filter: RowFilter{Impact: "critical", IssuesOnly: true}}
	var got []bool
	for _, data := range []string{"impact,num_issues\ncritical,1\n", "num_issues,impact\n1,critical\n", "num_issues,impact\ncritical,1\n"} {
		must(t, EachRowFrom(strings.NewReader(data), func(r *Reader, row Row) error {
			got = append(got, m.matches(r, row))
			return nil
		}))
	}
	if len(got) != 3 || !got[0] || !got[1] || got[2] {
		t.Errorf("matches = %v, want [true true false]", got)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
