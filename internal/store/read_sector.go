package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/a11y-dev/cwac-operator/internal/results"
)

// SectorPoint is a sector's figures in one scan: the sums of its
// organisations' figures. Organisations counts those the scan recorded;
// NotScored those among them whose scan was blocked or unreachable, whose
// figures describe a refusal or an error page rather than a site and are
// left out of the sums (as the leaderboard leaves out their scores).
// Score is left to the caller: it is the leaderboard's formula over
// ByImpact and Pages (report.Score), the one place scores are computed.
type SectorPoint struct {
	TrendPoint
	Organisations int `json:"organisations"`
	NotScored     int `json:"organisations_not_scored"`
}

// SectorTrend returns a sector's figures per scan in the namespaces, oldest
// first; with a schedule, only that schedule's scans. Organisations belong
// to the sector they have now (the store keeps one sector per
// organisation). ErrNotFound (wrapped) when no organisation of the
// namespaces has the sector.
func (s *Store) SectorTrend(ctx context.Context, namespaces []string, sector, schedule string) ([]SectorPoint, error) {
	cond, args, err := inNamespaces("o.namespace", namespaces)
	if err != nil {
		return nil, err
	}
	var known int
	if err := s.db.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM organisations o WHERE o.sector = ? AND `+cond),
		append([]any{sector}, args...)...).Scan(&known); err != nil {
		return nil, fmt.Errorf("store: looking up sector %q: %w", sector, err)
	}
	if known == 0 {
		return nil, fmt.Errorf("sector %q: %w", sector, ErrNotFound)
	}
	// The verdicts whose figures are not scored, from their one home.
	var notScored []any
	for _, v := range results.Verdicts {
		if !v.ScoreShown() {
			notScored = append(notScored, string(v))
		}
	}
	isNotScored := "os.completeness IN (" + strings.TrimSuffix(strings.Repeat("?, ", len(notScored)), ", ") + ")"
	// CAST: PostgreSQL sums bigints as numeric.
	sum := func(col string) string {
		return "CAST(SUM(CASE WHEN " + isNotScored + " THEN 0 ELSE " + col + " END) AS BIGINT)"
	}
	cols := []string{"os.base_urls", "os.pages", "os.issues", "os.elements", "os.critical", "os.serious", "os.moderate", "os.minor", "os.other",
		"os.new_issues", "os.fixed_issues", "os.fixed_page_not_scanned", "os.reopened_issues", "os.unstable_issues", "os.open_issues"}
	var sums []string
	var sumArgs []any
	for _, c := range cols {
		sums = append(sums, sum(c))
		sumArgs = append(sumArgs, notScored...)
	}
	query := `SELECT s.namespace, s.name, os.schedule, os.finished_at, COUNT(*), CAST(SUM(CASE WHEN ` + isNotScored + ` THEN 1 ELSE 0 END) AS BIGINT), ` +
		strings.Join(sums, ", ") + `, s.cwac_image_digest, s.axe_core_version, s.chrome_version
		FROM organisation_scans os JOIN organisations o ON o.id = os.organisation_id JOIN scans s ON s.id = os.scan_id
		WHERE o.sector = ? AND ` + cond
	qargs := append(append(append(append([]any{}, notScored...), sumArgs...), sector), args...)
	if schedule != "" {
		query, qargs = query+` AND os.schedule = ?`, append(qargs, schedule)
	}
	query += ` GROUP BY s.id, s.namespace, s.name, os.schedule, os.finished_at, s.cwac_image_digest, s.axe_core_version, s.chrome_version
		ORDER BY os.finished_at, s.id`
	rows, err := s.db.QueryContext(ctx, s.q(query), qargs...)
	if err != nil {
		return nil, fmt.Errorf("store: reading sector %q's trend: %w", sector, err)
	}
	defer func() { _ = rows.Close() }() // read only
	points := []SectorPoint{}
	for rows.Next() {
		var p SectorPoint
		var ns, name string
		var at int64
		var imp [5]int64
		if err := rows.Scan(&ns, &name, &p.Schedule, &at, &p.Organisations, &p.NotScored,
			&p.BaseURLs, &p.Pages, &p.Issues, &p.Elements, &imp[0], &imp[1], &imp[2], &imp[3], &imp[4],
			&p.New, &p.Fixed, &p.FixedPageNotScanned, &p.Reopened, &p.Unstable, &p.Open,
			&p.Engine.CWACImageDigest, &p.Engine.AxeCore, &p.Engine.Chrome); err != nil {
			return nil, fmt.Errorf("store: reading sector %q's trend: %w", sector, err)
		}
		p.Scan, p.FinishedAt = scanName(ns, name), unix(at)
		p.ByImpact = map[string]int64{}
		for i, n := range imp {
			if n != 0 {
				p.ByImpact[impactNames[i]] = n
			}
		}
		if n := len(points); n > 0 {
			p.EngineChanged = engineChanged(points[n-1].Engine, p.Engine)
		}
		points = append(points, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: reading sector %q's trend: %w", sector, err)
	}
	return points, nil
}
