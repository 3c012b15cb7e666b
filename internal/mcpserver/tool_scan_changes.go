package mcpserver

import (
	"context"
	"errors"
	"fmt"

	"github.com/a11y-dev/cwac-operator/internal/mcpapi"
	"github.com/a11y-dev/cwac-operator/internal/store"
)

// scanChangesDescription is what MCP clients show for cwac_scan_changes.
const scanChangesDescription = "List what one recorded scan changed in the issue history: each issue it opened (first saw), " +
	"fixed, found on no page it visited (page not scanned) or reopened, with the issue's identity (fingerprint), organisation, " +
	"page, rule, impact, element and its state now, and the applied decision covering it. One ticket per issue can be kept " +
	"from these. Page with after and limit."

func init() { defineTool("cwac_scan_changes", scanChangesDescription, true, (*Server).scanChanges) }

func (s *Server) scanChanges(ctx context.Context, call *callInfo, in mcpapi.ScanChangesInput) (mcpapi.ScanChangesOutput, error) {
	st, namespaces, err := s.history()
	if err != nil {
		return mcpapi.ScanChangesOutput{}, err
	}
	limit := in.Limit
	switch {
	case in.ScanID == "":
		return mcpapi.ScanChangesOutput{}, errors.New("scan_id is required")
	case !scanIDRE.MatchString(in.ScanID):
		return mcpapi.ScanChangesOutput{}, noScanError{truncate(in.ScanID, 256)}
	case limit < 0 || limit > store.MaxLimit:
		return mcpapi.ScanChangesOutput{}, fmt.Errorf("Invalid limit: %d (must be 1-%d)", in.Limit, store.MaxLimit)
	case in.After < 0:
		return mcpapi.ScanChangesOutput{}, fmt.Errorf("Invalid after: %d (the previous page's next, or 0)", in.After)
	case limit == 0:
		limit = store.DefaultLimit
	}
	call.Target = s.cfg.Namespace + "/" + in.ScanID
	page, err := st.ScanChanges(ctx, store.ChangesFilter{Namespaces: namespaces, Name: in.ScanID, After: in.After, Limit: limit,
		Within: call.reach.Within()})
	if errors.Is(err, store.ErrNotFound) {
		return mcpapi.ScanChangesOutput{}, fmt.Errorf("Scan %s is not in the issue history of namespace %s (not recorded yet, or not finished)",
			in.ScanID, s.cfg.Namespace)
	}
	if err != nil {
		return mcpapi.ScanChangesOutput{}, fmt.Errorf("reading the issue history: %w", err)
	}
	covering, err := s.coveringDecisions(ctx)
	if err != nil {
		return mcpapi.ScanChangesOutput{}, err
	}
	out := mcpapi.ScanChangesOutput{Namespace: s.cfg.Namespace, Scan: in.ScanID, Changes: []mcpapi.ScanChange{}}
	budget := s.cfg.MaxResponseBytes - historyAnswerReserve
	var last int64
	for _, c := range page.Changes {
		change := mcpapi.ScanChange{Change: c.Change, Issue: mcpapi.IssueOf(c.Issue)}
		change.Issue.Decision = covering(c.Issue)
		if budget -= jsonLen(change) + 1; budget < 0 {
			out.Truncated = true
			break
		}
		out.Changes = append(out.Changes, change)
		last = c.IssueID
	}
	out.Returned = len(out.Changes)
	if out.Truncated && out.Returned == 0 {
		return mcpapi.ScanChangesOutput{}, fmt.Errorf("one change does not fit under the answer's cap of %d bytes", s.cfg.MaxResponseBytes)
	}
	if out.Truncated || len(page.Changes) == limit {
		out.Next = last
	}
	if out.Truncated {
		out.Note = fmt.Sprintf("%d of the %d changes asked for fit under the answer's cap of %d bytes; continue with after %d.",
			out.Returned, len(page.Changes), s.cfg.MaxResponseBytes, last)
	}
	return out, nil
}
