package results

import (
	"cmp"
	"hash/maphash"
	"slices"
)

// Template issues ("fix once"). CWAC's axe_core_audit_template_aware.csv
// groups axe-core's issues by base_url, rule id, the element's HTML (CWAC
// keeps its first 100 characters) and viewport, and counts each group's
// issues in num_issues: a group met on many pages most likely comes from a
// shared template, fixed once for all of them. Its num_pages column cannot
// say on how many pages: CWAC counts the URLs of the rows that share the
// group's first issue_id, and after the grouping that is the group's one
// row (1 on every row of a real scan). So the groups here are CWAC's, with
// the same key, and their instances are its num_issues, but both are
// counted from axe_core_audit.csv, where every instance is a row with its
// page: a group's pages are its distinct URLs. CWAC writes an audit's rows
// of one page and viewport together, so a group's rows of one page are
// consecutive and a page is counted when the group's URL changes (no set
// of URLs per group is kept).

// TemplateMinPages is how many pages a group must be found on to be a
// template issue: an issue of one page is fixed on that page.
const TemplateMinPages = 2

// TemplateIssue is one of CWAC's template groups found on several pages.
type TemplateIssue struct {
	Organisation string `json:"organisation"`
	BaseURL      string `json:"base_url"`
	RuleID       string `json:"rule_id"`
	Impact       string `json:"impact,omitempty"`
	Help         string `json:"help,omitempty"`
	// HTML is the element as CWAC recorded it (its first 100 characters).
	HTML     string `json:"html,omitempty"`
	Viewport string `json:"viewport,omitempty"`
	// ExampleURL is the first page the group was found on.
	ExampleURL string `json:"example_url"`
	// Pages is how many distinct pages the group was found on.
	Pages int64 `json:"pages"`
	// Instances is how many issues the group holds (CWAC's num_issues in
	// axe_core_audit_template_aware.csv).
	Instances int64 `json:"instances"`
}

// OrganisationTemplates is one organisation's template issues.
type OrganisationTemplates struct {
	Organisation   string `json:"organisation"`
	TemplateIssues int64  `json:"template_issues"`
	// Instances is the issues those template issues hold.
	Instances int64 `json:"instances"`
	// MostPages is the most pages one of them was found on.
	MostPages int64 `json:"most_pages"`
}

// TemplateSignals are a scan's template issues, most pages first.
type TemplateSignals struct {
	// TemplateIssues counts the groups found on TemplateMinPages pages or more.
	TemplateIssues int64                   `json:"template_issues"`
	Instances      int64                   `json:"instances"`
	ByOrganisation []OrganisationTemplates `json:"by_organisation"`
	// Issues are the template issues, most pages first, then most
	// instances, worst impact; at most the limit asked for.
	Issues []TemplateIssue `json:"issues"`
	// UngroupedInstances are issues of groups past MaxSignalItems, not
	// counted in any group (0 in real scans).
	UngroupedInstances int64 `json:"ungrouped_instances,omitempty"`
}

type templateGroup struct {
	TemplateIssue
	lastURL uint64
}

type templateBuilder struct {
	seed   maphash.Seed
	orgs   *orgNames
	seen   bool // axe_core_audit.csv was read
	groups map[uint64]*templateGroup
	past   int64
	col    struct{ org, baseURL, url, id, html, viewport, impact, help, numIssues int }
}

func newTemplateBuilder(seed maphash.Seed, orgs *orgNames) *templateBuilder {
	return &templateBuilder{seed: seed, orgs: orgs, groups: map[uint64]*templateGroup{}}
}

func (t *templateBuilder) begin(r *Reader) func(Row) {
	t.seen = true
	c := &t.col
	c.org, c.baseURL, c.url, c.id = r.Column("organisation"), r.Column("base_url"), r.Column("url"), r.Column("id")
	c.html, c.viewport, c.impact, c.help = r.Column("html"), r.Column("viewport_size"), r.Column("impact"), r.Column("help")
	c.numIssues = r.Column("num_issues")
	return t.row
}

func (t *templateBuilder) row(row Row) {
	c := &t.col
	n, err := ParseNumIssues(row.Field(c.numIssues))
	if err != nil || n <= 0 {
		return // a page without issues; a broken count is the summary's to report
	}
	key := hashBytes(t.seed, cellBytes(row, c.baseURL), cellBytes(row, c.id), cellBytes(row, c.html), cellBytes(row, c.viewport))
	g := t.groups[key]
	if g == nil {
		if len(t.groups) >= MaxSignalItems {
			t.past += n
			return
		}
		g = &templateGroup{TemplateIssue: TemplateIssue{
			Organisation: t.orgs.name(cellHead(row, c.org, maxRuleIDBytes)), BaseURL: cellHead(row, c.baseURL, maxSignalURLBytes),
			RuleID: cellHead(row, c.id, maxRuleIDBytes), Impact: cellHead(row, c.impact, 64), Help: cellHead(row, c.help, maxSignalTextBytes),
			HTML: cellHead(row, c.html, maxSignalTextBytes), Viewport: viewportLabel(cellHead(row, c.viewport, 64)),
			ExampleURL: cellHead(row, c.url, maxSignalURLBytes),
		}}
		t.groups[key] = g
	}
	if u := hashBytes(t.seed, cellBytes(row, c.url)); g.Pages == 0 || u != g.lastURL {
		g.Pages++
		g.lastURL = u
	}
	g.Instances += n
}

func (t *templateBuilder) result(limit int) *TemplateSignals {
	if !t.seen {
		return nil
	}
	s := &TemplateSignals{Issues: []TemplateIssue{}, UngroupedInstances: t.past}
	byOrg := map[string]*OrganisationTemplates{}
	for _, g := range t.groups {
		if g.Pages < TemplateMinPages {
			continue
		}
		s.TemplateIssues++
		s.Instances += g.Instances
		o := byOrg[g.Organisation]
		if o == nil {
			o = &OrganisationTemplates{Organisation: g.Organisation}
			byOrg[g.Organisation] = o
		}
		o.TemplateIssues++
		o.Instances += g.Instances
		o.MostPages = max(o.MostPages, g.Pages)
		s.Issues = append(s.Issues, g.TemplateIssue)
	}
	slices.SortFunc(s.Issues, compareTemplates)
	s.Issues = s.Issues[:min(len(s.Issues), limit)]
	s.ByOrganisation = sortedOrgs(byOrg, func(o *OrganisationTemplates) string { return o.Organisation })
	return s
}

// compareTemplates orders template issues: most pages, most instances,
// worst impact, then by name so that the order is the same every time.
func compareTemplates(a, b TemplateIssue) int {
	return cmp.Or(
		cmp.Compare(b.Pages, a.Pages), cmp.Compare(b.Instances, a.Instances),
		cmp.Compare(ImpactRank(a.Impact), ImpactRank(b.Impact)),
		cmp.Compare(a.Organisation, b.Organisation), cmp.Compare(a.BaseURL, b.BaseURL),
		cmp.Compare(a.RuleID, b.RuleID), cmp.Compare(a.Viewport, b.Viewport), cmp.Compare(a.HTML, b.HTML),
		cmp.Compare(a.ExampleURL, b.ExampleURL),
	)
}
