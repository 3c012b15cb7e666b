package report

import (
	"math"
	"sort"
	"strconv"

	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/wcag"
)

// What the HTML report shows of each section; the rest is counted (and, for
// rules, named) under the section, and is in full in the CSV files. These
// caps, with the truncation of every cell, bound the report's size
// whatever the size of the results (see TestReportSizeBound).
const (
	// MaxElementsPerRule is how many elements are shown under each rule.
	MaxElementsPerRule = 10
	// MaxRulesShown is how many rules get a section of their own.
	MaxRulesShown = 100
	// MaxPagesShown is how many pages the per-page table lists.
	MaxPagesShown = 100
	// MaxLeaderboardRows is how many organisations the report's leaderboard
	// lists; leaderboard.csv has them all.
	MaxLeaderboardRows = 100
	// MaxChartOrganisations is how many organisations the charts show.
	MaxChartOrganisations = 10
	// maxRulesPerPage is how many rule ids a page's row names.
	maxRulesPerPage = 8
	// maxNamedRest is how many of the rules not shown are named.
	maxNamedRest = 50
	// maxRulesPerCriterion is how many rule ids a criterion's row names.
	maxRulesPerCriterion = 12
)

// bar is one bar of a chart: a label, its figure and its length in percent
// of the chart's width.
type bar struct {
	Label, Class string
	Value        int64
	Width        float64
}

// stackedBar is one organisation's bar, a segment per impact class.
type stackedBar struct {
	Label    string
	Total    int64
	Segments []segment
}

type segment struct {
	Class    string
	X, Width float64
	Value    int64
}

type diffView struct {
	*results.DiffCounts
	ByImpact []diffBar
	ByOrg    []diffBar
	MoreOrgs int
}

// diffBar pairs the new and fixed issues of one impact or organisation.
type diffBar struct {
	Label      string
	New, Fixed bar
}

type criterionRow struct {
	wcag.Criterion
	URL                    string
	Rules                  []string
	MoreRules              int
	Elements, Count, Pages int64
}

// namedRules names the first few rules of a criterion's row and counts the rest.
func namedRules(ids map[string]bool) ([]string, int) {
	all := sortedKeys(ids)
	if len(all) > maxRulesPerCriterion {
		return all[:maxRulesPerCriterion], len(all) - maxRulesPerCriterion
	}
	return all, 0
}

// samplePage is one page of a rule's section, with the rule's elements on it.
type samplePage struct {
	URL, Title, Link string
	Elements         []sampleElement
}

type sampleElement struct {
	HTML, Target string
	Viewports    []string
}

type ruleRow struct {
	*rule
	Where        []*samplePage // the sampled elements by page
	MoreElements int64
}

type pageRow struct {
	*pageTexts
	Elements  int64
	ByImpact  byImpact
	Rules     []string
	MoreRules int
}

// view is what the template renders.
type view struct {
	Meta    Meta
	Summary *results.Summary
	CSS     any
	Impacts []string

	Elements, Count, Critical, Serious int64
	// SetAside is CWAC's count of timing-dependent rows, in no other figure.
	SetAside    int64
	SetAsideWhy string
	// Decided is CWAC's count of issues decisions cover, in no other figure.
	Decided        int64
	CriteriaFailed map[string]int
	Viewports      []string
	ElementsCapped bool

	// Trend is the "Over time" section (nil: fewer than two scans known).
	Trend *trendView

	ImpactChart []bar
	OrgChart    []stackedBar
	OrgMore     int
	Diff        *diffView

	Criteria    []criterionRow
	NoCriterion criterionRow

	Leaderboard     []OrgScore
	LeaderboardMore int
	Weights         map[string]float64
	OtherWeight     float64

	Rules              []ruleRow
	RulesMore          int
	RulesMoreNames     []string
	RulesMoreUnnamed   int
	RulesMoreElements  int64
	Pages              []pageRow
	PagesMore          int64
	PagesMoreElements  int64
	InformationalFiles []string

	// Signals are the sections of CWAC's signals (signals.go).
	Signals signalsView
	// Completeness is the "What was scanned" section (nil: not known).
	Completeness *completenessView
}

func (b *Builder) view(meta Meta, summary *results.Summary, board []OrgScore) *view {
	v := &view{
		Meta: meta, Summary: summary, Impacts: impactClasses, Weights: Weights, OtherWeight: OtherWeight,
		Elements: b.totalElements.total(), Count: b.totalCount.total(), Critical: b.totalElements[0], Serious: b.totalElements[1],
		CriteriaFailed: map[string]int{}, ElementsCapped: b.elementsCapped, SetAside: b.setAside, SetAsideWhy: TimingDependentWhy,
		Decided: b.decided,
	}
	for _, vp := range b.viewports {
		v.Viewports = append(v.Viewports, viewportLabel(vp))
	}
	v.ImpactChart = impactBars(b.totalElements)
	v.OrgChart, v.OrgMore = b.orgBars()
	if summary.Diff != nil {
		v.Diff = diffBars(summary.Diff)
	}
	v.Trend = trendOf(meta.Trend)
	v.Criteria, v.CriteriaFailed = b.criterionRows()
	v.NoCriterion = criterionRow{Elements: b.noCriterionElements, Count: b.noCriterionCount}
	v.NoCriterion.Rules, v.NoCriterion.MoreRules = namedRules(b.noCriterionRules)
	v.Leaderboard = board
	if len(board) > MaxLeaderboardRows {
		v.Leaderboard, v.LeaderboardMore = board[:MaxLeaderboardRows], len(board)-MaxLeaderboardRows
	}
	b.ruleRows(v)
	b.pageRows(v)
	v.Signals = b.signalsOf()
	v.Completeness = completenessOf(summary.Completeness)
	for audit := range summary.Informational {
		v.InformationalFiles = append(v.InformationalFiles, audit)
	}
	sort.Strings(v.InformationalFiles)
	return v
}

func impactBars(counts byImpact) []bar {
	top := int64(0)
	for _, n := range counts {
		top = max(top, n)
	}
	out := make([]bar, 0, len(counts))
	for i, n := range counts {
		out = append(out, bar{Label: impactClasses[i], Class: impactClasses[i], Value: n, Width: widthOf(n, top)})
	}
	return out
}

// widthOf is n as a percentage of top, to one decimal; a non-zero figure
// always shows a sliver.
func widthOf(n, top int64) float64 {
	if top <= 0 || n <= 0 {
		return 0
	}
	return math.Max(0.5, math.Round(float64(n)/float64(top)*1000)/10)
}

func (b *Builder) orgBars() ([]stackedBar, int) {
	orgs := make([]*organisation, 0, len(b.orgs))
	for _, o := range b.orgs {
		if o.Elements.total() > 0 {
			orgs = append(orgs, o)
		}
	}
	sort.Slice(orgs, func(i, j int) bool {
		if a, c := orgs[i].Elements.total(), orgs[j].Elements.total(); a != c {
			return a > c
		}
		return orgs[i].Name < orgs[j].Name
	})
	more := 0
	if len(orgs) > MaxChartOrganisations {
		orgs, more = orgs[:MaxChartOrganisations], len(orgs)-MaxChartOrganisations
	}
	var top int64
	for _, o := range orgs {
		top = max(top, o.Elements.total())
	}
	out := make([]stackedBar, 0, len(orgs))
	for _, o := range orgs {
		sb := stackedBar{Label: o.Name, Total: o.Elements.total()}
		x := 0.0
		for i, n := range o.Elements {
			if n == 0 {
				continue
			}
			w := math.Round(float64(n)/float64(top)*1000) / 10
			sb.Segments = append(sb.Segments, segment{Class: impactClasses[i], X: x, Width: w, Value: n})
			x += w
		}
		out = append(out, sb)
	}
	return out, more
}

func diffBars(d *results.DiffCounts) *diffView {
	dv := &diffView{DiffCounts: d}
	var top int64
	for _, c := range impactClasses[:4] {
		top = max(top, d.NewByImpact[c], d.FixedByImpact[c])
	}
	for _, c := range impactClasses[:4] {
		dv.ByImpact = append(dv.ByImpact, diffBar{Label: c,
			New:   bar{Class: "new", Value: d.NewByImpact[c], Width: widthOf(d.NewByImpact[c], top)},
			Fixed: bar{Class: "fixed", Value: d.FixedByImpact[c], Width: widthOf(d.FixedByImpact[c], top)}})
	}
	orgs := append([]results.OrganisationChange(nil), d.ByOrganisation...)
	sort.Slice(orgs, func(i, j int) bool {
		if a, c := orgs[i].New+orgs[i].Fixed, orgs[j].New+orgs[j].Fixed; a != c {
			return a > c
		}
		return orgs[i].Organisation < orgs[j].Organisation
	})
	if len(orgs) > MaxChartOrganisations {
		orgs, dv.MoreOrgs = orgs[:MaxChartOrganisations], len(orgs)-MaxChartOrganisations
	}
	top = 0
	for _, o := range orgs {
		top = max(top, o.New, o.Fixed)
	}
	for _, o := range orgs {
		dv.ByOrg = append(dv.ByOrg, diffBar{Label: o.Organisation,
			New:   bar{Class: "new", Value: o.New, Width: widthOf(o.New, top)},
			Fixed: bar{Class: "fixed", Value: o.Fixed, Width: widthOf(o.Fixed, top)}})
	}
	return dv
}

func (b *Builder) criterionRows() ([]criterionRow, map[string]int) {
	levels := map[string]int{}
	rows := make([]criterionRow, 0, len(b.criteria))
	for _, c := range b.criteria {
		row := criterionRow{Criterion: c.Criterion, URL: c.UnderstandingURL(), Elements: c.Elements, Count: c.Count, Pages: c.Pages}
		row.Rules, row.MoreRules = namedRules(c.Rules)
		rows = append(rows, row)
		levels[string(c.Level)]++
	}
	sort.Slice(rows, func(i, j int) bool { return wcag.Less(rows[i].Number, rows[j].Number) })
	return rows, levels
}

func (b *Builder) ruleRows(v *view) {
	rules := append([]*rule(nil), b.ruleList...)
	sort.Slice(rules, func(i, j int) bool {
		a, c := rules[i], rules[j]
		if ia, ic := impactIndex(a.Impact), impactIndex(c.Impact); ia != ic {
			return ia < ic
		}
		if a.Elements != c.Elements {
			return a.Elements > c.Elements
		}
		return a.ID < c.ID
	})
	if len(rules) > MaxRulesShown {
		rest := rules[MaxRulesShown:]
		rules = rules[:MaxRulesShown]
		v.RulesMore = len(rest)
		for i, r := range rest {
			v.RulesMoreElements += r.Elements
			if i < maxNamedRest {
				v.RulesMoreNames = append(v.RulesMoreNames, r.ID)
			}
		}
		v.RulesMoreUnnamed = max(0, len(rest)-maxNamedRest)
	}
	for _, r := range rules {
		row := ruleRow{rule: r, MoreElements: r.Elements - int64(len(r.samples))}
		byURL := map[string]*samplePage{}
		for _, s := range r.samples {
			p := byURL[s.URL]
			if p == nil {
				p = &samplePage{URL: s.URL, Title: s.PageTitle, Link: s.Link}
				byURL[s.URL] = p
				row.Where = append(row.Where, p)
			}
			p.Elements = append(p.Elements, sampleElement{HTML: s.HTML, Target: s.Target, Viewports: b.viewportNames(s.viewports)})
		}
		v.Rules = append(v.Rules, row)
	}
}

// weighted is a page's or organisation's elements weighted as the leaderboard weighs issues.
func weighted(c byImpact) float64 {
	var w float64
	for i, n := range c {
		w += float64(n) * weightOf(i)
	}
	return w
}

func (b *Builder) pageRows(v *view) {
	b.endPageRun()
	shown := b.shown.inOrder()
	// Every element is counted on a page tracked or not (countPage), so
	// the pages not listed hold what the listed do not.
	v.PagesMore = b.untrackedPages + int64(len(b.pages)-len(shown))
	v.PagesMoreElements = b.totalElements.total()
	for _, p := range shown {
		rules, more := b.named(p)
		counts := p.Elements.byImpact()
		v.Pages = append(v.Pages, pageRow{pageTexts: p.texts, Elements: counts.total(), ByImpact: counts,
			Rules: rules, MoreRules: more})
		v.PagesMoreElements -= counts.total()
	}
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// thousands writes n with thin-space-free comma grouping: 1,234,567.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	out := make([]byte, 0, len(s)+len(s)/3)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}
