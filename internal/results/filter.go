package results

import "strings"

// RowFilter selects rows the way cwac_get_results filters them. Every row
// falls in exactly one RowClass, and a filter is a set of classes, so a row
// index that counts rows per class answers any filter's total unread.
type RowFilter struct {
	// Impact keeps rows of one axe impact (critical, serious, moderate or
	// minor, matched in lower case); "" keeps every row.
	Impact string
	// IssuesOnly keeps rows that are issues: a num_issues column whose
	// value is neither empty nor "0".
	IssuesOnly bool
}

// NumRowClasses is how many RowClass values there are: no impact or
// another, and the four of impactOrder, each issue or not.
const NumRowClasses = 2 * 5

// impactOrder numbers the impacts a filter can name (class 0 is any other).
var impactOrder = []string{ImpactCritical, ImpactSerious, ImpactModerate, ImpactMinor}

// RowClass is a row's class: its impact's number (0 for none or another)
// times two, plus one when it is an issue.
type RowClass int

// ClassOf classifies a row.
func ClassOf(r *Reader, row Row) RowClass {
	c := RowClass(2 * impactNumber(row.Get("impact")))
	if isIssue(r, row) {
		c++
	}
	return c
}

func impactNumber(impact string) int {
	impact = strings.ToLower(impact)
	for i, name := range impactOrder {
		if impact == name {
			return i + 1
		}
	}
	return 0
}

func isIssue(r *Reader, row Row) bool {
	if !r.Has("num_issues") {
		return false
	}
	n := strings.TrimSpace(row.Get("num_issues"))
	return n != "" && n != "0"
}

// Keeps reports whether rows of a class pass the filter.
func (f RowFilter) Keeps(c RowClass) bool {
	if f.IssuesOnly && c%2 == 0 {
		return false
	}
	return f.Impact == "" || int(c/2) == impactNumber(f.Impact) && c/2 != 0
}

// Matches reports whether a row passes the filter.
func (f RowFilter) Matches(r *Reader, row Row) bool { return f.Keeps(ClassOf(r, row)) }

// Count is how many of counted rows pass the filter.
func (f RowFilter) Count(c *RowCounts) int64 {
	var n int64
	for i, v := range *c {
		if f.Keeps(RowClass(i)) {
			n += v
		}
	}
	return n
}

// RowCounts counts rows per RowClass.
type RowCounts [NumRowClasses]int64
