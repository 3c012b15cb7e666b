package results

import (
	"cmp"
	"fmt"
	"hash/maphash"
	"slices"
	"sort"
	"strings"

	"github.com/a11y-dev/cwac-operator/internal/textcap"
	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

// SummaryBuilder computes a Summary as a RowVisitor (and FileVisitor), so
// that it shares Walk's single read of the results with other builders.
type SummaryBuilder struct {
	opts  Options
	s     *Summary
	rules map[ruleKey]*Violation
	urls  map[uint64]struct{} // hashes of the distinct audit_log.csv URLs
	seed  maphash.Seed
	seen  map[string]bool // base URLs of pages_scanned.csv
	// urlsPastLimit counts audit_log.csv rows read once urls was full.
	urlsPastLimit int
	// complete judges each site's and organisation's completeness.
	complete *CompletenessBuilder

	// The file being read, worked out once in BeginFile rather than per row.
	file      string
	kind      fileKind
	audit     string
	hasIssues bool // the audit has a num_issues column
	rows      int64
	col       columns
}

// columns are the indexes (Reader.Column) of the columns the summary reads.
type columns struct {
	numIssues, impact, id, help, url, pages, org, baseURL, sector int
}

func columnsOf(r *Reader) columns {
	return columns{
		numIssues: r.Column("num_issues"), impact: r.Column("impact"), id: r.Column("id"), help: r.Column("help"),
		url: r.Column("url"), pages: r.Column("number_of_pages"), org: r.Column("organisation"),
		baseURL: r.Column("base_url"), sector: r.Column("sector"),
	}
}

type ruleKey struct{ audit, id string }

type fileKind int

const (
	kindOther fileKind = iota
	kindAudit
	kindPagesScanned
	kindAuditLog
	kindUnexpected
)

// NewSummaryBuilder returns a builder; feed it to Walk, then call Summary.
func NewSummaryBuilder(opts Options) *SummaryBuilder {
	return &SummaryBuilder{
		opts: opts,
		s: &Summary{
			IssuesByAuditType: map[string]int64{},
			IssuesByImpact:    map[string]int64{},
			Informational:     map[string]int64{},
			TopViolations:     []Violation{},
			BaseURLs:          []BaseURLPages{},
			UnscannedBaseURLs: []string{},
			AuditFiles:        []string{},
		},
		rules:    map[ruleKey]*Violation{},
		urls:     map[uint64]struct{}{},
		seed:     maphash.MakeSeed(),
		seen:     map[string]bool{},
		complete: NewCompletenessBuilder(expectedSites(opts), opts.MaxLinksPerDomain),
	}
}

// expectedSites are opts.Sites, then the ExpectedBaseURLs they leave out
// (with no organisation).
func expectedSites(opts Options) []ExpectedSite {
	sites := slices.Clone(opts.Sites)
	have := make(map[string]bool, len(sites))
	for _, s := range sites {
		have[s.URL] = true
	}
	for _, u := range opts.ExpectedBaseURLs {
		if !have[u] {
			have[u] = true
			sites = append(sites, ExpectedSite{URL: u})
		}
	}
	return sites
}

// Bounds on what a SummaryBuilder keeps, whatever the CSVs hold: results
// are written by scan pods, which run a browser on arbitrary websites, and
// one CSV of 200,000 distinct rule ids once took the MCP server's summary
// 90 MB. Real scans stay far inside them (axe has about 100 rules).
const (
	// MaxSummaryRules is how many distinct rules are counted by name;
	// issues of rules past it are counted under OtherRulesID.
	MaxSummaryRules = 2000
	// MaxSummaryKeys caps the audit types and the impacts counted by name;
	// past it they are counted under OtherKey.
	MaxSummaryKeys = 64
	// MaxSummaryBaseURLs is how many base URLs are listed; the pages of
	// others are counted in PagesScanned.
	MaxSummaryBaseURLs = 20_000
	// maxRuleIDBytes and maxTextBytes cut rule ids, descriptions and names.
	maxRuleIDBytes = 256
	maxTextBytes   = 1024
)

// MaxSummaryURLs is how many distinct audited URLs are told apart (by a
// 64-bit hash, about 20 bytes each); every audit_log.csv row past it
// counts as a new URL. A variable only so that tests can reach it.
var MaxSummaryURLs = 1_000_000

// OtherRulesID is the rule that counts the issues of rules past
// MaxSummaryRules; OtherKey the audit type or impact past MaxSummaryKeys.
const (
	OtherRulesID = "(other rules)"
	OtherKey     = "(other)"
)

// countKey is key for a count of m, or OtherKey when m already counts
// MaxSummaryKeys others; a new key is copied, not pinning the row.
func countKey(m map[string]int64, key string) string {
	if _, ok := m[key]; ok {
		return key
	}
	if len(m) >= MaxSummaryKeys {
		return OtherKey
	}
	return strings.Clone(textcap.Head(key, maxRuleIDBytes))
}

// BeginFile notes what kind of file the rows that follow belong to.
func (b *SummaryBuilder) BeginFile(file string, r *Reader) error {
	b.file, b.rows, b.audit, b.col = file, 0, "", columnsOf(r)
	switch file {
	case PagesScannedFile:
		b.kind = kindPagesScanned
	case AuditLogFile:
		b.kind = kindAuditLog
	case UnexpectedCodeFile:
		b.kind = kindUnexpected
	default:
		audit, ok := AuditName(file)
		if !ok {
			b.kind = kindOther
			return nil
		}
		b.kind, b.hasIssues = kindAudit, r.Has("num_issues")
		if len(b.s.AuditFiles) < MaxSummaryKeys {
			b.s.AuditFiles = append(b.s.AuditFiles, file)
		}
		if !b.hasIssues {
			// Audits without num_issues (title, language, element,
			// screenshot) report rows, not issues.
			audit = countKey(b.s.Informational, audit)
			b.s.Informational[audit] += 0
		} else {
			audit = countKey(b.s.IssuesByAuditType, audit)
		}
		b.audit = audit
	}
	return nil
}

// EndFile lists an issue audit whose CSV is only a header, with nothing found.
func (b *SummaryBuilder) EndFile(string, *Reader) error {
	if b.kind == kindAudit && b.hasIssues && b.rows == 0 {
		b.s.IssuesByAuditType[b.audit] += 0
	}
	return nil
}

// VisitRow counts one row into the summary.
func (b *SummaryBuilder) VisitRow(file string, r *Reader, row Row) error {
	if file != b.file {
		if err := b.BeginFile(file, r); err != nil { // fed by something other than Walk
			return err
		}
	}
	b.rows++
	if err := b.complete.VisitRow(file, r, row); err != nil {
		return err
	}
	switch b.kind {
	case kindAudit:
		return b.auditRow(row)
	case kindPagesScanned:
		return b.pagesRow(row)
	case kindAuditLog:
		h := maphash.String(b.seed, row.Field(b.col.url))
		if _, ok := b.urls[h]; !ok {
			if len(b.urls) < MaxSummaryURLs {
				b.urls[h] = struct{}{}
			} else {
				b.urlsPastLimit++
			}
		}
	case kindUnexpected:
		b.s.UnexpectedResponses++
	}
	return nil
}

// DecidedRow counts one row a decision covers: its page was audited (the
// completeness counts it), its issues are counted apart in DecidedIssues
// and in no other count, rule or impact. A row that is not an issue (no
// num_issues column, or none found) is counted as VisitRow counts it.
func (b *SummaryBuilder) DecidedRow(file string, r *Reader, row Row) error {
	if file != b.file {
		if err := b.BeginFile(file, r); err != nil {
			return err
		}
	}
	n, err := ParseNumIssues(row.Field(b.col.numIssues)) // 0 without the column
	if err != nil {
		return err
	}
	if n <= 0 || b.kind != kindAudit {
		return b.VisitRow(file, r, row)
	}
	if err := b.complete.VisitRow(file, r, row); err != nil {
		return err
	}
	b.s.DecidedIssues += n
	b.s.IssuesByAuditType[b.audit] += 0 // the audit was read, and found nothing undecided
	return nil
}

func (b *SummaryBuilder) auditRow(row Row) error {
	s := b.s
	if !b.hasIssues {
		s.Informational[b.audit]++
		return nil
	}
	n, err := ParseNumIssues(row.Field(b.col.numIssues))
	if err != nil {
		return err
	}
	if n <= 0 {
		return nil // "No issues found" and passing rows
	}
	s.TotalIssues += n
	s.IssuesByAuditType[b.audit] += n
	impact := row.Field(b.col.impact)
	if impact != "" {
		impact = countKey(s.IssuesByImpact, impact)
		s.IssuesByImpact[impact] += n
	}
	id, desc := textcap.Head(row.Field(b.col.id), maxRuleIDBytes), row.Field(b.col.help)
	if id == "" {
		id, desc = b.audit, knownRules[b.audit]
	}
	key := ruleKey{b.audit, id}
	v := b.rules[key]
	if v == nil && len(b.rules) >= MaxSummaryRules {
		key = ruleKey{"", OtherRulesID}
		v = b.rules[key]
		if v == nil {
			v = &Violation{ID: OtherRulesID, AuditType: OtherKey, Description: fmt.Sprintf("issues of rules past the first %d", MaxSummaryRules)}
			b.rules[key] = v
		}
	}
	if v == nil {
		id = strings.Clone(id) // a new key must not pin the row's memory
		v = &Violation{ID: id, AuditType: b.audit, Impact: strings.Clone(impact), Description: strings.Clone(textcap.Head(desc, maxTextBytes))}
		b.rules[ruleKey{b.audit, id}] = v
	}
	if v.Impact == "" || ImpactRank(impact) < ImpactRank(v.Impact) {
		v.Impact = strings.Clone(impact)
	}
	v.Count += n
	return nil
}

func (b *SummaryBuilder) pagesRow(row Row) error {
	n, err := ParseCount(row.Field(b.col.pages))
	if err != nil {
		return fmt.Errorf("number_of_pages: %w", err)
	}
	b.s.PagesScanned += int(n)
	if len(b.s.BaseURLs) >= MaxSummaryBaseURLs {
		return nil
	}
	p := BaseURLPages{Organisation: row.Field(b.col.org), BaseURL: row.Field(b.col.baseURL), Sector: row.Field(b.col.sector), Pages: int(n)}
	p.Organisation, p.Sector = strings.Clone(textcap.Head(p.Organisation, maxRuleIDBytes)), strings.Clone(textcap.Head(p.Sector, maxRuleIDBytes))
	p.BaseURL = strings.Clone(textcap.Head(p.BaseURL, urlpolicy.MaxURLLength))
	b.s.BaseURLs = append(b.s.BaseURLs, p)
	b.seen[p.BaseURL] = true
	if n == 0 {
		b.s.UnscannedBaseURLs = append(b.s.UnscannedBaseURLs, p.BaseURL)
	}
	return nil
}

// Summary finishes the summary: top violations ranked, base URLs the scan
// was given but CWAC never listed added as unscanned. DurationSeconds is
// Options.Duration (SummarizeContext falls back to progress.csv).
func (b *SummaryBuilder) Summary() *Summary {
	s := b.s
	sort.Strings(s.AuditFiles)
	s.TopViolations = s.TopViolations[:0]
	for _, v := range b.rules {
		s.TopViolations = append(s.TopViolations, *v)
	}
	sort.Slice(s.TopViolations, func(i, j int) bool { return violationLess(s.TopViolations[i], s.TopViolations[j]) })
	if len(s.TopViolations) > TopViolationsLimit {
		s.TopViolations = s.TopViolations[:TopViolationsLimit]
	}
	s.BaseURLs, s.UnscannedBaseURLs = slices.Clone(s.BaseURLs), slices.Clone(s.UnscannedBaseURLs)
	for _, u := range b.opts.ExpectedBaseURLs {
		if !b.seen[u] {
			b.seen[u] = true
			s.BaseURLs = append(s.BaseURLs, BaseURLPages{BaseURL: u})
			s.UnscannedBaseURLs = append(s.UnscannedBaseURLs, u)
		}
	}
	// In the order the scan was given its base URLs (then any others as
	// CWAC listed them): CWAC's own order follows its threads, and a
	// sharded scan's merged list follows its shards, so the summary of the
	// same results is the same however they were made.
	given := make(map[string]int, len(b.opts.ExpectedBaseURLs))
	for i, u := range b.opts.ExpectedBaseURLs {
		if _, dup := given[u]; !dup {
			given[u] = i
		}
	}
	rank := func(u string) int {
		if i, ok := given[u]; ok {
			return i
		}
		return len(given)
	}
	slices.SortStableFunc(s.BaseURLs, func(x, y BaseURLPages) int { return cmp.Compare(rank(x.BaseURL), rank(y.BaseURL)) })
	slices.SortStableFunc(s.UnscannedBaseURLs, func(x, y string) int { return cmp.Compare(rank(x), rank(y)) })
	s.URLsScanned = len(b.urls) + b.urlsPastLimit
	s.Completeness = b.complete.Completeness()
	s.DurationSeconds = b.opts.Duration
	return s
}

// violationLess ranks violations: most issues first, then worst impact, then id.
func violationLess(a, b Violation) bool {
	if a.Count != b.Count {
		return a.Count > b.Count
	}
	if ra, rb := ImpactRank(a.Impact), ImpactRank(b.Impact); ra != rb {
		return ra < rb
	}
	return a.ID < b.ID
}
