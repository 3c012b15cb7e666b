package diff

import "github.com/a11y-dev/cwac-operator/internal/results"

// cells reads the cells the comparison uses from the rows of one CSV,
// each column found once for the file (results.Reader.Column). Found by
// name (Row.Get), a map lookup for every cell of every row was a sixth of
// a comparison's time at a million rows. A column the CSV lacks reads "".
type cells struct {
	viewport, numIssues, url, pageTitle, organisation int
	id, impact, html, description, help, helpURL      int
	// target is axe's XPath target; position is PositionColumn.
	target, position int
}

func cellsOf(r *results.Reader) *cells {
	c := &cells{
		viewport: r.Column("viewport_size"), numIssues: r.Column("num_issues"), url: r.Column("url"),
		pageTitle: r.Column("page_title"), organisation: r.Column("organisation"),
		id: r.Column("id"), impact: r.Column("impact"), html: r.Column("html"), description: r.Column("description"),
		help: r.Column("help"), helpURL: r.Column("helpUrl"), target: r.Column("target"), position: PositionColumn(r),
	}
	return c
}
