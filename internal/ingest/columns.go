package ingest

import (
	"github.com/a11y-dev/cwac-operator/internal/diff"
	"github.com/a11y-dev/cwac-operator/internal/results"
)

// columns are the cells an ingest reads of a CSV's rows, each found once
// for the file (results.Reader.Column; -1: the CSV has none, read as ""):
// found by name (Row.Get), each cell of each row cost a map lookup.
type columns struct {
	organisation, sector, url, numPages         int
	viewport, numIssues, pageTitle, description int
	id, html, target, impact, helpURL, tags     int
	position                                    int // diff.PositionColumn
}

func columnsOf(r *results.Reader) columns {
	return columns{
		organisation: r.Column("organisation"), sector: r.Column("sector"), url: r.Column("url"),
		numPages: r.Column("number_of_pages"), viewport: r.Column("viewport_size"), numIssues: r.Column("num_issues"),
		pageTitle: r.Column("page_title"), description: r.Column("description"), id: r.Column("id"), html: r.Column("html"),
		target: r.Column("target"), impact: r.Column("impact"), helpURL: r.Column("helpUrl"), tags: r.Column("tags"),
		position: diff.PositionColumn(r),
	}
}
