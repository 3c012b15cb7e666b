package results

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// SummaryBuilder computes a Summary as a RowVisitor (and FileVisitor), so
// that it shares Walk's single read of the results with other builders.
type SummaryBuilder struct {
	opts  Options
	s     *Summary
	rules map[ruleKey]*Violation
	urls  map[string]struct{} // distinct audit_log.csv URLs
	seen  map[string]bool     // base URLs of pages_scanned.csv

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
		rules: map[ruleKey]*Violation{},
		urls:  map[string]struct{}{},
		seen:  map[string]bool{},
	}
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
		b.kind, b.audit, b.hasIssues = kindAudit, audit, r.Has("num_issues")
		b.s.AuditFiles = append(b.s.AuditFiles, file)
		if !b.hasIssues {
			// Audits without num_issues (title, language, element,
			// screenshot) report rows, not issues.
			b.s.Informational[audit] = 0
		}
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
	switch b.kind {
	case kindAudit:
		return b.auditRow(row)
	case kindPagesScanned:
		return b.pagesRow(row)
	case kindAuditLog:
		if u := row.Field(b.col.url); !hasKey(b.urls, u) {
			b.urls[strings.Clone(u)] = struct{}{}
		}
	case kindUnexpected:
		b.s.UnexpectedResponses++
	}
	return nil
}

func hasKey(m map[string]struct{}, k string) bool { _, ok := m[k]; return ok }

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
		if _, ok := s.IssuesByImpact[impact]; !ok {
			impact = strings.Clone(impact) // a new key must not pin the row's memory
		}
		s.IssuesByImpact[impact] += n
	}
	id, desc := row.Field(b.col.id), row.Field(b.col.help)
	if id == "" {
		id, desc = b.audit, knownRules[b.audit]
	}
	v := b.rules[ruleKey{b.audit, id}]
	if v == nil {
		id = strings.Clone(id)
		v = &Violation{ID: id, AuditType: b.audit, Impact: strings.Clone(impact), Description: strings.Clone(desc)}
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
	p := BaseURLPages{Organisation: row.Field(b.col.org), BaseURL: row.Field(b.col.baseURL), Sector: row.Field(b.col.sector), Pages: int(n)}
	p.Organisation, p.BaseURL, p.Sector = strings.Clone(p.Organisation), strings.Clone(p.BaseURL), strings.Clone(p.Sector)
	b.s.BaseURLs = append(b.s.BaseURLs, p)
	b.s.PagesScanned += int(n)
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
	s.URLsScanned = len(b.urls)
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
