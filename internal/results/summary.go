package results

import (
	"context"
	"fmt"
	"io/fs"
	"math"
	"os"
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
	// DecidedIssues counts the issues a decision covers (a false positive,
	// accepted or won't fix): in none of the counts above, so no threshold
	// gates on them (SummaryBuilder.DecidedRow).
	DecidedIssues int64 `json:"decided_issues,omitempty"`
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
	// BlockedByPolicy are the connections the scan pod's egress proxy
	// refused (nil: none). The runner adds it; CWAC's files do not hold it.
	BlockedByPolicy *BlockedConnections `json:"blocked_by_policy,omitempty"`
	// Signals are what CWAC records besides issues (templates, page
	// titles, broken responses, reading level), each list cut to
	// SummarySignalItems; nil when none of their CSVs was read.
	Signals *Signals `json:"signals,omitempty"`
	// Completeness says how completely each organisation and site was
	// scanned (completeness.go).
	Completeness *Completeness `json:"completeness,omitempty"`
}

// knownRules describes non-axe audits, whose rows carry no rule id.
var knownRules = map[string]string{
	"reflow_audit":          "Content overflows horizontally at a narrow viewport (WCAG 1.4.10 Reflow)",
	"focus_indicator_audit": "Keyboard focus is not visibly indicated (WCAG 2.4.7 Focus Visible)",
}

// RuleDescription describes a non-axe audit's issues ("" when unknown).
func RuleDescription(audit string) string { return knownRules[audit] }

// Options adjust Summarize.
type Options struct {
	// ExpectedBaseURLs are the base URLs the scan was given, so base URLs that
	// CWAC skipped before writing pages_scanned.csv (only_allow_https) are
	// reported as unscanned too.
	ExpectedBaseURLs []string
	// Sites are the sites the scan gave CWAC, with their organisations, so
	// that a site in no CWAC file is judged under its organisation.
	Sites []ExpectedSite
	// MaxLinksPerDomain is what the scan asked of each site (0: read it
	// from the results' config.json where SummarizeContext can, else
	// unknown).
	MaxLinksPerDomain int
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
	return SummarizeContext(context.Background(), fsys, opts)
}

// SummarizeContext is SummarizeFS honouring ctx. It walks the directory
// with a SummaryBuilder alone; callers building more from the same read
// pass their own SummaryBuilder to Walk beside their other visitors.
func SummarizeContext(ctx context.Context, fsys fs.FS, opts Options) (*Summary, error) {
	if opts.MaxLinksPerDomain == 0 {
		opts.MaxLinksPerDomain = MaxLinksOf(fsys)
	}
	b := NewSummaryBuilder(opts)
	if err := Walk(ctx, fsys, b); err != nil {
		return nil, err
	}
	s := b.Summary()
	if s.DurationSeconds == 0 {
		s.DurationSeconds = ProgressOf(fsys).ElapsedSeconds
	}
	return s, nil
}

// ParseCount reads a count cell (num_issues, number_of_pages): a whole
// number, possibly written as a float by pandas ("1.0") when a value was
// missing; empty is 0. Floats beyond 2^53, where not every whole number is
// exact, are refused, and so are negative counts (CWAC writes none; one
// would take issues or pages away from an organisation's totals). The
// summary, the report and the diff all count with it.
func ParseCount(v string) (int64, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		f, ferr := strconv.ParseFloat(v, 64)
		if ferr != nil || math.IsNaN(f) || math.IsInf(f, 0) || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			return 0, fmt.Errorf("%q is not a whole number", v)
		}
		n = int64(f)
	}
	if n < 0 {
		return 0, fmt.Errorf("%q is not a count: it is negative", v)
	}
	return n, nil
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
