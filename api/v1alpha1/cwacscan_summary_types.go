package v1alpha1

// Violation is one rule and how often it was broken.
type Violation struct {
	// id is the rule id, e.g. axe's "image-alt".
	ID string `json:"id"`
	// auditType is the CWAC audit that reported it, e.g. "AxeCoreAudit".
	// +optional
	AuditType string `json:"auditType,omitempty"`
	// impact is axe's impact: critical, serious, moderate or minor.
	// +optional
	Impact string `json:"impact,omitempty"`
	// description says what the rule checks.
	// +optional
	Description string `json:"description,omitempty"`
	// count is the number of issues.
	Count int64 `json:"count"`
}

// ScanSummary is the compact result of a finished scan.
type ScanSummary struct {
	// totalIssues counts every issue (CWAC's num_issues) across all audits,
	// except those a decision covers (decidedIssues).
	TotalIssues int64 `json:"totalIssues"`
	// decidedIssues counts the issues a CwacIssueDecision covers (a false
	// positive, accepted or won't fix, as of the scan's start): in none of
	// this summary's other counts, so no threshold gates on them.
	// +optional
	// +kubebuilder:validation:Minimum=0
	DecidedIssues int64 `json:"decidedIssues,omitempty"`
	// issuesByAuditType maps CWAC's audit_type (e.g. AxeCoreAudit) to issues.
	// +optional
	IssuesByAuditType map[string]int64 `json:"issuesByAuditType,omitempty"`
	// issuesByImpact maps axe impact (critical, serious, moderate, minor) to issues.
	// +optional
	IssuesByImpact map[string]int64 `json:"issuesByImpact,omitempty"`
	// topViolations are the most frequent rules, at most 10.
	// +optional
	// +listType=atomic
	TopViolations []Violation `json:"topViolations,omitempty"`
	// informational maps audits that report rows rather than issues (title,
	// language, element, screenshot) to their row counts.
	// +optional
	Informational map[string]int64 `json:"informational,omitempty"`
	// urlsScanned is the number of distinct page URLs CWAC audited (its
	// audit log); pagesScanned counts pages per base URL as CWAC reports them.
	UrlsScanned int32 `json:"urlsScanned"`
	// pagesScanned is the number of pages CWAC scanned.
	PagesScanned int32 `json:"pagesScanned"`
	// unscannedBaseURLs are base URLs that yielded no page (unreachable, refused by
	// only_allow_https, or blocked by robots.txt).
	// +optional
	// +listType=atomic
	UnscannedBaseURLs []string `json:"unscannedBaseURLs,omitempty"`
	// durationSeconds is CWAC's wall time.
	// +optional
	DurationSeconds int64 `json:"durationSeconds,omitempty"`
	// diff compares the results with spec.baseline's, when both exist.
	// +optional
	Diff *ScanDiff `json:"diff,omitempty"`
	// completeness says how completely each organisation's sites were
	// scanned (docs/completeness.md): organisations and sites counted by
	// verdict, and the organisations that are not complete. Unset when the
	// scan pod did not report it.
	// +optional
	Completeness *ScanCompleteness `json:"completeness,omitempty"`
}

// ScanCompleteness counts a scan's organisations and sites by verdict:
// complete, partial, blocked or unreachable.
type ScanCompleteness struct {
	// organisationsByVerdict counts organisations by verdict.
	// +optional
	// +kubebuilder:validation:MaxProperties=4
	OrganisationsByVerdict map[string]int32 `json:"organisationsByVerdict,omitempty"`
	// sitesByVerdict counts sites (base URLs) by verdict.
	// +optional
	// +kubebuilder:validation:MaxProperties=4
	SitesByVerdict map[string]int32 `json:"sitesByVerdict,omitempty"`
	// incomplete lists organisations that are not complete, worst first,
	// at most 20 (summary.json on the results volume lists more, with
	// each site).
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=20
	Incomplete []OrganisationCompleteness `json:"incomplete,omitempty"`
	// sitesNotJudged counts sites past the results reader's bound, whose
	// completeness is not known.
	// +optional
	SitesNotJudged int32 `json:"sitesNotJudged,omitempty"`
}

// OrganisationCompleteness is one organisation that was not scanned completely.
type OrganisationCompleteness struct {
	// organisation as CWAC reports it.
	Organisation string `json:"organisation"`
	// verdict is partial, blocked or unreachable.
	Verdict string `json:"verdict"`
	// reason says why, naming the sites that were not complete.
	// +optional
	Reason string `json:"reason,omitempty"`
}

// ScanDiff counts how a scan's issues changed against its baseline. An
// issue is counted as in the summary (CWAC's num_issues); rows CWAC only
// sometimes produces are counted apart as unstable, never as new or fixed.
type ScanDiff struct {
	// baseline is the CwacScan compared with.
	Baseline string `json:"baseline"`
	// new counts issues the baseline did not have.
	New int64 `json:"new"`
	// fixed counts the baseline's issues this scan no longer has.
	Fixed int64 `json:"fixed"`
	// unchanged counts issues found by both.
	Unchanged int64 `json:"unchanged"`
	// unstable counts issues of rows CWAC produces only sometimes (e.g. a
	// focus row on a page that refreshes itself), on either side.
	// +optional
	Unstable int64 `json:"unstable,omitempty"`
	// newElements and fixedElements count elements rather than issues: one
	// element found at several viewports counts once.
	// +optional
	NewElements int64 `json:"newElements,omitempty"`
	// +optional
	FixedElements int64 `json:"fixedElements,omitempty"`
	// newByImpact maps axe impact to new issues.
	// +optional
	NewByImpact map[string]int64 `json:"newByImpact,omitempty"`
	// fixedByImpact maps axe impact to fixed issues.
	// +optional
	FixedByImpact map[string]int64 `json:"fixedByImpact,omitempty"`
	// pagesAdded and pagesRemoved count pages only one of the two scans
	// scanned; their issues are counted in new and fixed too, and
	// newOnAddedPages and fixedOnRemovedPages say how many, so a deleted
	// page is not mistaken for fixes.
	// +optional
	PagesAdded int64 `json:"pagesAdded,omitempty"`
	// +optional
	PagesRemoved int64 `json:"pagesRemoved,omitempty"`
	// +optional
	NewOnAddedPages int64 `json:"newOnAddedPages,omitempty"`
	// +optional
	FixedOnRemovedPages int64 `json:"fixedOnRemovedPages,omitempty"`
	// byOrganisation is new (with their impacts), fixed and unchanged per organisation, at most
	// 50 organisations, most new first (the rest are in diff.json).
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=50
	ByOrganisation []OrganisationDiff `json:"byOrganisation,omitempty"`
	// scoreDrops are the organisations whose leaderboard score fell against
	// the baseline, largest fall first, at most 10 (summary.json lists every
	// one). An organisation blocked or unreachable in either scan is not
	// compared: its score describes only what a firewall let through.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=10
	ScoreDrops []OrganisationScoreDrop `json:"scoreDrops,omitempty"`
}

// OrganisationScoreDrop is one organisation's leaderboard score in the
// baseline and in the scan: 0-100, higher better, to one decimal, as the
// leaderboard shows it (a decimal in a string, as Kubernetes APIs avoid
// floating-point fields).
type OrganisationScoreDrop struct {
	// organisation as CWAC reports it.
	Organisation string `json:"organisation"`
	// previousScore is its score in the baseline, e.g. "81.5".
	// +kubebuilder:validation:Pattern=`^(100|[1-9]?[0-9])\.[0-9]$`
	PreviousScore string `json:"previousScore"`
	// score is its score in this scan.
	// +kubebuilder:validation:Pattern=`^(100|[1-9]?[0-9])\.[0-9]$`
	Score string `json:"score"`
}

// OrganisationDiff is one organisation's share of a ScanDiff.
type OrganisationDiff struct {
	// organisation as CWAC reports it.
	Organisation string `json:"organisation"`
	// new issues.
	New int64 `json:"new"`
	// fixed issues.
	Fixed int64 `json:"fixed"`
	// unchanged issues.
	Unchanged int64 `json:"unchanged"`
	// newByImpact maps axe-core's impacts (critical, serious, moderate,
	// minor) to the organisation's new issues; new issues with no impact
	// are counted in new only.
	// +optional
	NewByImpact map[string]int64 `json:"newByImpact,omitempty"`
}

// ScanFailure says why a scan failed, in fields a program can read without
// parsing prose.
type ScanFailure struct {
	// reason is the Failed condition's reason, e.g. CWACExitedNonZero.
	Reason string `json:"reason"`
	// exitCode is the exit code of the scan container (CWAC's own, or the
	// runner's when it could not start CWAC), when the container ran.
	// +optional
	ExitCode *int32 `json:"exitCode,omitempty"`
	// cause is the one line that names what went wrong, e.g. the last
	// exception line of CWAC's traceback.
	// +optional
	Cause string `json:"cause,omitempty"`
	// logTail is the end of CWAC's error output (its traceback, when it
	// crashed), at most 2 KiB.
	// +optional
	LogTail string `json:"logTail,omitempty"`
}
