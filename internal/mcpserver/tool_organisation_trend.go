package mcpserver

import (
	"context"
	"errors"
	"fmt"

	"github.com/a11y-dev/cwac-operator/internal/mcpapi"
	"github.com/a11y-dev/cwac-operator/internal/store"
)

// organisationTrendDescription is what MCP clients show for cwac_organisation_trend.
const organisationTrendDescription = "Get an organisation's figures in every recorded scan, oldest first: pages scanned, " +
	"issues as CWAC counts them (one per viewport) and per element, by impact and audit, the leaderboard's score, " +
	"new, fixed (apart: on pages not scanned), reopened and open issues, and the CWAC image, axe-core and Chrome versions, " +
	"marking where they changed. Optionally one CwacScanSchedule's scans."

func init() {
	defineTool("cwac_organisation_trend", organisationTrendDescription, true, (*Server).organisationTrend)
}

func (s *Server) organisationTrend(ctx context.Context, call *callInfo, in mcpapi.OrganisationTrendInput) (mcpapi.OrganisationTrendOutput, error) {
	st, namespaces, err := s.history()
	if err != nil {
		return mcpapi.OrganisationTrendOutput{}, err
	}
	if in.Organisation == "" {
		return mcpapi.OrganisationTrendOutput{}, errors.New("organisation is required")
	}
	call.Target = "history:" + s.cfg.Namespace
	if err := s.checkOrganisationReach(ctx, st, call, in.Organisation); err != nil {
		return mcpapi.OrganisationTrendOutput{}, err
	}
	points, err := st.OrganisationTrend(ctx, namespaces, in.Organisation, in.Schedule)
	if err != nil {
		return mcpapi.OrganisationTrendOutput{}, s.historyError(in.Organisation, err)
	}
	return s.fitTrend(mcpapi.OrganisationTrendOutput{Namespace: s.cfg.Namespace, Organisation: in.Organisation, Schedule: in.Schedule}, points), nil
}

// fitTrend fills out's points, oldest first, keeping the newest that fit
// under the answer's cap.
func (s *Server) fitTrend(out mcpapi.OrganisationTrendOutput, points []store.TrendPoint) mcpapi.OrganisationTrendOutput {
	out.Points, out.Truncated, out.Note = newestThatFit(s, points, mcpapi.TrendPointOf)
	return out
}

// newestThatFit converts a trend's points, oldest first, keeping the newest
// whose JSON fits under the answer's cap (less historyAnswerReserve for the
// answer's other fields), and says how many older ones it left out.
func newestThatFit[P, A any](s *Server, points []P, convert func(P) A) (kept []A, truncated bool, note string) {
	budget := s.cfg.MaxResponseBytes - historyAnswerReserve
	first := len(points)
	all := make([]A, len(points))
	for i := len(points) - 1; i >= 0; i-- {
		all[i] = convert(points[i])
		if budget -= jsonLen(all[i]) + 1; budget < 0 {
			break
		}
		first = i
	}
	if first == 0 {
		return all, false, ""
	}
	return all[first:], true, fmt.Sprintf("The oldest %d of %d points were left out to keep the answer under its cap of %d bytes; "+
		"a schedule's points alone may fit.", first, len(points), s.cfg.MaxResponseBytes)
}
