package results

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
)

// Files CWAC writes that are bookkeeping, not audits.
const (
	AuditLogFile       = "audit_log.csv"
	PagesScannedFile   = "pages_scanned.csv"
	ProgressFile       = "progress.csv"
	UnexpectedCodeFile = "unexpected_response_codes.csv"
	// TemplateAwareFile regroups axe_core_audit.csv's rows; counting it too
	// would count every axe issue twice.
	TemplateAwareFile = "axe_core_audit_template_aware.csv"
	// SummaryFile is written by the runner into the results directory.
	SummaryFile = "summary.json"
	// LeaderboardFile is our report (internal/report), written beside CWAC's CSVs.
	LeaderboardFile = "leaderboard.csv"
)

// NotAudits are the CSVs in a results directory that are never audits.
var NotAudits = []string{AuditLogFile, PagesScannedFile, ProgressFile, UnexpectedCodeFile, TemplateAwareFile, LeaderboardFile}

// TopViolationsLimit is how many rules the summary lists.
const TopViolationsLimit = 10

// Violation is one rule and how many issues broke it.
type Violation struct {
	ID          string `json:"id"`
	AuditType   string `json:"audit_type"`
	Impact      string `json:"impact,omitempty"`
	Description string `json:"description,omitempty"`
	Count       int64  `json:"count"`
}

// BaseURLPages is how many pages one base URL yielded.
type BaseURLPages struct {
	Organisation string `json:"organisation"`
	BaseURL      string `json:"base_url"`
	Sector       string `json:"sector"`
	Pages        int    `json:"pages"`
}

// Summary is a scan's result in the shape the MCP tools return, with
// CWAC's real semantics: an issue is a row with num_issues > 0, counted by
// num_issues; audits without num_issues are informational row counts.
type Summary struct {
	TotalIssues       int64            `json:"total_issues"`
	IssuesByAuditType map[string]int64 `json:"issues_by_audit_type"`
	IssuesByImpact    map[string]int64 `json:"issues_by_impact"`
	TopViolations     []Violation      `json:"top_violations"`
	// Informational maps audits that report rows, not issues, to row counts.
	Informational map[string]int64 `json:"informational"`
	// URLsScanned is the number of distinct page URLs CWAC audited (audit_log.csv).
	URLsScanned int `json:"urls_scanned"`
	// PagesScanned is the sum of pages_scanned.csv's number_of_pages.
	PagesScanned int `json:"pages_scanned"`
	// BaseURLs is pages per base URL, including base URLs that yielded none.
	BaseURLs []BaseURLPages `json:"base_urls,omitempty"`
	// UnscannedBaseURLs yielded no page: unreachable, refused by
	// only_allow_https, or disallowed by robots.txt.
	UnscannedBaseURLs []string `json:"unscanned_base_urls"`
	// UnexpectedResponses counts rows of unexpected_response_codes.csv.
	UnexpectedResponses int     `json:"unexpected_responses"`
	DurationSeconds     float64 `json:"duration_seconds"`
	// AuditFiles lists the audit CSVs read, sorted.
	AuditFiles []string `json:"audit_files,omitempty"`
	// Diff compares the results with a baseline scan's, when there is one.
	Diff *DiffCounts `json:"diff,omitempty"`
}

// knownRules describes non-axe audits, whose rows carry no rule id.
var knownRules = map[string]string{
	"reflow_audit":          "Content overflows horizontally at a narrow viewport (WCAG 1.4.10 Reflow)",
	"focus_indicator_audit": "Keyboard focus is not visibly indicated (WCAG 2.4.7 Focus Visible)",
}

// RuleDescription describes a non-axe audit's issues ("" when unknown).
func RuleDescription(audit string) string { return knownRules[audit] }

// axe-core's impacts, from worst.
const (
	ImpactCritical = "critical"
	ImpactSerious  = "serious"
	ImpactModerate = "moderate"
	ImpactMinor    = "minor"
)

// impactRank orders axe impacts from worst.
var impactRank = map[string]int{ImpactCritical: 0, ImpactSerious: 1, ImpactModerate: 2, ImpactMinor: 3}

// Options adjust Summarize.
type Options struct {
	// ExpectedBaseURLs are the base URLs the scan was given, so base URLs that
	// CWAC skipped before writing pages_scanned.csv (only_allow_https) are
	// reported as unscanned too.
	ExpectedBaseURLs []string
	// Duration overrides the duration derived from progress.csv.
	Duration float64
}

// AuditName returns the audit type of a results CSV (its file name without
// .csv), and whether the file is an audit at all.
func AuditName(fileName string) (string, bool) {
	if !strings.HasSuffix(fileName, ".csv") {
		return "", false
	}
	for _, n := range NotAudits {
		if fileName == n {
			return "", false
		}
	}
	return strings.TrimSuffix(fileName, ".csv"), true
}

// Summarize reads a CWAC results directory and computes its summary.
func Summarize(dir string, opts Options) (*Summary, error) {
	if _, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("reading results directory: %w", err)
	}
	return SummarizeFS(os.DirFS(dir), opts)
}

// SummarizeFS is Summarize over a file system whose root is the results
// directory (an os.Root's FS keeps every read inside it).
func SummarizeFS(fsys fs.FS, opts Options) (*Summary, error) {
	s := &Summary{
		IssuesByAuditType: map[string]int64{},
		IssuesByImpact:    map[string]int64{},
		Informational:     map[string]int64{},
		TopViolations:     []Violation{},
		BaseURLs:          []BaseURLPages{},
		UnscannedBaseURLs: []string{},
		AuditFiles:        []string{},
	}
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("reading results directory: %w", err)
	}
	rules := map[string]*Violation{}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		audit, ok := AuditName(e.Name())
		if !ok {
			continue
		}
		s.AuditFiles = append(s.AuditFiles, e.Name())
		if err := summarizeAudit(fsys, e.Name(), audit, s, rules); err != nil {
			return nil, fmt.Errorf("%s: %w", e.Name(), err)
		}
	}
	sort.Strings(s.AuditFiles)
	for _, v := range rules {
		s.TopViolations = append(s.TopViolations, *v)
	}
	sort.Slice(s.TopViolations, func(i, j int) bool {
		a, b := s.TopViolations[i], s.TopViolations[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		ra, oka := impactRank[a.Impact]
		rb, okb := impactRank[b.Impact]
		if !oka {
			ra = len(impactRank)
		}
		if !okb {
			rb = len(impactRank)
		}
		if ra != rb {
			return ra < rb
		}
		return a.ID < b.ID
	})
	if len(s.TopViolations) > TopViolationsLimit {
		s.TopViolations = s.TopViolations[:TopViolationsLimit]
	}

	if err := readPagesScanned(fsys, s, opts.ExpectedBaseURLs); err != nil {
		return nil, err
	}
	if s.URLsScanned, err = countDistinct(fsys, AuditLogFile, "url"); err != nil {
		return nil, fmt.Errorf("%s: %w", AuditLogFile, err)
	}
	if s.UnexpectedResponses, err = countRows(fsys, UnexpectedCodeFile); err != nil {
		return nil, fmt.Errorf("%s: %w", UnexpectedCodeFile, err)
	}
	s.DurationSeconds = opts.Duration
	if s.DurationSeconds == 0 {
		s.DurationSeconds = ProgressOf(fsys).ElapsedSeconds
	}
	return s, nil
}

func summarizeAudit(fsys fs.FS, path, audit string, s *Summary, rules map[string]*Violation) error {
	f, err := fsys.Open(path)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }() // read only: closing loses nothing
	r, err := NewReader(f)
	if err != nil {
		return err
	}
	// Audits without num_issues (title, language, element, screenshot) report
	// rows, not issues.
	if !r.Has("num_issues") {
		var rows int64
		for {
			if _, err := r.Next(); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				return err
			}
			rows++
		}
		s.Informational[audit] = rows
		return nil
	}
	for rows := 0; ; rows++ {
		row, err := r.Next()
		if errors.Is(err, io.EOF) {
			if rows == 0 {
				s.IssuesByAuditType[audit] += 0 // a header-only CSV: listed with nothing found
			}
			return nil
		}
		if err != nil {
			return err
		}
		n, err := parseCount(row.Get("num_issues"))
		if err != nil {
			return err
		}
		if n <= 0 {
			continue // "No issues found" and passing rows
		}
		s.TotalIssues += n
		s.IssuesByAuditType[audit] += n
		impact := row.Get("impact")
		if impact != "" {
			s.IssuesByImpact[impact] += n
		}
		id := row.Get("id")
		desc := row.Get("help")
		if id == "" {
			id = audit
			desc = knownRules[audit]
		}
		key := audit + "\x00" + id
		v := rules[key]
		if v == nil {
			v = &Violation{ID: id, AuditType: audit, Impact: impact, Description: desc}
			rules[key] = v
		}
		if impactRank[impact] < impactRank[v.Impact] || v.Impact == "" {
			v.Impact = impact
		}
		v.Count += n
	}
}

func parseCount(v string) (int64, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, nil
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return n, nil
	}
	// pandas may write integer columns as floats ("1.0") when a value was missing.
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f != math.Trunc(f) {
		return 0, fmt.Errorf("num_issues %q is not a whole number", v)
	}
	return int64(f), nil
}

func readPagesScanned(fsys fs.FS, s *Summary, expected []string) error {
	seen := map[string]bool{}
	err := EachRowFS(fsys, PagesScannedFile, func(_ *Reader, row Row) error {
		n, err := parseCount(row.Get("number_of_pages"))
		if err != nil {
			return fmt.Errorf("number_of_pages: %w", err)
		}
		b := BaseURLPages{Organisation: row.Get("organisation"), BaseURL: row.Get("base_url"), Sector: row.Get("sector"), Pages: int(n)}
		s.BaseURLs = append(s.BaseURLs, b)
		s.PagesScanned += int(n)
		seen[b.BaseURL] = true
		if n == 0 {
			s.UnscannedBaseURLs = append(s.UnscannedBaseURLs, b.BaseURL)
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w", PagesScannedFile, err)
	}
	for _, u := range expected {
		if !seen[u] {
			seen[u] = true
			s.BaseURLs = append(s.BaseURLs, BaseURLPages{BaseURL: u})
			s.UnscannedBaseURLs = append(s.UnscannedBaseURLs, u)
		}
	}
	return nil
}

func countDistinct(fsys fs.FS, path, column string) (int, error) {
	seen := map[string]struct{}{}
	err := EachRowFS(fsys, path, func(_ *Reader, row Row) error {
		seen[row.Get(column)] = struct{}{}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	return len(seen), err
}

func countRows(fsys fs.FS, path string) (int, error) {
	n := 0
	err := EachRowFS(fsys, path, func(*Reader, Row) error { n++; return nil })
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	return n, err
}

// Progress is what progress.csv says of a scan: CWAC appends a row per page
// (iteration of an estimated total) and a final row when it is done.
type Progress struct {
	PagesDone      int     `json:"pages_done"`
	PagesEstimated int     `json:"pages_estimated"`
	Percent        float64 `json:"percent"`
	ElapsedSeconds float64 `json:"elapsed_seconds"`
}

// ProgressOf reads progress.csv; a missing or unreadable file gives zeros.
func ProgressOf(fsys fs.FS) Progress {
	var p Progress
	var first, last float64
	_ = EachRowFS(fsys, ProgressFile, func(_ *Reader, row Row) error {
		if t, err := strconv.ParseFloat(row.Get("time"), 64); err == nil {
			if first == 0 {
				first = t
			}
			last = t
		}
		if n, err := strconv.Atoi(row.Get("iteration")); err == nil {
			p.PagesDone = n
		}
		if n, err := strconv.Atoi(row.Get("total")); err == nil {
			p.PagesEstimated = n
		}
		if f, err := strconv.ParseFloat(row.Get("percent"), 64); err == nil {
			p.Percent = f
		}
		return nil
	})
	if last > first {
		p.ElapsedSeconds = math.Round((last-first)*10) / 10
	}
	return p
}
