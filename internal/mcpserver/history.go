package mcpserver

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/a11y-dev/cwac-operator/internal/mcpapi"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/store"
)

// errNoHistory is the history tools' answer when the server has no store.
var errNoHistory = errors.New("The issue history is not configured: this MCP server was started without --store " +
	"(see docs/history.md); the other tools work without it")

// errHistoryNotOpen is their answer while the store's database has not
// answered since the server started.
var errHistoryNotOpen = errors.New("The issue history's database has not answered since this MCP server started: " +
	"it is retried in the background (see the server's log); the other tools work meanwhile")

// history is the store and the namespaces a history call may read: the
// server's own, where invoke has checked the caller may get CwacScans. The
// store is queried with them, so totals count nothing else.
func (s *Server) history() (*store.Store, []string, error) {
	st, err := s.cfg.History.Get()
	switch {
	case errors.Is(err, store.ErrNotConfigured):
		return nil, nil, errNoHistory
	case err != nil:
		return nil, nil, errHistoryNotOpen
	}
	return st, []string{s.cfg.Namespace}, nil
}

// historyError words a store error for a caller: an organisation that is
// not there is a plain answer, anything else the store's failure.
func (s *Server) historyError(organisation string, err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return errors.New(store.NoOrganisation(s.cfg.Namespace, organisation))
	}
	return fmt.Errorf("reading the issue history: %w", err)
}

// historyAnswerReserve is the part of an answer kept for its fields other
// than the list (issues or points), which fills the rest.
const historyAnswerReserve = 4 << 10

// jsonLen is the size of v encoded as JSON (0 if it cannot be: the answer
// itself would then fail to encode, and say so).
func jsonLen(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return len(b)
}

func apiIssue(is store.Issue) mcpapi.HistoryIssue {
	return mcpapi.HistoryIssue{
		Fingerprint: is.Fingerprint, State: is.State, Organisation: is.Organisation, Page: is.Page, ViewportWidth: is.ViewportWidth,
		Audit: is.Audit, Rule: is.Rule, Impact: is.Impact, ElementHTML: is.ElementHTML, Target: is.Target, HelpURL: is.HelpURL, WCAG: is.WCAG,
		FirstSeenScan: is.FirstSeenScan, FirstSeenAt: is.FirstSeenAt, LastSeenScan: is.LastSeenScan, LastSeenAt: is.LastSeenAt,
		FixedInScan: is.FixedInScan, FixedAt: is.FixedAt, FixedReason: is.FixedReason, Reopened: is.Reopened, ScansPresent: is.ScansPresent,
	}
}

// apiTrendPoint is a stored point as the tools answer it. A blocked or
// unreachable organisation's score is left out: it would be the score of
// a challenge or error page, which looks clean (docs/completeness.md).
func apiTrendPoint(p store.TrendPoint) mcpapi.TrendPoint {
	score := p.Score
	if !results.Verdict(p.Completeness).ScoreShown() {
		score = nil
	}
	return mcpapi.TrendPoint{
		Scan: p.Scan, Schedule: p.Schedule, FinishedAt: p.FinishedAt, BaseURLs: p.BaseURLs, Pages: p.Pages,
		Issues: p.Issues, Elements: p.Elements, ByImpact: p.ByImpact, ByAudit: p.ByAudit, Score: score,
		Completeness: p.Completeness, CompletenessReason: p.CompletenessReason,
		New: p.New, Fixed: p.Fixed, FixedPageNotScanned: p.FixedPageNotScanned, Reopened: p.Reopened, Unstable: p.Unstable, Open: p.Open,
		Engine:        mcpapi.EngineVersions{CWACImage: p.Engine.CWACImageDigest, AxeCore: p.Engine.AxeCore, Chrome: p.Engine.Chrome},
		EngineChanged: p.EngineChanged,
	}
}
