package mcpapi

import (
	"fmt"

	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/store"
)

// The issue history's answers are these types, whoever serves them (the
// MCP tools, the dashboard's exports): the store's rows have no wire shape
// of their own.

// IssueOf is a stored issue as answers carry it.
func IssueOf(is store.Issue) HistoryIssue {
	return HistoryIssue{
		Fingerprint: is.Fingerprint, State: is.State, Organisation: is.Organisation, Page: is.Page, ViewportWidth: is.ViewportWidth,
		Audit: is.Audit, Rule: is.Rule, Impact: is.Impact, ElementHTML: is.ElementHTML, ElementHash: ElementHash(is.ElementHash),
		Target: is.Target, HelpURL: is.HelpURL, WCAG: is.WCAG,
		FirstSeenScan: is.FirstSeenScan, FirstSeenAt: is.FirstSeenAt, LastSeenScan: is.LastSeenScan, LastSeenAt: is.LastSeenAt,
		FixedInScan: is.FixedInScan, FixedAt: is.FixedAt, FixedReason: is.FixedReason, Reopened: is.Reopened, ScansPresent: is.ScansPresent,
	}
}

// ElementHash writes an element's hash as answers and decisions carry it.
func ElementHash(h uint64) string { return fmt.Sprintf("%016x", h) }

// TrendPointOf is a stored point as answers carry it. A blocked or
// unreachable organisation's score is left out: it would be the score of
// a challenge or error page, which looks clean (docs/completeness.md).
func TrendPointOf(p store.TrendPoint) TrendPoint {
	score := p.Score
	if !results.Verdict(p.Completeness).ScoreShown() {
		score = nil
	}
	return TrendPoint{
		Scan: p.Scan, Schedule: p.Schedule, FinishedAt: p.FinishedAt, BaseURLs: p.BaseURLs, Pages: p.Pages,
		Issues: p.Issues, Elements: p.Elements, ByImpact: p.ByImpact, ByAudit: p.ByAudit, Score: score, WeightedPerPage: p.WeightedPerPage,
		Completeness: p.Completeness, CompletenessReason: p.CompletenessReason,
		New: p.New, Fixed: p.Fixed, FixedPageNotScanned: p.FixedPageNotScanned, Reopened: p.Reopened, Unstable: p.Unstable, Open: p.Open,
		SetAside: p.SetAside, Decided: p.Decided,
		Engine:        EngineVersions{CWACImage: p.Engine.CWACImageDigest, AxeCore: p.Engine.AxeCore, Chrome: p.Engine.Chrome},
		EngineChanged: p.EngineChanged,
	}
}
