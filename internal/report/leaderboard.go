package report

import (
	"bytes"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/a11y-dev/cwac-operator/internal/results"
)

// Weights of issues in the leaderboard score.
var Weights = map[string]float64{results.ImpactCritical: 10, results.ImpactSerious: 5, results.ImpactModerate: 2, results.ImpactMinor: 1}

// OtherWeight weighs issues of audits without an axe impact.
const OtherWeight = 3

// weightOf is the weight of an impact class (impactClasses' order).
func weightOf(class int) float64 {
	if class == 4 {
		return OtherWeight
	}
	return Weights[impactClasses[class]]
}

// OrgScore is one leaderboard row.
type OrgScore struct {
	// Rank is the standard competition rank: organisations with the same
	// score share a rank and the next one skips (1, 1, 3).
	Rank         int
	Organisation string
	Sector       string
	BaseURLs     int
	Pages        int
	Critical     int64
	Serious      int64
	Moderate     int64
	Minor        int64
	Other        int64
	// WeightedPerPage is the weighted issue count per page scanned.
	WeightedPerPage float64
	// Score is 0-100, higher is better; nil when no page was scanned.
	Score *float64
	// Completeness is the organisation's completeness verdict ("" when
	// the summary has none). One that is not complete is not ranked
	// (Rank 0): its figures cover only what the scanner could read.
	Completeness string
	// SetAside is CWAC's count of the organisation's timing-dependent rows,
	// which are in none of the counts above and move no score
	// (TimingDependentWhy).
	SetAside int64
	// Decided is CWAC's count of the organisation's issues decisions
	// cover, which are in none of the counts above and move no score.
	Decided int64
	// CompletenessReason says why the organisation is not complete, in
	// the results package's words ("" when it is complete or the summary
	// has no completeness): an unranked row must say why it is unranked.
	CompletenessReason string
}

// ScoreShown reports whether the row's score may be shown: not for a
// blocked or unreachable organisation, whose score would grade a refusal,
// a challenge page or an error page rather than its site. Its Score is
// kept, as the store keeps it, so that only what is shown changes.
func (o OrgScore) ScoreShown() bool { return results.Verdict(o.Completeness).ScoreShown() }

// Leaderboard ranks the organisations aggregated so far.
func (b *Builder) Leaderboard() []OrgScore {
	out := make([]OrgScore, 0, len(b.orgs))
	for _, o := range b.orgs {
		s := OrgScore{
			Organisation: o.Name, Sector: o.Sector, BaseURLs: o.BaseURLs, Pages: o.Pages,
			Critical: o.Count[0], Serious: o.Count[1], Moderate: o.Count[2], Minor: o.Count[3], Other: o.Count[4],
			SetAside: o.SetAside, Decided: o.Decided,
		}
		s.WeightedPerPage, s.Score = Score(o.Count, o.Pages)
		out = append(out, s)
	}
	rank(out)
	return out
}

// TimingDependentWhy says what the issues set aside from every count and
// score are, and why, in the words every page that shows the figure uses
// (the report, the dashboard, the MCP server's answers): the rows the
// comparison and the issue history do not compare either.
const TimingDependentWhy = "focus-indicator findings on a page's <body>, which CWAC writes on some runs and not others: " +
	"counted, they would move scores with CWAC's timing rather than the site"

// ImpactCounts are issues per impact class, in the leaderboard's order:
// critical, serious, moderate, minor, and other (audits without an axe
// impact, or an impact axe does not define).
type ImpactCounts = byImpact

// ImpactClass is an impact's index in ImpactCounts.
func ImpactClass(impact string) int { return impactIndex(impact) }

// Score is the leaderboard's figure for one organisation's issues
// (CWAC's count, by impact class) over its pages: the weighted issues per
// page and the score, 0-100 and higher better, both to one decimal; the
// score is nil when no page was scanned. Everything that shows a score
// (the leaderboard, the issue history's trend) calls this one function.
func Score(counts ImpactCounts, pages int) (weightedPerPage float64, score *float64) {
	var weighted float64
	for i, n := range counts {
		weighted += float64(n) * weightOf(i)
	}
	if pages <= 0 {
		return 0, nil
	}
	sc := round1(math.Max(0, 100-weighted/float64(pages)))
	return round1(weighted / float64(pages)), &sc
}

// rank sorts by score (no score last) and gives equal scores equal ranks.
func rank(rows []OrgScore) {
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if c := compareScores(a.Score, b.Score); c != 0 {
			return c > 0
		}
		return a.Organisation < b.Organisation
	})
	ranks := CompetitionRanks(len(rows), func(i int) bool { return compareScores(rows[i].Score, rows[i-1].Score) == 0 })
	for i := range rows {
		rows[i].Rank = ranks[i]
	}
}

// CompetitionRanks are the ranks of n rows sorted best first, as every
// leaderboard of the product ranks (the report's, the dashboard's): equal
// scores share a rank and the next rank counts them all (1, 2, 2, 4).
// tied(i) says whether row i (from 1) scores as row i-1 does.
func CompetitionRanks(n int, tied func(i int) bool) []int {
	ranks := make([]int, n)
	for i := range ranks {
		if i > 0 && tied(i) {
			ranks[i] = ranks[i-1]
		} else {
			ranks[i] = i + 1
		}
	}
	return ranks
}

// compareScores orders scores, a missing score below any other; scores
// are compared as shown, to one decimal.
func compareScores(a, b *float64) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	case *a > *b:
		return 1
	case *a < *b:
		return -1
	}
	return 0
}

func round1(f float64) float64 { return math.Round(f*10) / 10 }

// SafeCell neutralises spreadsheet formulas: a cell starting with = + - @ or a
// control character is prefixed with a quote so that it stays text.
func SafeCell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r\n", rune(s[0])) {
		return "'" + s
	}
	return s
}

// leaderboardHeader is leaderboard.csv's first row. Its impact columns
// are results.Impacts, the one list of axe-core's impacts, so that they
// cannot fall out of its order. Readers find columns by position: a new
// column goes at the end.
var leaderboardHeader = slices.Concat(
	[]string{"rank", "organisation", "sector", "base_urls", "pages_scanned"},
	results.Impacts(),
	[]string{"other_issues", "weighted_issues_per_page", "score", "completeness", "completeness_reason", "timing_dependent_set_aside",
		"decided"},
)

// LeaderboardCSV renders the leaderboard. Every cell is quoted: a reader
// that splits cells on semicolons (a common spreadsheet locale setting)
// would otherwise read "x;=1+2" as a second cell holding a formula.
// A blocked or unreachable organisation's score and weighted issues per
// page are left empty: in a spreadsheet they would read as a clean site.
func LeaderboardCSV(rows []OrgScore) ([]byte, error) {
	var buf bytes.Buffer
	writeQuotedRecord(&buf, leaderboardHeader)
	for _, o := range rows {
		weightedPerPage, score := "", ""
		if o.ScoreShown() {
			weightedPerPage, score = strconv.FormatFloat(o.WeightedPerPage, 'f', 1, 64), formatScore(o.Score)
		}
		writeQuotedRecord(&buf, []string{
			rankCell(o.Rank), SafeCell(o.Organisation), SafeCell(o.Sector), strconv.Itoa(o.BaseURLs), strconv.Itoa(o.Pages),
			strconv.FormatInt(o.Critical, 10), strconv.FormatInt(o.Serious, 10), strconv.FormatInt(o.Moderate, 10),
			strconv.FormatInt(o.Minor, 10), strconv.FormatInt(o.Other, 10), weightedPerPage, score,
			o.Completeness, SafeCell(o.CompletenessReason), strconv.FormatInt(o.SetAside, 10), strconv.FormatInt(o.Decided, 10),
		})
	}
	return buf.Bytes(), nil
}

func formatScore(s *float64) string {
	if s == nil {
		return ""
	}
	return strconv.FormatFloat(*s, 'f', 1, 64)
}

// writeQuotedRecord writes one RFC 4180 record with every cell quoted.
func writeQuotedRecord(buf *bytes.Buffer, cells []string) {
	for i, c := range cells {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteByte('"')
		buf.WriteString(strings.ReplaceAll(c, `"`, `""`))
		buf.WriteByte('"')
	}
	buf.WriteByte('\n')
}
