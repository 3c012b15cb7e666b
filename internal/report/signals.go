package report

import (
	"cmp"
	_ "embed" // the signals' sections of the HTML template
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/a11y-dev/cwac-operator/internal/results"
)

// MaxSignalRows is how many rows each list of the signals' sections shows
// (template issues, pages without a title, duplicate titles, broken
// responses, pages' reading levels; organisations too): the rest is
// counted, and is in CWAC's CSVs and the MCP tools.
const MaxSignalRows = 50

//go:embed signals.html.tmpl
var signalsTemplate string

// Signals are the signals the builder read beside the issues (each list at
// most limit long; limit < 0: as long as results.SignalsBuilder keeps it).
func (b *Builder) Signals(limit int) *results.Signals { return b.signals.Signals(limit) }

// signalsView is what the signals' sections show; a nil part has no section.
type signalsView struct {
	Templates   *templatesView
	Titles      *titlesView
	Responses   *responsesView
	Readability *readabilityView
}

type templatesView struct {
	*results.TemplateSignals
	Orgs     []results.OrganisationTemplates
	MoreOrgs int
	Rows     []templateRow
	More     int64
}

type templateRow struct {
	results.TemplateIssue
	Link string
}

type titlesView struct {
	*results.TitleSignals
	Orgs           []results.OrganisationTitles
	MoreOrgs       int
	Missing        []pageLink
	MoreMissing    int64
	Duplicates     []duplicateRow
	MoreDuplicates int64
}

type pageLink struct{ URL, Link, Organisation string }

type duplicateRow struct {
	results.DuplicateTitle
	Links []pageLink
	More  int64
}

type responsesView struct {
	*results.ResponseSignals
	Statuses string
	Orgs     []responseOrg
	MoreOrgs int
	Rows     []responseRow
	More     int64
}

type responseOrg struct {
	Organisation string
	Responses    int64
	Statuses     string
}

type responseRow struct {
	results.BrokenResponse
	Link, FromLink string
}

type readabilityView struct {
	*results.ReadabilitySignals
	Orgs     []results.OrganisationReadability
	MoreOrgs int
	Rows     []readabilityRow
	More     int64
}

type readabilityRow struct {
	results.PageReadability
	Link string
}

// signalsOf makes the sections' view from the builder's signals.
func (b *Builder) signalsOf() signalsView {
	s := b.signals.Signals(MaxSignalRows)
	var v signalsView
	if t := s.Templates; t != nil {
		tv := &templatesView{TemplateSignals: t, More: t.TemplateIssues - int64(len(t.Issues))}
		tv.Orgs, tv.MoreOrgs = firstRows(t.ByOrganisation)
		for _, i := range t.Issues {
			tv.Rows = append(tv.Rows, templateRow{TemplateIssue: i, Link: httpURL(i.ExampleURL)})
		}
		v.Templates = tv
	}
	if t := s.Titles; t != nil {
		tv := &titlesView{TitleSignals: t, MoreMissing: t.MissingOrEmpty - int64(len(t.Missing)), MoreDuplicates: t.DuplicateTitles - int64(len(t.Duplicates))}
		tv.Orgs, tv.MoreOrgs = firstRows(t.ByOrganisation)
		for _, p := range t.Missing {
			tv.Missing = append(tv.Missing, pageLink{URL: p.URL, Link: httpURL(p.URL), Organisation: p.Organisation})
		}
		for _, d := range t.Duplicates {
			row := duplicateRow{DuplicateTitle: d, More: d.Pages - int64(len(d.URLs))}
			for _, u := range d.URLs {
				row.Links = append(row.Links, pageLink{URL: u, Link: httpURL(u)})
			}
			tv.Duplicates = append(tv.Duplicates, row)
		}
		v.Titles = tv
	}
	if r := s.Responses; r != nil {
		rv := &responsesView{ResponseSignals: r, Statuses: statusList(r.ByStatus), More: r.Responses - int64(len(r.List))}
		orgs, more := firstRows(r.ByOrganisation)
		rv.MoreOrgs = more
		for _, o := range orgs {
			rv.Orgs = append(rv.Orgs, responseOrg{Organisation: o.Organisation, Responses: o.Responses, Statuses: statusList(o.ByStatus)})
		}
		for _, x := range r.List {
			rv.Rows = append(rv.Rows, responseRow{BrokenResponse: x, Link: httpURL(x.URL), FromLink: httpURL(x.LinkedFrom)})
		}
		v.Responses = rv
	}
	if r := s.Readability; r != nil {
		rv := &readabilityView{ReadabilitySignals: r, More: r.Pages - int64(len(r.List))}
		rv.Orgs, rv.MoreOrgs = firstRows(r.ByOrganisation)
		for _, p := range r.List {
			rv.Rows = append(rv.Rows, readabilityRow{PageReadability: p, Link: httpURL(p.URL)})
		}
		v.Readability = rv
	}
	return v
}

// firstRows is at most MaxSignalRows of rows, and how many are left out.
func firstRows[T any](rows []T) ([]T, int) {
	if len(rows) <= MaxSignalRows {
		return rows, 0
	}
	return rows[:MaxSignalRows], len(rows) - MaxSignalRows
}

// statusList is "404 ×2, 500 ×1": the most frequent status first.
func statusList(by map[string]int64) string {
	keys := slices.Collect(maps.Keys(by))
	slices.SortFunc(keys, func(a, b string) int { return cmp.Or(cmp.Compare(by[b], by[a]), cmp.Compare(a, b)) })
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s ×%s", k, number(by[k])))
	}
	return strings.Join(parts, ", ")
}

// grade writes a reading grade to one decimal.
func grade(f float64) string { return fmt.Sprintf("%.1f", math.Round(f*10)/10) }

// SummarySignals are the signals as summary.json keeps them: each list cut
// to results.SummarySignalItems; nil when no CSV of theirs was read.
func (b *Builder) SummarySignals() *results.Signals {
	s := b.signals.Signals(results.SummarySignalItems)
	if *s == (results.Signals{}) {
		return nil
	}
	return s
}
