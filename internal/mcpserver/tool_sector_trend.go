package mcpserver

import (
	"context"
	"errors"
	"fmt"

	"github.com/a11y-dev/cwac-operator/internal/mcpapi"
	"github.com/a11y-dev/cwac-operator/internal/orgaccess"
	"github.com/a11y-dev/cwac-operator/internal/report"
	"github.com/a11y-dev/cwac-operator/internal/store"
)

// sectorTrendDescription is what MCP clients show for cwac_sector_trend.
const sectorTrendDescription = "Get a sector's figures in every recorded scan, oldest first: its organisations' pages scanned, " +
	"issues by impact, new, fixed, reopened and open issues summed, and the leaderboard's score over the sums. " +
	"Organisations blocked or unreachable in a scan are counted apart and left out of the sums. Optionally one CwacScanSchedule's scans."

func init() { defineTool("cwac_sector_trend", sectorTrendDescription, true, (*Server).sectorTrend) }

func (s *Server) sectorTrend(ctx context.Context, call *callInfo, in mcpapi.SectorTrendInput) (mcpapi.SectorTrendOutput, error) {
	st, namespaces, err := s.history()
	if err != nil {
		return mcpapi.SectorTrendOutput{}, err
	}
	if in.Sector == "" {
		return mcpapi.SectorTrendOutput{}, errors.New("sector is required")
	}
	call.Target = "history:" + s.cfg.Namespace
	if !call.reach.CoversSector(in.Sector) {
		// A sector's sums count every organisation in it: only a grant
		// of the whole sector reads them.
		return mcpapi.SectorTrendOutput{}, orgaccess.NotCovered("the whole of this sector")
	}
	points, err := st.SectorTrend(ctx, namespaces, in.Sector, in.Schedule)
	if errors.Is(err, store.ErrNotFound) {
		return mcpapi.SectorTrendOutput{}, fmt.Errorf("No sector %q in the issue history of namespace %s", truncate(in.Sector, 256), s.cfg.Namespace)
	}
	if err != nil {
		return mcpapi.SectorTrendOutput{}, fmt.Errorf("reading the issue history: %w", err)
	}
	out := mcpapi.SectorTrendOutput{Namespace: s.cfg.Namespace, Sector: in.Sector, Schedule: in.Schedule}
	out.Points, out.Truncated, out.Note = newestThatFit(s, points, apiSectorPoint)
	return out, nil
}

// apiSectorPoint is a sector's point as the tool answers it, scored by the
// leaderboard's one formula over the summed counts.
func apiSectorPoint(p store.SectorPoint) mcpapi.SectorTrendPoint {
	var counts report.ImpactCounts
	for impact, n := range p.ByImpact {
		counts[report.ImpactClass(impact)] += n
	}
	p.WeightedPerPage, p.Score = report.Score(counts, p.Pages)
	return mcpapi.SectorTrendPoint{TrendPoint: mcpapi.TrendPointOf(p.TrendPoint), Organisations: p.Organisations, NotScored: p.NotScored}
}
