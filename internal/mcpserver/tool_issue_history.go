package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/decide"
	"github.com/a11y-dev/cwac-operator/internal/mcpapi"
	"github.com/a11y-dev/cwac-operator/internal/orgaccess"
	"github.com/a11y-dev/cwac-operator/internal/store"
)

// issueHistoryDescription is what MCP clients show for cwac_issue_history.
const issueHistoryDescription = "List issues from the issue history, each followed across every recorded scan: " +
	"its fingerprint, state (open or fixed), first and last scan that showed it, the scan that fixed it, how often it reopened " +
	"and how many scans showed it, with its organisation, page, rule, impact and element HTML. " +
	"Filter by organisation, rule, state, page URL or reopened issues only; page with limit and offset; total counts every match."

func init() { defineTool("cwac_issue_history", issueHistoryDescription, true, (*Server).issueHistory) }

func (s *Server) issueHistory(ctx context.Context, call *callInfo, in mcpapi.IssueHistoryInput) (mcpapi.IssueHistoryOutput, error) {
	st, namespaces, err := s.history()
	if err != nil {
		return mcpapi.IssueHistoryOutput{}, err
	}
	f := store.IssueFilter{Namespaces: namespaces, Organisation: in.Organisation, Rule: in.Rule, State: strings.ToLower(in.State),
		ReopenedOnly: in.ReopenedOnly, Page: in.Page, Limit: in.Limit, Offset: in.Offset, Within: call.reach.Within()}
	switch {
	case f.State != "" && f.State != store.StateOpen && f.State != store.StateFixed:
		return mcpapi.IssueHistoryOutput{}, fmt.Errorf("Invalid state: %q (open or fixed)", truncate(in.State, 64))
	case in.Limit < 0 || in.Limit > store.MaxLimit:
		return mcpapi.IssueHistoryOutput{}, fmt.Errorf("Invalid limit: %d (must be 1-%d)", in.Limit, store.MaxLimit)
	case in.Offset < 0 || in.Offset > store.MaxOffset:
		return mcpapi.IssueHistoryOutput{}, fmt.Errorf("Invalid offset: %d (must be 0-%d)", in.Offset, store.MaxOffset)
	}
	call.Target = "history:" + s.cfg.Namespace
	page, err := st.IssueHistory(ctx, f)
	if err != nil && f.Within != nil && errors.Is(err, store.ErrNotFound) {
		return mcpapi.IssueHistoryOutput{}, orgaccess.NotCovered("this organisation")
	}
	if err != nil {
		return mcpapi.IssueHistoryOutput{}, s.historyError(in.Organisation, err)
	}
	out := mcpapi.IssueHistoryOutput{Namespace: s.cfg.Namespace, Total: page.Total, Offset: in.Offset, Issues: []mcpapi.HistoryIssue{}}
	covering, err := s.coveringDecisions(ctx)
	if err != nil {
		return mcpapi.IssueHistoryOutput{}, err
	}
	budget := s.cfg.MaxResponseBytes - historyAnswerReserve
	for _, is := range page.Issues {
		issue := mcpapi.IssueOf(is)
		issue.Decision = covering(is)
		if budget -= jsonLen(issue) + 1; budget < 0 {
			out.Truncated = true
			break
		}
		out.Issues = append(out.Issues, issue)
	}
	out.Returned = len(out.Issues)
	if out.Truncated {
		out.Note = fmt.Sprintf("%d of the %d issues asked for fit under the answer's cap of %d bytes; continue with offset %d.",
			out.Returned, len(page.Issues), s.cfg.MaxResponseBytes, in.Offset+out.Returned)
	}
	return out, nil
}

// coveringDecisions says which applied decision covers an issue of the
// namespace now (nil: none), from one read of its decisions; without a
// decision source, none.
func (s *Server) coveringDecisions(ctx context.Context) (func(store.Issue) *mcpapi.HistoryDecision, error) {
	none := func(store.Issue) *mcpapi.HistoryDecision { return nil }
	if s.cfg.Decisions == nil {
		return none, nil
	}
	return decide.CoveringIn(ctx, s.cfg.Decisions, s.cfg.Namespace, time.Now(), s.cfg.Log)
}
