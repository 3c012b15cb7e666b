package mcpapi

import "time"

// IssueHistoryInput are cwac_issue_history's arguments.
type IssueHistoryInput struct {
	Organisation string `json:"organisation,omitempty" jsonschema:"only this organisation's issues (CWAC's organisation name)"`
	Rule         string `json:"rule,omitempty" jsonschema:"only this rule's issues: axe's rule id (color-contrast), or CWAC's audit for its own audits"`
	State        string `json:"state,omitempty" jsonschema:"open or fixed (default both)"`
	ReopenedOnly bool   `json:"reopened_only,omitempty" jsonschema:"only issues that were fixed and came back"`
	Page         string `json:"page,omitempty" jsonschema:"only issues on this page URL (normalised as the baseline comparison does)"`
	Limit        int    `json:"limit,omitempty" jsonschema:"most issues to return (default 50, at most 500)"`
	Offset       int    `json:"offset,omitempty" jsonschema:"matching issues to skip first, for paging"`
}

// IssueHistoryOutput is cwac_issue_history's answer.
type IssueHistoryOutput struct {
	// Namespace is the namespace whose scans the history was read from.
	Namespace string         `json:"namespace"`
	Total     int64          `json:"total" jsonschema:"issues matching the filters"`
	Offset    int            `json:"offset"`
	Returned  int            `json:"returned"`
	Issues    []HistoryIssue `json:"issues" jsonschema:"oldest first (by first sighting)"`
	Truncated bool           `json:"truncated,omitempty" jsonschema:"fewer issues than asked, to keep the answer under the server's cap; continue at offset + returned"`
	Note      string         `json:"note,omitempty"`
}

// HistoryIssue is one issue followed across scans.
type HistoryIssue struct {
	Fingerprint   string `json:"fingerprint" jsonschema:"the issue's identity across scans"`
	State         string `json:"state" jsonschema:"open or fixed"`
	Organisation  string `json:"organisation"`
	Page          string `json:"page"`
	ViewportWidth int    `json:"viewport_width"`
	Audit         string `json:"audit"`
	Rule          string `json:"rule"`
	Impact        string `json:"impact,omitempty"`
	ElementHTML   string `json:"element_html,omitempty"`
	// ElementHash is store.Issue's, as 16 hexadecimal digits.
	ElementHash string   `json:"element_hash" jsonschema:"the hash of the element's HTML (16 hexadecimal digits): what a CwacIssueDecision's issue.element names"`
	Target      string   `json:"target,omitempty"`
	HelpURL     string   `json:"help_url,omitempty"`
	WCAG        []string `json:"wcag,omitempty" jsonschema:"WCAG success criteria"`
	// Scans are named "namespace/name".
	FirstSeenScan string     `json:"first_seen_scan"`
	FirstSeenAt   time.Time  `json:"first_seen_at"`
	LastSeenScan  string     `json:"last_seen_scan"`
	LastSeenAt    time.Time  `json:"last_seen_at"`
	FixedInScan   string     `json:"fixed_in_scan,omitempty" jsonschema:"the first later scan of the page that no longer showed it"`
	FixedAt       *time.Time `json:"fixed_at,omitempty"`
	FixedReason   string     `json:"fixed_reason,omitempty" jsonschema:"fixed, or page not scanned (a later scan did not visit the page)"`
	Reopened      int        `json:"reopened" jsonschema:"times it was fixed and came back"`
	ScansPresent  int        `json:"scans_present" jsonschema:"scans that showed it"`
	// Decision is the applied decision covering the issue now, if any.
	Decision *HistoryDecision `json:"decision,omitempty" jsonschema:"the applied decision that covers the issue now (it leaves scores, gates and new-issue notifications); absent when none does"`
}

// HistoryDecision is the decision covering an issue, as answers carry it.
type HistoryDecision struct {
	Decision  string     `json:"decision" jsonschema:"the CwacIssueDecision: namespace/name"`
	Kind      string     `json:"kind" jsonschema:"FalsePositive, Accepted or WontFix"`
	Reason    string     `json:"reason"`
	DecidedBy string     `json:"decided_by,omitempty"`
	ReviewBy  *time.Time `json:"review_by,omitempty" jsonschema:"when it stops covering the issue"`
}

// OrganisationTrendInput are cwac_organisation_trend's arguments.
type OrganisationTrendInput struct {
	Organisation string `json:"organisation" jsonschema:"CWAC's organisation name"`
	Schedule     string `json:"schedule,omitempty" jsonschema:"only the scans of this CwacScanSchedule"`
}

// OrganisationTrendOutput is cwac_organisation_trend's answer.
type OrganisationTrendOutput struct {
	Namespace    string       `json:"namespace"`
	Organisation string       `json:"organisation"`
	Schedule     string       `json:"schedule,omitempty"`
	Points       []TrendPoint `json:"points" jsonschema:"one per scan, oldest first"`
	Truncated    bool         `json:"truncated,omitempty" jsonschema:"the oldest points were left out to keep the answer under the server's cap"`
	Note         string       `json:"note,omitempty"`
}

// SectorTrendInput are cwac_sector_trend's arguments.
type SectorTrendInput struct {
	Sector   string `json:"sector" jsonschema:"CWAC's sector name, as organisations are recorded with it"`
	Schedule string `json:"schedule,omitempty" jsonschema:"only the scans of this CwacScanSchedule"`
}

// SectorTrendOutput is cwac_sector_trend's answer.
type SectorTrendOutput struct {
	Namespace string             `json:"namespace"`
	Sector    string             `json:"sector"`
	Schedule  string             `json:"schedule,omitempty"`
	Points    []SectorTrendPoint `json:"points" jsonschema:"one per scan, oldest first"`
	Truncated bool               `json:"truncated,omitempty" jsonschema:"the oldest points were left out to keep the answer under the server's cap"`
	Note      string             `json:"note,omitempty"`
}

// SectorTrendPoint is a sector's figures in one scan: the sums of its
// organisations' figures, the score computed over the sums as the
// leaderboard computes an organisation's.
type SectorTrendPoint struct {
	TrendPoint
	Organisations int `json:"organisations" jsonschema:"organisations of the sector the scan recorded"`
	NotScored     int `json:"organisations_not_scored" jsonschema:"of those, blocked or unreachable: left out of the sums, as the leaderboard leaves out their scores"`
}

// TrendPoint is an organisation's figures in one scan.
type TrendPoint struct {
	Scan       string           `json:"scan" jsonschema:"namespace/name"`
	Schedule   string           `json:"schedule,omitempty"`
	FinishedAt time.Time        `json:"finished_at"`
	BaseURLs   int              `json:"base_urls"`
	Pages      int              `json:"pages" jsonschema:"pages scanned"`
	Issues     int64            `json:"issues" jsonschema:"CWAC's count, one per viewport: summary.json's total_issues less set_aside"`
	Elements   int64            `json:"elements" jsonschema:"issues counting an element found at several viewports once"`
	ByImpact   map[string]int64 `json:"by_impact"`
	ByAudit    map[string]int64 `json:"by_audit"`
	// Score is the leaderboard's: null when no page was scanned, or when
	// the organisation was blocked or unreachable (its figures are of
	// challenge or error pages, not of its site).
	Score *float64 `json:"score"`
	// WeightedPerPage is the score's input: issues weighted by impact, per
	// page scanned (internal/report's formula).
	WeightedPerPage float64 `json:"weighted_per_page" jsonschema:"issues weighted by impact per page scanned: the score's input"`
	// Completeness is how completely the organisation was scanned:
	// complete, partial, blocked or unreachable ("" for scans recorded
	// before it was); CompletenessReason says why.
	Completeness        string `json:"completeness,omitempty" jsonschema:"complete, partial, blocked or unreachable: figures of an organisation that is not complete cover only what the scanner could read"`
	CompletenessReason  string `json:"completeness_reason,omitempty"`
	New                 int64  `json:"new"`
	Fixed               int64  `json:"fixed"`
	FixedPageNotScanned int64  `json:"fixed_page_not_scanned" jsonschema:"issues on pages this scan did not visit: counted apart from fixes"`
	Reopened            int64  `json:"reopened"`
	Unstable            int64  `json:"unstable" jsonschema:"rows kept out of new and fixed (an audit that did not run, a page that kept changing)"`
	Open                int64  `json:"open" jsonschema:"issues open after the scan"`
	// SetAside is report.TimingDependentWhy's count.
	SetAside int64 `json:"set_aside" jsonschema:"CWAC's count of timing-dependent rows (focus rows on a page's <body>, written on some runs only): in no other figure and no score"`
	// Decided is the count of issues the scan's decisions covered.
	Decided       int64          `json:"decided" jsonschema:"CWAC's count of issues a decision covered when the scan ran (false positive, accepted, won't fix): in no other figure but open, and no score"`
	Engine        EngineVersions `json:"engine"`
	EngineChanged bool           `json:"engine_changed,omitempty" jsonschema:"the CWAC image, axe-core or Chrome differs from the point before: a jump may be the engine's"`
}

// EngineVersions are what produced a scan's results, where known.
type EngineVersions struct {
	CWACImage string `json:"cwac_image,omitempty" jsonschema:"the CWAC image (its digest when the scan pod reported one)"`
	AxeCore   string `json:"axe_core,omitempty"`
	Chrome    string `json:"chrome,omitempty"`
}
