package dashboard

import (
	"cmp"
	"context"
	"fmt"
	"html/template"
	"math"
	"net/http"
	"net/url"
	"slices"

	"github.com/a11y-dev/cwac-operator/internal/report"
	"github.com/a11y-dev/cwac-operator/internal/store"
)

// Bounds of the organisation page's lists.
const (
	orgTemplates   = 20
	orgPagesShown  = 50
	orgOldestShown = 10
	orgChanges     = 25
	// orgPointsShown bounds the over-time charts and table: a year of
	// weekly scans. Each scan adds about 1 KB to the page, which passed
	// 200 KB near 200 scans; the trend exports hold every point.
	orgPointsShown = 52
)

// OrganisationTrend is an organisation's figures per scan, oldest first,
// in one namespace (with a schedule, that schedule's scans only): the
// organisation page's chart and table and its trend export render it,
// each point's score as shownScore shows it.
func OrganisationTrend(ctx context.Context, st *store.Store, namespace, organisation, schedule string) ([]store.TrendPoint, error) {
	points, err := st.OrganisationTrend(ctx, []string{namespace}, organisation, schedule)
	shownTrend(points)
	return points, err
}

// Site is one scheme and host of an organisation's pages.
type Site struct {
	Site  string
	Pages int
	Open  int64
}

// organisationPage is the organisation page's data.
type organisationPage struct {
	Namespace, Organisation, Sector, Schedule string
	Points                                    []store.TrendPoint
	// Older counts the points before Points that the page leaves to the
	// trend exports.
	Older  int
	Latest *store.TrendPoint
	// SetAsideScans are the Points with findings set aside
	// (report.TimingDependentWhy), which the page names.
	SetAsideScans           []store.TrendPoint
	ScoreChart, IssuesChart template.HTML
	Templates               []store.Template
	Pages                   []store.PageIssues
	PagesWithIssues         int
	Sites                   []Site
	Oldest                  []store.Issue
	OpenTotal               int64
	Changes                 store.LatestChanges
	// Decided is the kind of the decision covering each listed issue (by
	// id), when the dashboard reads decisions.
	Decided map[string]string
	// Owners answer for the organisation (declared with its sites);
	// HasOwners is whether the dashboard reads owners at all.
	Owners                []ownerView
	HasOwners             bool
	TrendCSV, TrendJSON   string
	IssuesCSV, IssuesJSON string
}

// organisation is /organisations/{ns}/{org}.
func (h *Handler) organisation(w http.ResponseWriter, r *http.Request, v *viewer) {
	ns, org, schedule, st := h.organisationParams(w, r, v)
	if st == nil {
		return
	}
	ctx := r.Context()
	notFound := store.NoOrganisation(ns, org) + "."
	points, err := OrganisationTrend(ctx, st, ns, org, schedule)
	if err != nil {
		h.storeFailed(w, r, v, notFound, err)
		return
	}
	shown, older := newestPoints(points, orgPointsShown)
	d := organisationPage{Namespace: ns, Organisation: org, Schedule: schedule, Points: shown, Older: older,
		TrendCSV:   orgExport(ns, org, exportTrendBase+".csv"),
		TrendJSON:  orgExport(ns, org, exportTrendBase+".json"),
		IssuesCSV:  orgExport(ns, org, exportIssuesBase+".csv"),
		IssuesJSON: orgExport(ns, org, exportIssuesBase+".json")}
	if schedule != "" {
		q := "?schedule=" + url.QueryEscape(schedule)
		d.TrendCSV, d.TrendJSON = d.TrendCSV+q, d.TrendJSON+q
	}
	for _, p := range shown {
		if p.SetAside > 0 {
			d.SetAsideScans = append(d.SetAsideScans, p)
		}
	}
	if n := len(shown); n > 0 {
		d.Latest = &shown[n-1]
		d.ScoreChart, d.IssuesChart = trendCharts(org, shown)
	}
	if err := organisationLists(ctx, st, &d); err != nil {
		h.storeFailed(w, r, v, notFound, err)
		return
	}
	if d.Decided, err = h.decidedIssues(ctx, ns, d.Oldest, d.Changes.New, d.Changes.Fixed, d.Changes.Reopened); err != nil {
		h.unavailable(w, r, v, err)
		return
	}
	d.HasOwners = h.opts.Owners != nil
	if d.Owners, err = h.ownersOf(ctx, ns, org, ""); err != nil {
		h.unavailable(w, r, v, err)
		return
	}
	h.render(w, r, http.StatusOK, "organisation", page{Title: org, Nav: navOrganisations, Viewer: v, Data: d})
}

// orgExport is the URL of one of an organisation's exports.
func orgExport(ns, org, file string) string {
	return "/export/organisations/" + url.PathEscape(ns) + "/" + url.PathEscape(org) + "/" + file
}

// newestPoints is the newest n of points (oldest first, as given) and
// how many older ones it leaves out.
func newestPoints(points []store.TrendPoint, n int) (shown []store.TrendPoint, older int) {
	if len(points) <= n {
		return points, 0
	}
	older = len(points) - n
	return points[older:], older
}

// organisationParams validates the organisation page's (and its export's)
// path and query: 400 for a malformed value, 404 for a namespace the
// viewer may not read, or an organisation their grants do not cover (said
// as not found: its existence is not theirs to know), 503 without a store
// (needStore). The store is nil when it answered.
func (h *Handler) organisationParams(w http.ResponseWriter, r *http.Request, v *viewer) (ns, org, schedule string, st *store.Store) {
	ns, org = r.PathValue("ns"), r.PathValue("org")
	schedule = r.URL.Query().Get(fieldSchedule)
	err := checkQuery(r.URL.Query(), fieldSchedule)
	if err == nil {
		err = checkName(fieldNamespace, ns)
	}
	if err == nil {
		err = checkOrganisation(org)
	}
	if err == nil && r.URL.Query().Has(fieldSchedule) {
		err = checkName(fieldSchedule, schedule)
	}
	if err != nil {
		h.badRequest(w, r, v, err.Error())
		return "", "", "", nil
	}
	notFound := store.NoOrganisation(ns, org) + " that you may read."
	if !v.may(ns) {
		h.refused(r, v, "may not read namespace "+ns)
		h.fail(w, r, v, http.StatusNotFound, "Not found", notFound)
		return "", "", "", nil
	}
	if st = h.needStore(w, r, v); st == nil {
		return "", "", "", nil
	}
	// By grant: an organisation not covered reads as one not there.
	if ok, err := h.covers(r.Context(), st, v, ns, org); err != nil || !ok {
		if err == nil {
			h.refused(r, v, "organisation not covered by the viewer's grants, or not in the history")
			err = store.ErrNotFound
		}
		h.storeFailed(w, r, v, notFound, err)
		return "", "", "", nil
	}
	return ns, org, schedule, st
}

// organisationLists fills the page's lists from the store.
func organisationLists(ctx context.Context, st *store.Store, d *organisationPage) error {
	var err error
	if d.Templates, err = st.Templates(ctx, d.Namespace, d.Organisation, orgTemplates); err != nil {
		return err
	}
	pages, err := st.OrganisationPages(ctx, d.Namespace, d.Organisation, store.MaxOrganisationPages)
	if err != nil {
		return err
	}
	d.Sites = sites(pages)
	for _, p := range pages {
		if p.Open > 0 {
			d.PagesWithIssues++
			if len(d.Pages) < orgPagesShown {
				d.Pages = append(d.Pages, p)
			}
		}
	}
	oldest, err := st.IssueHistory(ctx, store.IssueFilter{Namespaces: []string{d.Namespace}, Organisation: d.Organisation,
		State: store.StateOpen, Limit: orgOldestShown})
	if err != nil {
		return err
	}
	d.Oldest, d.OpenTotal = oldest.Issues, oldest.Total
	d.Changes, err = st.OrganisationLatestChanges(ctx, d.Namespace, d.Organisation, orgChanges)
	if err != nil {
		return err
	}
	// The sector is the organisation's own (the store keeps it with the
	// name): the leaderboard's query for this one organisation.
	o, err := st.Organisation(ctx, d.Namespace, d.Organisation)
	if err != nil {
		return err
	}
	d.Sector = o.Sector
	return nil
}

// sites groups pages by scheme and host, most open issues first.
func sites(pages []store.PageIssues) []Site {
	by := map[string]*Site{}
	for _, p := range pages {
		key := p.Page
		if u, err := url.Parse(p.Page); err == nil && u.Host != "" {
			key = u.Scheme + "://" + u.Host
		}
		s := by[key]
		if s == nil {
			s = &Site{Site: key}
			by[key] = s
		}
		s.Pages++
		s.Open += p.Open
	}
	out := make([]Site, 0, len(by))
	for _, s := range by {
		out = append(out, *s)
	}
	slices.SortFunc(out, func(a, b Site) int { return cmp.Or(cmp.Compare(b.Open, a.Open), cmp.Compare(a.Site, b.Site)) })
	return out
}

// trendCharts draws the score and the issues by impact over the points.
func trendCharts(org string, points []store.TrendPoint) (score, issues template.HTML) {
	labels := make([]string, len(points))
	scores := make([]float64, len(points))
	impacts := impactClasses()
	byImpact := make([]series, len(impacts))
	for i, name := range impacts {
		byImpact[i] = series{Name: capital(name), Values: make([]float64, len(points))}
	}
	for i, p := range points {
		labels[i] = p.FinishedAt.UTC().Format("2006-01-02")
		scores[i] = math.NaN()
		if p.Score != nil {
			scores[i] = *p.Score
		}
		for j, name := range impacts {
			byImpact[j].Values[i] = float64(p.ByImpact[name])
		}
	}
	first, last := points[0], points[len(points)-1]
	score = lineChart("score-chart", "Score over time for "+org,
		fmt.Sprintf("%d scans from %s to %s; the latest score is %s (0 to 100, higher is better). The table below has every figure.",
			len(points), labels[0], labels[len(labels)-1], FormatScore(last.Score)),
		labels, []series{{Name: "Score", Values: scores}})
	issues = lineChart("issues-chart", "Issues by impact over time for "+org,
		fmt.Sprintf("%d scans from %s to %s; issues went from %d to %d. The table below has every figure.",
			len(points), labels[0], labels[len(labels)-1], first.Issues, last.Issues),
		labels, byImpact)
	return score, issues
}

// impactClasses are the impact classes, worst first (report.ImpactClasses:
// axe-core's impacts, then other). The trend charts and the CSV exports
// show them in this order.
func impactClasses() []string { return report.ImpactClasses() }

func capital(s string) string {
	if s == "" {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
