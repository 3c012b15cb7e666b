// Package digest writes the periodic email an organisation's owners read:
// what its scans of the period changed (new, fixed and reopened issues),
// what to fix first, the issues open longest and the decisions due for
// review, each with a link to the dashboard. Gather reads an organisation's
// part from the issue history; Render writes the message as accessible
// HTML with a plain-text part.
package digest

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/dashboard"
	"github.com/a11y-dev/cwac-operator/internal/decision"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/store"
)

// ListLength is how many templates, pages, oldest issues and decisions
// due a digest lists per organisation: enough to act on this week, short
// enough to read; the dashboard, linked beside each list, has the rest.
const ListLength = 5

// Period is the span a digest covers: scans finished at or after From and
// before To.
type Period struct{ From, To time.Time }

// Covers reports whether the instant is in the period.
func (p Period) Covers(t time.Time) bool { return !t.Before(p.From) && t.Before(p.To) }

// Digest is one message: every organisation its recipient owns.
type Digest struct {
	Period        Period
	Organisations []Organisation
}

// Organisation is one organisation's part of a digest.
type Organisation struct {
	Namespace, Name, Sector string
	// Link is the organisation's dashboard page (absolute).
	Link string
	// Scans counts the organisation's scans recorded in the period, and
	// LatestScan names the newest of them ("" when there was none).
	Scans      int
	LatestScan string
	// Score is the newest score of the period and ScoreBefore the last one
	// before it; nil where there is none, or where the scan could not
	// read the organisation's site (blocked or unreachable).
	Score, ScoreBefore *float64
	// New, Fixed, FixedPageNotScanned and Reopened are summed over the
	// period's scans (issue rows, one per viewport, as the history counts).
	New, Fixed, FixedPageNotScanned, Reopened int64
	// Open counts the issues open after the newest scan before the
	// period's end.
	Open int64
	// What to fix first, and what has waited longest.
	Templates []store.Template
	Pages     []Page
	Oldest    []Issue
	// DueForReview are the organisation's decisions whose review date
	// falls before the period's end.
	DueForReview []decision.Decision
}

// Page is a page with open issues.
type Page struct {
	URL  string
	Open int64
}

// Issue is an open issue, linked to its dashboard page. Rule is the
// history's (the templates word it, as they word the templates' rules).
type Issue struct {
	Rule, Page string
	Width      int
	Since      time.Time
	Link       string
}

// DashboardBase is the dashboard's address the digests link under: an
// http(s) URL with a host, without a trailing slash.
func DashboardBase(dashboardURL string) (*url.URL, error) {
	base, err := url.Parse(strings.TrimSuffix(dashboardURL, "/"))
	if err != nil || (base.Scheme != "https" && base.Scheme != "http") || base.Host == "" {
		return nil, fmt.Errorf("digest: the dashboard address %q is not an http(s) URL", dashboardURL)
	}
	return base, nil
}

// Gather reads one organisation's part of a digest for the period from
// the history; dashboardURL is the dashboard's address (its links are
// made under it), due the organisation's decisions due for review.
func Gather(ctx context.Context, st *store.Store, ns, org string, p Period, dashboardURL string, due []decision.Decision) (Organisation, error) {
	base, err := DashboardBase(dashboardURL)
	if err != nil {
		return Organisation{}, err
	}
	link := func(path string) string { return base.String() + path }
	o := Organisation{Namespace: ns, Name: org, Link: link(dashboard.OrganisationPath(ns, org)), DueForReview: due}
	summary, err := st.Organisation(ctx, ns, org)
	if err != nil {
		return o, err
	}
	o.Sector = summary.Sector
	points, err := st.OrganisationTrend(ctx, []string{ns}, org, "")
	if err != nil {
		return o, err
	}
	o.sumPeriod(points, p)
	if o.Templates, err = st.Templates(ctx, ns, org, ListLength); err != nil {
		return o, err
	}
	pages, err := st.OrganisationPages(ctx, ns, org, ListLength)
	if err != nil {
		return o, err
	}
	for _, pg := range pages {
		if pg.Open > 0 {
			o.Pages = append(o.Pages, Page{URL: pg.Page, Open: pg.Open})
		}
	}
	oldest, err := st.IssueHistory(ctx, store.IssueFilter{Namespaces: []string{ns}, Organisation: org, State: store.StateOpen, Limit: ListLength})
	if err != nil {
		return o, err
	}
	for _, is := range oldest.Issues {
		o.Oldest = append(o.Oldest, Issue{Rule: is.Rule, Page: is.Page, Width: is.ViewportWidth, Since: is.FirstSeenAt,
			Link: link(dashboard.IssuePath(ns, is.Fingerprint))})
	}
	if len(o.DueForReview) > ListLength {
		o.DueForReview = o.DueForReview[:ListLength]
	}
	return o, nil
}

// sumPeriod sums the period's points (oldest first, as the trend gives
// them) and notes the scores before and in it.
func (o *Organisation) sumPeriod(points []store.TrendPoint, p Period) {
	for _, pt := range points {
		score := pt.Score
		if !results.Verdict(pt.Completeness).ScoreShown() {
			score = nil
		}
		switch {
		case pt.FinishedAt.Before(p.From):
			o.ScoreBefore, o.Open = score, pt.Open
		case p.Covers(pt.FinishedAt):
			o.Scans++
			o.LatestScan, o.Score, o.Open = pt.Scan, score, pt.Open
			o.New += pt.New
			o.Fixed += pt.Fixed
			o.FixedPageNotScanned += pt.FixedPageNotScanned
			o.Reopened += pt.Reopened
		}
	}
}
