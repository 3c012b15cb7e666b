package report

import (
	"errors"
	"fmt"
	"hash/maphash"
	"math"
	"slices"
	"strings"

	"github.com/a11y-dev/cwac-operator/internal/diff"
	"github.com/a11y-dev/cwac-operator/internal/pageruns"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
	"github.com/a11y-dev/cwac-operator/internal/wcag"
)

// Limits that keep the builder's memory bounded whatever the size of the
// results: it keeps aggregates, never rows. Past a limit the builder still
// counts everything, it only stops telling things apart (documented in the
// report where it matters).
const (
	// MaxTrackedElements caps the elements told apart across viewports
	// (8 bytes each, and a few words a run of a page's rows: elementSet),
	// and as many rule/page and criterion/page pairs (a rule a page holds,
	// 2 bytes; a pair no page holds, 8 bytes in the element set).
	// Past it, each further issue row counts as an element of its own.
	MaxTrackedElements = 2_000_000
	// MaxTrackedPages caps the pages with issues kept for the per-page
	// view; further pages are counted together.
	MaxTrackedPages = 100_000
	// MaxTrackedRules caps the rules kept apart; CWAC's audits have about
	// a hundred. Further rules are counted together.
	MaxTrackedRules = 2_000
	// MaxTrackedOrganisations caps the organisations kept apart.
	MaxTrackedOrganisations = 20_000
	// maxViewports is how many distinct viewports are named; further ones
	// are shown as "other".
	maxViewports = 15
	// maxCellChars caps any kept text from a CSV (the report truncates further).
	maxCellChars = 2048
	// MaxKeptText caps the bytes of text the builder keeps from the CSVs
	// (names, titles, addresses, samples): each cell is capped, but a
	// results directory can hold a hundred thousand pages whose every cell
	// is at the cap. Past it, kept texts are cut to maxCellCharsPastBudget
	// and not linked. A real scan of 50,000 pages keeps about 10 MB.
	MaxKeptText = 16 << 20
	// maxCellCharsPastBudget caps each text kept once MaxKeptText is spent.
	maxCellCharsPastBudget = 32
	// maxPageRules caps the rules a tracked page tells apart itself
	// (page.found); past it, its further rules are told apart as pairs.
	maxPageRules = 64
	// maxPageCriteria is how many criteria a tracked page tells apart
	// itself (page.criteria, one bit each): every criterion of WCAG 2.2
	// (86), the only ones the builder counts.
	maxPageCriteria = 128
)

// Limits are how much a Builder keeps apart, which bounds its memory: the
// element set about 8 bytes an entry (a pair's too), a page a record of
// 64 bytes and its map slot, and past its first four rules a few bytes a
// rule (a page's texts are kept only while it is read or shown). A zero
// field takes DefaultLimits' value.
type Limits struct {
	// Elements caps the elements, and the pairs, told apart (MaxTrackedElements).
	Elements int
	// Pages caps the pages kept for the per-page view (MaxTrackedPages).
	Pages int
	// KeptText caps the bytes of kept text (MaxKeptText).
	KeptText int64
}

// DefaultLimits are the runner's: it builds the report in the scan pod,
// whose memory is the scan's own.
var DefaultLimits = Limits{Elements: MaxTrackedElements, Pages: MaxTrackedPages, KeptText: MaxKeptText}

// ServerLimits are for a server that builds reports of any results
// directory in its own memory (the MCP server's cwac_generate_report):
// an eighth of the elements, a fifth of the pages and half the text, so
// that a hostile results directory stays far under 128 MiB. Past them the
// report counts as DefaultLimits' does past its own.
var ServerLimits = Limits{Elements: 250_000, Pages: 20_000, KeptText: 8 << 20}

func (l Limits) withDefaults() Limits {
	if l.Elements <= 0 {
		l.Elements = DefaultLimits.Elements
	}
	l.Elements = min(l.Elements, math.MaxInt32) // the element set's places are 32 bits
	if l.Pages <= 0 {
		l.Pages = DefaultLimits.Pages
	}
	if l.KeptText <= 0 {
		l.KeptText = DefaultLimits.KeptText
	}
	return l
}

// sample is one element shown in the report under its rule.
type sample struct {
	URL, Link, PageTitle, Organisation, Target, HTML string
	viewports                                        uint16
}

// rule aggregates the issues of one rule (an axe rule id, or a CWAC audit).
type rule struct {
	Audit, ID, Help, HelpURL, Impact string
	Criteria                         []wcag.Criterion
	Elements, Count, Pages           int64
	samples                          []sample
	// index is the rule's place in Builder.ruleList, which pages name it
	// by (page.found).
	index ruleIndex
}

// ruleIndex is a place in Builder.ruleList: it holds MaxTrackedRules and
// the rule that takes the rest.
type ruleIndex uint16

// organisation aggregates one organisation's pages and issues.
type organisation struct {
	Name, Sector    string
	BaseURLs, Pages int
	Count           byImpact // CWAC's num_issues: the leaderboard's unit
	Elements        byImpact
	// SetAside is CWAC's count of the organisation's timing-dependent
	// rows, counted nowhere else (TimingDependentWhy).
	SetAside int64
	// Decided is CWAC's count of the organisation's issues a decision
	// covers (DecidedRow), counted nowhere else.
	Decided int64
}

// criterion aggregates the issues of one WCAG success criterion.
type criterion struct {
	wcag.Criterion
	Rules                  map[string]bool
	Elements, Count, Pages int64
	// bit numbers the criterion in order of first sight (page.criteria).
	bit int
}

// Builder aggregates a results directory, row by row, into the report and
// the leaderboard. It is a results.RowVisitor (and FileVisitor), so that
// results.Walk reads each CSV once for the summary and the report together;
// Render then writes the files. Memory is bounded by the Max* limits, not
// by the number of rows.
type Builder struct {
	seed maphash.Seed

	// elements are the elements told apart (elementSet.go): an element is
	// of one page, so only its page's are looked up.
	elements elementSet
	// sampled are the elements shown under their rule: each one's place in
	// its rule's samples (MaxElementsPerRule a rule, so at most that many
	// times MaxTrackedRules and the rule of the rest).
	sampled map[uint64]int32
	// elementsTold counts the elements the element set holds. It holds
	// too, as keys of their page, the rule/page, criterion/page and page
	// pairs seen that no page tells apart (page.found, page.criteria):
	// past lim.Pages, or past a page's own bounds (firstPair). pairsTold
	// counts those, and pageRules the pages' found rules: the two together
	// stay within lim.Elements. A set of pairs beside the elements took
	// about 17 bytes a pair, where a scan of a few rows a page has several
	// pairs a page.
	elementsTold, pairsTold int
	pageRules               int
	rules                   map[string]*rule // by audit + "\x00" + id
	ruleList                []*rule          // in order of first sight
	pages                   map[uint64]*page // by the hash of the URL, which may be long
	// lastURL and lastPage are the page the last element was on (nil:
	// untracked), looked up again only when the URL changes.
	lastURL  string
	lastPage *page
	// shown are the pages the per-page table lists, of those whose run of
	// elements has ended.
	shown    shownPages
	orgs     map[uint64]*organisation // by the hash of the name, which may be long
	criteria map[string]*criterion

	viewports []string // distinct viewport cells, in order of first sight

	// Totals, in elements (across viewports) and in CWAC's count.
	totalElements, totalCount byImpact
	// setAside is CWAC's count of timing-dependent rows, left out of
	// every other figure (TimingDependentWhy).
	setAside int64
	// decided is CWAC's count of issues decisions cover (DecidedRow).
	decided int64
	// Overflow counters: what went past a tracking limit.
	untrackedPages                        int64
	elementsCapped                        bool
	noCriterionRules                      map[string]bool
	noCriterionElements, noCriterionCount int64

	// signals reads CWAC's signals besides issues (signals.go).
	signals *results.SignalsBuilder

	lim Limits
	// textLeft is what is left of lim.KeptText.
	textLeft int64

	// The file being read.
	file string
	kind fileKind
	col  columns
	// audit is the audit name of an issue-counting audit CSV.
	audit string
}

type fileKind int

// columns are the file's columns (-1: none), looked up once per file: an
// issue row reads a dozen cells, each looked up by its name otherwise.
type columns struct {
	numIssues, org, sector, title, url, viewport, id, help, helpURL, impact, description, target, html, tags int
}

func columnsOf(r *results.Reader) columns {
	return columns{numIssues: r.Column("num_issues"), org: r.Column("organisation"), sector: r.Column("sector"),
		title: r.Column("page_title"), url: r.Column("url"), viewport: r.Column("viewport_size"), id: r.Column("id"),
		help: r.Column("help"), helpURL: r.Column("helpUrl"), impact: r.Column("impact"), description: r.Column("description"),
		target: r.Column("target"), html: r.Column("html"), tags: r.Column("tags")}
}

const (
	fileIgnored fileKind = iota
	fileIssues
	filePagesScanned
)

// NewBuilder returns an empty builder with DefaultLimits.
func NewBuilder() *Builder { return NewBuilderWithLimits(DefaultLimits) }

// NewBuilderWithLimits returns an empty builder that keeps within lim.
func NewBuilderWithLimits(lim Limits) *Builder {
	lim = lim.withDefaults()
	return &Builder{
		seed:             maphash.MakeSeed(),
		lim:              lim,
		textLeft:         lim.KeptText,
		elements:         newElementSet(),
		sampled:          map[uint64]int32{},
		rules:            map[string]*rule{},
		pages:            map[uint64]*page{},
		orgs:             map[uint64]*organisation{},
		criteria:         map[string]*criterion{},
		noCriterionRules: map[string]bool{},
		signals:          results.NewSignalsBuilder(),
	}
}

// SpoolElements keeps the elements told apart on the pages read before in
// spool (a file: 8 bytes an element or pair, and the runs of each page;
// read again only when a page's rows come back) rather than in memory,
// where they grow with the scan to Limits.Elements (16 MB at
// MaxTrackedElements) and its pages. It must be called
// before the first row; the builder writes to the spool and reads it back
// while rows are visited, and a spool that fails stops the walk with its
// error.
func (b *Builder) SpoolElements(spool pageruns.Spool) error {
	if b.elements.len() > 0 {
		return errors.New("report: the elements are spooled from the first row, not after")
	}
	b.elements.keys = pageruns.NewLog(spool, keyCodec)
	return nil
}

// BeginFile notes what the rows that follow are: issues of an audit,
// pages_scanned.csv, or something the report does not read.
func (b *Builder) BeginFile(file string, r *results.Reader) error {
	b.file, b.kind, b.audit = file, fileIgnored, ""
	_ = b.signals.BeginFile(file, r) // never fails
	if file == results.PagesScannedFile {
		b.kind = filePagesScanned
		return nil
	}
	// AuditName leaves out the bookkeeping files and the template-aware
	// CSV, which regroups axe_core_audit.csv's rows (counted there).
	if audit, ok := results.AuditName(file); ok && r.Has("num_issues") {
		b.kind, b.audit, b.col = fileIssues, audit, columnsOf(r)
	}
	return nil
}

// EndFile has nothing to finish; it completes results.FileVisitor.
func (b *Builder) EndFile(string, *results.Reader) error { return nil }

// VisitRow aggregates one row (see results.RowVisitor). Errors name the
// column; results.Walk adds the file.
func (b *Builder) VisitRow(file string, r *results.Reader, row results.Row) error {
	if file != b.file {
		if err := b.BeginFile(file, r); err != nil { // fed by something other than Walk
			return err
		}
	}
	_ = b.signals.VisitRow(file, r, row) // never fails
	switch b.kind {
	case filePagesScanned:
		return b.pagesScannedRow(row)
	case fileIssues:
		return b.issueRow(row)
	}
	return nil
}

// DecidedRow takes, instead of VisitRow, an issue row a decision covers
// (the scan's decisions, as the runner's walk judges each row): its
// issues leave every count, score and rank, and are counted only as the
// organisation's and the report's decided figures, which the report and
// leaderboard.csv show. It needs no BeginFile of its own: it reads no
// file kind, and VisitRow begins the file when its next row comes.
func (b *Builder) DecidedRow(file string, r *results.Reader, row results.Row) error {
	_ = b.signals.VisitRow(file, r, row) // never fails; signals are not issues (they follow files themselves)
	n, err := results.ParseCount(row.Get("num_issues"))
	if err != nil {
		return fmt.Errorf("num_issues: %w", err)
	}
	b.org(row.Get("organisation"), row.Get("sector")).Decided += n
	b.decided += n
	return nil
}

func (b *Builder) pagesScannedRow(row results.Row) error {
	n, err := results.ParseCount(row.Get("number_of_pages"))
	if err != nil {
		return fmt.Errorf("number_of_pages: %w", err)
	}
	o := b.org(row.Get("organisation"), row.Get("sector"))
	o.BaseURLs++
	o.Pages += int(min(n, math.MaxInt32))
	return nil
}

func (b *Builder) issueRow(row results.Row) error {
	n, err := results.ParseCount(row.Field(b.col.numIssues))
	if err != nil {
		return fmt.Errorf("num_issues: %w", err)
	}
	if n <= 0 {
		return nil // "No issues found" and passing rows
	}
	if b.file == diff.FocusAuditFile && diff.FocusedBody(row.Field(b.col.html)) {
		// The comparison and the issue history set these rows apart; so do
		// the report's counts, or a score would move with CWAC's timing.
		b.org(row.Field(b.col.org), row.Field(b.col.sector)).SetAside += n
		b.setAside += n
		return nil
	}
	ru := b.rule(row)
	imp := impactIndex(row.Field(b.col.impact))
	url := row.Field(b.col.url)
	o := b.org(row.Field(b.col.org), row.Field(b.col.sector))
	o.Count[imp] += n
	b.totalCount[imp] += n
	ru.Count += n
	for _, c := range ru.Criteria {
		b.criteria[c.Number].Count += n
	}
	if len(ru.Criteria) == 0 {
		b.noCriterionCount += n
	}

	element := row.Field(b.col.target)
	if element == "" {
		element = row.Field(b.col.html)
	}
	if element == "" {
		element = row.Field(b.col.description)
	}
	vp := b.viewportBit(row.Field(b.col.viewport))
	key := b.hash(ru.Audit, ru.ID, url, element)
	if !b.elements.reading(url) {
		if err := b.elements.turnTo(url, b.hash(url)); err != nil {
			return err
		}
	}
	if b.elements.has(key) {
		if i, ok := b.sampled[key]; ok {
			ru.samples[i].viewports |= vp
		}
		return nil
	}
	// A new element.
	if b.elementsTold < b.lim.Elements {
		b.elements.add(key)
		b.elementsTold++
	} else {
		b.elementsCapped = true
	}
	if len(ru.samples) < MaxElementsPerRule {
		b.sampled[key] = int32(len(ru.samples))
		kept := b.keep(url)
		ru.samples = append(ru.samples, sample{
			URL: kept, Link: b.link(url, kept), PageTitle: b.keep(row.Field(b.col.title)), Organisation: b.keepLike(row.Field(b.col.org), o.Name),
			Target: b.keep(row.Field(b.col.target)), HTML: b.keep(row.Field(b.col.html)), viewports: vp,
		})
	}
	b.totalElements[imp]++
	o.Elements[imp]++
	ru.Elements++
	p := b.page(row, url, b.elements.page, o)
	if b.ruleFirstOnPage(p, ru, url) {
		ru.Pages++
	}
	for _, c := range ru.Criteria {
		ca := b.criteria[c.Number]
		ca.Elements++
		if b.criterionFirstOnPage(p, ca, url) {
			ca.Pages++
		}
	}
	if len(ru.Criteria) == 0 {
		b.noCriterionElements++
	}
	b.countPage(p, url, imp)
	return nil
}

// page finds or starts the page of a new element, on a page of o, whose
// URL hashes to key (Builder.hash; the element set's page): nil past
// lim.Pages.
func (b *Builder) page(row results.Row, url string, key uint64, o *organisation) *page {
	if url == b.lastURL && b.lastPage != nil {
		return b.lastPage
	}
	b.endPageRun()
	p := b.pages[key]
	if p == nil && len(b.pages) < b.lim.Pages {
		p = &page{}
		b.pages[key] = p
	}
	if p != nil && p.texts == nil {
		left := b.textLeft
		kept := b.keep(url)
		t := &pageTexts{URL: kept, linked: b.link(url, kept) != "", Title: b.keep(row.Field(b.col.title)),
			Organisation: b.keepLike(row.Field(b.col.org), o.Name), at: -1}
		t.kept = left - b.textLeft
		p.texts = t
	}
	b.lastURL, b.lastPage = url, p
	return p
}

// endPageRun ends the run of elements on the last page (when the next
// element is another page's, and before the pages are shown): its counts
// stand until its rows come again, so it takes its place among the pages
// shown now, or lets its texts go.
func (b *Builder) endPageRun() {
	if b.lastPage != nil {
		if let := b.shown.place(b.lastPage); let != nil {
			b.textLeft += let.texts.kept
			let.texts = nil
		}
	}
	b.lastURL, b.lastPage = "", nil
}

// ruleFirstOnPage reports whether a new element is its rule's first on
// its page (p; nil: untracked): the page holds the rule in found, or past
// found's bounds the pairs do and the page names it aside.
func (b *Builder) ruleFirstOnPage(p *page, ru *rule, url string) bool {
	if p == nil {
		return b.firstPair("r", ru.Audit, ru.ID, url)
	}
	if p.hasFound(ru.index) {
		return false
	}
	if p.foundCount() < maxPageRules && b.pairsTold+b.pageRules < b.lim.Elements {
		p.addFound(ru.index)
		b.pageRules++
		return true
	}
	if !b.firstPair("r", ru.Audit, ru.ID, url) {
		return false
	}
	b.nameAside(p, ru)
	return true
}

// nameAside names a rule new to page p that found does not hold among
// its first few rules, or counts it past them.
func (b *Builder) nameAside(p *page, ru *rule) {
	named, _ := b.named(p)
	if slices.Contains(named, ru.ID) {
		return
	}
	if p.aside == nil {
		p.aside = &pageAside{}
	}
	if len(named) < maxRulesPerPage {
		p.aside.rules = append(p.aside.rules, ru.ID)
	} else {
		p.aside.more++
	}
}

// named is page p's first few rule ids, in order of first sight, and
// how many more rules it has; a rule id already named (another audit's)
// is not counted again.
func (b *Builder) named(p *page) ([]string, int) {
	var named []string
	var aside pageAside
	if p.aside != nil {
		aside = *p.aside
	}
	more := aside.more
	for i := range p.eachFound {
		ru := b.ruleList[i]
		switch {
		case slices.Contains(named, ru.ID):
		case len(named) < maxRulesPerPage:
			named = append(named, ru.ID)
		default:
			more++
		}
	}
	return append(named, aside.rules...), more
}

// criterionFirstOnPage reports whether a new element is its criterion's
// first on its page (p; nil: untracked).
func (b *Builder) criterionFirstOnPage(p *page, ca *criterion, url string) bool {
	if p == nil {
		return b.firstPair("c", ca.Number, "", url)
	}
	word, bit := &p.criteria[ca.bit/64], uint64(1)<<(ca.bit%64)
	first := *word&bit == 0
	*word |= bit
	return first
}

// countPage adds a new element to its page (p; nil: untracked).
func (b *Builder) countPage(p *page, url string, imp int) {
	if p == nil {
		if b.firstPair("p", url, "", "") {
			b.untrackedPages++
		}
		return
	}
	p.Elements.add(imp)
}

// rule finds or starts the row's rule; the tags are parsed once per rule.
func (b *Builder) rule(row results.Row) *rule {
	id, help := row.Field(b.col.id), row.Field(b.col.help)
	if id == "" { // CWAC's own audits
		id, help = b.audit, row.Field(b.col.description)
		if d := results.RuleDescription(b.audit); d != "" {
			help = d
		}
	}
	key := b.audit + "\x00" + textcap.Head(id, maxCellChars)
	ru := b.rules[key]
	impact := row.Field(b.col.impact)
	if ru != nil {
		if impactIndex(impact) < impactIndex(ru.Impact) {
			ru.Impact = impactClasses[impactIndex(impact)]
		}
		return ru
	}
	if len(b.rules) >= MaxTrackedRules {
		key = "\x00overflow"
		if ru = b.rules[key]; ru != nil {
			return ru
		}
		id, help = "other rules", "Rules past the report's limit of distinct rules"
	}
	ru = &rule{Audit: b.audit, ID: b.keep(id), Help: b.keep(help), HelpURL: b.link(row.Field(b.col.helpURL), ""), Impact: impactClasses[impactIndex(impact)]}
	if tags, err := results.ParseTags(row.Field(b.col.tags)); err == nil {
		ru.Criteria = wcag.Criteria(tags)
	}
	if n, ok := auditCriteria[b.audit]; ok && len(ru.Criteria) == 0 {
		c, _ := wcag.Lookup(n)
		ru.Criteria = []wcag.Criterion{c}
	}
	for _, c := range ru.Criteria {
		if b.criteria[c.Number] == nil {
			b.criteria[c.Number] = &criterion{Criterion: c, Rules: map[string]bool{}, bit: len(b.criteria)}
		}
		b.criteria[c.Number].Rules[ru.ID] = true
	}
	if len(ru.Criteria) == 0 {
		b.noCriterionRules[ru.ID] = true
	}
	ru.index = ruleIndex(len(b.ruleList))
	b.rules[strings.Clone(key)] = ru
	b.ruleList = append(b.ruleList, ru)
	return ru
}

// org finds or starts an organisation; past the limit, one "other" takes the rest.
func (b *Builder) org(name, sector string) *organisation {
	name = textcap.Head(name, maxCellChars)
	key := b.hash(name)
	o := b.orgs[key]
	if o == nil {
		if len(b.orgs) >= MaxTrackedOrganisations {
			name, sector = "(other organisations)", ""
			key = b.hash(name)
			if o = b.orgs[key]; o != nil {
				return o
			}
		}
		o = &organisation{Name: b.keep(name), Sector: b.keep(sector)}
		b.orgs[key] = o
	}
	if o.Sector == "" && sector != "" {
		o.Sector = b.keep(sector)
	}
	return o
}
