package store

import (
	"errors"
	"time"
)

// Issue states and the reasons an issue was fixed.
const (
	StateOpen  = "open"
	StateFixed = "fixed"
	// ReasonFixed: a later scan of the page no longer showed the issue.
	ReasonFixed = "fixed"
	// ReasonPageNotScanned: a later scan of the organisation did not visit
	// the page (it was removed, or the crawl did not reach it). Counted
	// apart from fixes.
	ReasonPageNotScanned = "page not scanned"
)

// ErrScanExists is returned by BeginScan for a scan already in the store:
// ingesting it again adds nothing.
var ErrScanExists = errors.New("the scan is already in the store")

// MaxNameBytes bounds a stored organisation, sector, rule or impact name:
// a longer one is stored cut to it, so a name of up to this length names
// what the history holds (the dashboard accepts names up to it).
const MaxNameBytes = 1000

// ErrOutOfOrder is returned (wrapped, naming the organisation) when a scan
// finished before a scan of one of its organisations already in the store:
// transitions are computed against the previous scan, so history is
// written oldest first.
var ErrOutOfOrder = errors.New("the scan is older than one already in the store for the same organisation")

// Scan describes one finished scan, as the ingest records it.
type Scan struct {
	// UID identifies the scan: the CwacScan's metadata.uid, or for an
	// imported results directory a name derived from it.
	UID       string
	Namespace string
	Name      string
	// Schedule is the CwacScanSchedule that created the scan ("" for none).
	Schedule   string
	FinishedAt time.Time
	Phase      string
	// ResultsPath is the results directory on the results volume.
	ResultsPath string
	Engine      EngineVersions
}

// EngineVersions is what produced a scan's results, where known: a change
// marks the trend, so a jump caused by an axe-core upgrade is not read as
// a regression.
type EngineVersions struct {
	CWACImageDigest string
	AxeCore         string
	Chrome          string
}

// IssueFilter selects issues for IssueHistory. Empty fields do not
// filter, but Namespaces, which must name at least one.
type IssueFilter struct {
	// Namespaces are those whose organisations may be seen: the caller's
	// (where it may get CwacScans). The total counts only these.
	Namespaces   []string
	Organisation string
	Rule         string
	// State is "open", "fixed" or "" (both).
	State        string
	ReopenedOnly bool
	// Page is a page URL; it is normalised as issues' pages are.
	Page string
	// Limit is the page size (1..MaxLimit; 0 means DefaultLimit).
	Limit  int
	Offset int
}

// Paging limits of IssueHistory.
const (
	DefaultLimit = 50
	MaxLimit     = 500
	// MaxOffset bounds how deep a page may start: deeper pages are better
	// reached with narrower filters.
	MaxOffset = 1_000_000
)

// IssuePage is one page of IssueHistory: the matching issues' total and
// the page's issues, oldest first (by first sighting).
type IssuePage struct {
	Total  int64
	Issues []Issue
}

// Issue is one issue identity followed across scans.
type Issue struct {
	Fingerprint   string
	State         string
	Organisation  string
	Page          string
	ViewportWidth int
	Audit         string
	Rule          string
	Impact        string
	ElementHTML   string
	Target        string
	HelpURL       string
	WCAG          []string
	// FirstSeenScan, LastSeenScan and FixedInScan name scans as
	// "namespace/name".
	FirstSeenScan string
	FirstSeenAt   time.Time
	LastSeenScan  string
	LastSeenAt    time.Time
	FixedInScan   string
	FixedAt       *time.Time
	FixedReason   string
	Reopened      int
	ScansPresent  int
}

// IssueDetail is one issue with every scan of its organisation since it
// was first seen, and whether each showed it.
type IssueDetail struct {
	Issue
	Scans []IssueScan
}

// IssueScan is one scan of an issue's organisation.
type IssueScan struct {
	Scan       string
	FinishedAt time.Time
	Present    bool
}

// TrendPoint is one organisation's figures in one scan.
type TrendPoint struct {
	Scan       string
	Schedule   string
	FinishedAt time.Time
	BaseURLs   int
	Pages      int
	// Issues is CWAC's count (num_issues, one per viewport), as
	// summary.json's total_issues counts; Elements counts an element
	// found at several viewports once.
	Issues          int64
	Elements        int64
	ByImpact        map[string]int64
	ByAudit         map[string]int64
	WeightedPerPage float64
	// Score is the leaderboard's (nil when no page was scanned).
	Score *float64
	// New, Fixed, FixedPageNotScanned, Reopened and Unstable count issue
	// rows (one per viewport) tracked in the history; Open is how many
	// were open after the scan.
	New                 int64
	Fixed               int64
	FixedPageNotScanned int64
	Reopened            int64
	Unstable            int64
	Open                int64
	Engine              EngineVersions
	// EngineChanged is true when the engine differs from the previous
	// point's (the first point has nothing to differ from).
	EngineChanged bool
	// Completeness is how completely the organisation was scanned:
	// complete, partial, blocked or unreachable ("" for scans recorded
	// before it was); CompletenessReason says why. An organisation that
	// is not complete has figures that cover only what the scanner could
	// read: rank it apart (docs/completeness.md).
	Completeness       string
	CompletenessReason string
}

// OrganisationSummary is an organisation with its latest figures.
type OrganisationSummary struct {
	Namespace string
	Name      string
	Sector    string
	Scans     int64
	Latest    *TrendPoint
}

// Template is one rule failing on the same element HTML on several pages of
// an organisation in one scan.
type Template struct {
	Audit       string
	Rule        string
	ElementHTML string
	Pages       int
	Instances   int64
}

// Retention bounds what Prune keeps. Zero fields keep everything.
type Retention struct {
	// MaxAge prunes scans that finished longer ago.
	MaxAge time.Duration
	// MaxScans keeps the newest scans of each schedule (scans without a
	// schedule count as one), pruning older ones.
	MaxScans int
}
