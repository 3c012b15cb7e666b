package dashboard

import (
	"cmp"
	"context"
	"math"
	"slices"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/report"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/store"
)

// SparklinePoints is how many recent scans a leaderboard row's trend shows.
const SparklinePoints = 12

// LeaderboardRow is one organisation's line of the leaderboard: its
// latest scan's figures (the store's, as recorded by the ingest with the
// leaderboard's own score function) and how they changed.
type LeaderboardRow struct {
	// Rank within the sector: standard competition rank (1, 1, 3); 0 for
	// an organisation that is not ranked.
	Rank         int    `json:"rank,omitempty"`
	Namespace    string `json:"namespace"`
	Organisation string `json:"organisation"`
	Sector       string `json:"sector"`
	// LatestScan names the newest scan with figures, "namespace/name".
	LatestScan string    `json:"latest_scan"`
	FinishedAt time.Time `json:"finished_at"`
	Scans      int64     `json:"scans"`
	Pages      int       `json:"pages"`
	Issues     int64     `json:"issues"`
	Critical   int64     `json:"critical"`
	Serious    int64     `json:"serious"`
	Moderate   int64     `json:"moderate"`
	Minor      int64     `json:"minor"`
	Other      int64     `json:"other"`
	Score      *float64  `json:"score"`
	// ScoreChange and IssuesChange compare with the previous scan (nil
	// for an organisation scanned once, or a score missing on either side).
	ScoreChange  *float64 `json:"score_change"`
	IssuesChange *int64   `json:"issues_change"`
	// Unranked says why the organisation is not ranked ("" when it is):
	// its latest scan saw no page, or was not complete.
	Unranked string `json:"unranked,omitempty"`
	// Completeness is the latest scan's verdict on the organisation
	// (complete, partial, blocked, unreachable; "" when not known).
	Completeness string `json:"completeness,omitempty"`
	// Trend is the newest scans' scores and issues, oldest first.
	Trend []ScorePoint `json:"trend"`
	// PlaceOnly marks another organisation's row shown to a viewer who
	// reads by CwacOrganisationGrant: its rank, sector and score alone,
	// its name only when a grant shows other organisations' names.
	PlaceOnly bool `json:"place_only,omitempty"`
}

// ScorePoint is one point of a row's trend as the leaderboard shows and
// exports it: the score as shownScore shows it.
type ScorePoint struct {
	Scan       string    `json:"scan"`
	FinishedAt time.Time `json:"finished_at"`
	Issues     int64     `json:"issues"`
	Score      *float64  `json:"score"`
	// Completeness is the scan's verdict on the organisation ("" when not
	// known), shown beside the score.
	Completeness string `json:"completeness,omitempty"`
}

// Sector is one sector's ranking.
type Sector struct {
	Name string           `json:"sector"`
	Rows []LeaderboardRow `json:"organisations"`
}

// LeaderboardFigures is every organisation the viewer may read, ranked
// within its sector; those that cannot be ranked fairly are apart.
type LeaderboardFigures struct {
	Sectors []Sector `json:"sectors"`
	// Unranked are organisations whose latest scan scanned no page (so
	// no score) or did not scan them completely (partial, blocked or
	// unreachable): shown apart, never ranked as if clean.
	Unranked []LeaderboardRow `json:"unranked"`
}

// The store's impact classes: axe-core's four, and other.
const (
	impactCritical = results.ImpactCritical
	impactSerious  = results.ImpactSerious
	impactModerate = results.ImpactModerate
	impactMinor    = results.ImpactMinor
	impactOther    = report.ImpactOther
)

// Why an organisation is not ranked.
const unrankedNoPages = "its latest scan scanned no page"

// Leaderboard computes the leaderboard of the namespaces from the store,
// every organisation with its trend: /export/leaderboard.* render what it
// returns, and the page at / renders a slice of the same rows
// (LeaderboardSlice), so both show the same figures.
func Leaderboard(ctx context.Context, st *store.Store, namespaces []string) (LeaderboardFigures, error) {
	out, err := rankedLeaderboard(ctx, st, namespaces)
	if err != nil {
		return LeaderboardFigures{}, err
	}
	recent, err := st.RecentScores(ctx, namespaces, SparklinePoints)
	if err != nil {
		return LeaderboardFigures{}, err
	}
	for _, s := range out.Sectors {
		for i := range s.Rows {
			withTrend(&s.Rows[i], recent)
		}
	}
	for i := range out.Unranked {
		withTrend(&out.Unranked[i], recent)
	}
	return out, nil
}

// LeaderboardSlice is one page of the leaderboard: the rows from offset
// (0-based) to offset+limit in the leaderboard's order (the sectors by
// name, each best first, then the organisations not ranked), ranked among
// all of them, with the trends of those rows only.
type LeaderboardSlice struct {
	Figures LeaderboardFigures
	// Total counts every row of the leaderboard; Offset is the slice's first.
	Total, Offset int
	// SectorSizes counts each sector's ranked organisations in all, and
	// UnrankedSize the organisations not ranked; SectorFrom and
	// UnrankedFrom number the slice's first row of each within it, from 1.
	SectorSizes, SectorFrom    map[string]int
	UnrankedSize, UnrankedFrom int
}

// rankedLeaderboard is every organisation's row, ranked within its sector
// or set apart, without trends.
func rankedLeaderboard(ctx context.Context, st *store.Store, namespaces []string) (LeaderboardFigures, error) {
	orgs, err := st.Organisations(ctx, namespaces)
	if err != nil {
		return LeaderboardFigures{}, err
	}
	out := LeaderboardFigures{Sectors: []Sector{}, Unranked: []LeaderboardRow{}}
	bySector := map[string][]LeaderboardRow{}
	for _, o := range orgs {
		row := leaderboardRow(o, nil)
		if row.Unranked != "" {
			out.Unranked = append(out.Unranked, row)
			continue
		}
		bySector[row.Sector] = append(bySector[row.Sector], row)
	}
	for _, name := range sortedKeys(bySector) {
		rows := bySector[name]
		rank(rows)
		out.Sectors = append(out.Sectors, Sector{Name: name, Rows: rows})
	}
	return out, nil
}

// withTrend gives a row its recent points and its change since the
// previous scan.
func withTrend(row *LeaderboardRow, recent map[store.OrganisationKey][]store.ScorePoint) {
	setTrend(row, recent[store.OrganisationKey{Namespace: row.Namespace, Name: row.Organisation}])
}

func leaderboardRow(o store.OrganisationSummary, trend []store.ScorePoint) LeaderboardRow {
	p := o.Latest
	row := LeaderboardRow{
		Namespace: o.Namespace, Organisation: o.Name, Sector: o.Sector, Scans: o.Scans,
		LatestScan: p.Scan, FinishedAt: p.FinishedAt, Pages: p.Pages, Issues: p.Issues,
		Critical: p.ByImpact[impactCritical], Serious: p.ByImpact[impactSerious], Moderate: p.ByImpact[impactModerate],
		Minor: p.ByImpact[impactMinor], Other: p.ByImpact[impactOther], Score: shownScore(p.Score, p.Completeness),
	}
	switch {
	case p.Completeness != "" && p.Completeness != string(results.VerdictComplete):
		// Issue 23's verdict: figures of a partly scanned, blocked or
		// unreachable organisation cover only what the scanner could read.
		row.Unranked = "its latest scan did not scan it completely (" + p.Completeness + ")"
		if p.CompletenessReason != "" {
			row.Unranked += ": " + p.CompletenessReason
		}
	case p.Score == nil || p.Pages == 0:
		row.Unranked = unrankedNoPages
	}
	row.Completeness = p.Completeness
	setTrend(&row, trend)
	return row
}

// setTrend gives a row its newest points, oldest first, and its change
// since the previous scan (the last two points), each point's score as
// shownScore shows it.
func setTrend(row *LeaderboardRow, trend []store.ScorePoint) {
	row.Trend, row.ScoreChange, row.IssuesChange = make([]ScorePoint, len(trend)), nil, nil
	for i, p := range trend {
		row.Trend[i] = ScorePoint{Scan: p.Scan, FinishedAt: p.FinishedAt, Issues: p.Issues,
			Score: shownScore(p.Score, p.Completeness), Completeness: p.Completeness}
	}
	if n := len(row.Trend); n >= 2 {
		prev, last := row.Trend[n-2], row.Trend[n-1]
		d := last.Issues - prev.Issues
		row.IssuesChange = &d
		if prev.Score != nil && last.Score != nil {
			c := math.Round((*last.Score-*prev.Score)*10) / 10
			row.ScoreChange = &c
		}
	}
}

// rank orders a sector's rows by score, best first (then by name and
// namespace), and gives equal scores equal ranks, as the report's
// leaderboard does.
func rank(rows []LeaderboardRow) {
	slices.SortStableFunc(rows, func(a, b LeaderboardRow) int {
		if c := cmp.Compare(*b.Score, *a.Score); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(a.Organisation, b.Organisation), cmp.Compare(a.Namespace, b.Namespace))
	})
	ranks := report.CompetitionRanks(len(rows), func(i int) bool { return *rows[i].Score == *rows[i-1].Score })
	for i := range rows {
		rows[i].Rank = ranks[i]
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
