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
// another, and each of axe-core's impacts, each issue or not.
const NumRowClasses = 2 * (1 + len(impacts))

// RowClass is a row's class: its impact's number (0 for none or another)
// times two, plus one when it is an issue.
type RowClass int

// ClassOf classifies a row.
func ClassOf(r *Reader, row Row) RowClass { return classifierOf(r).classOf(row) }

// rowClassifier classifies the rows of one CSV, its columns looked up once
// rather than per row.
type rowClassifier struct {
	r                 *Reader
	impact, numIssues int
}

func classifierOf(r *Reader) rowClassifier {
	return rowClassifier{r: r, impact: r.Column("impact"), numIssues: r.Column("num_issues")}
}

func (c rowClassifier) classOf(row Row) RowClass {
	class := RowClass(2 * impactNumber(row.Field(c.impact)))
	if c.numIssues >= 0 {
		if n := strings.TrimSpace(row.Field(c.numIssues)); n != "" && n != "0" {
			class++
		}
	}
	return class
}

// matcher applies a filter to the rows of the CSVs it is handed, one
// classifier per file.
type matcher struct {
	filter RowFilter
	cls    rowClassifier
}

func (m *matcher) matches(r *Reader, row Row) bool {
	if m.cls.r != r {
		m.cls = classifierOf(r)
	}
	return m.filter.Keeps(m.cls.classOf(row))
}

// impactNumber numbers the impacts a filter can name from 1, worst first;
// no impact or another is 0.
func impactNumber(impact string) int {
	if rank := ImpactRank(strings.ToLower(impact)); rank < len(impacts) {
		return rank + 1
	}
	return 0
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
