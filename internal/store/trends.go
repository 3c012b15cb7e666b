package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/results"
)

// TrendPoint is one organisation's figures in one scan.
type TrendPoint struct {
	Scan       string
	Schedule   string
	FinishedAt time.Time
	BaseURLs   int
	Pages      int
	// Issues is CWAC's count (num_issues, one per viewport), as
	// summary.json's total_issues counts less SetAside; Elements counts
	// an element found at several viewports once.
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
	// SetAside is CWAC's count of timing-dependent rows, in none of the
	// figures above (report.TimingDependentWhy); 0 for scans recorded
	// before migration 0008, whose figures counted them.
	SetAside int64
	// Decided is CWAC's count of issues a decision covered, in none of
	// the figures above but Open; 0 for scans made without decisions (or
	// recorded before migration 0010).
	Decided int64
	Engine  EngineVersions
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

// trendColumns are what a TrendPoint is read from (os: organisation_scans, s: scans).
const trendColumns = `s.namespace, s.name, os.schedule, os.finished_at, os.base_urls, os.pages, os.issues, os.elements,
	os.critical, os.serious, os.moderate, os.minor, os.other, os.by_audit, os.weighted_per_page, os.score,
	os.new_issues, os.fixed_issues, os.fixed_page_not_scanned, os.reopened_issues, os.unstable_issues, os.open_issues, os.set_aside_issues,
	os.decided_issues, s.cwac_image_digest, s.axe_core_version, s.chrome_version, os.completeness, os.completeness_reason`

func scanTrendPoint(sc interface{ Scan(...any) error }) (TrendPoint, error) {
	var p TrendPoint
	var ns, name, byAudit string
	var at int64
	var imp [5]int64
	var score sql.NullFloat64
	err := sc.Scan(&ns, &name, &p.Schedule, &at, &p.BaseURLs, &p.Pages, &p.Issues, &p.Elements,
		&imp[0], &imp[1], &imp[2], &imp[3], &imp[4], &byAudit, &p.WeightedPerPage, &score,
		&p.New, &p.Fixed, &p.FixedPageNotScanned, &p.Reopened, &p.Unstable, &p.Open, &p.SetAside, &p.Decided,
		&p.Engine.CWACImageDigest, &p.Engine.AxeCore, &p.Engine.Chrome, &p.Completeness, &p.CompletenessReason)
	if err != nil {
		return p, err
	}
	p.Scan, p.FinishedAt = scanName(ns, name), unix(at)
	p.ByImpact = map[string]int64{}
	for i, n := range imp {
		if n != 0 {
			p.ByImpact[impactNames[i]] = n
		}
	}
	if p.ByAudit, err = decodeCounts(byAudit); err != nil {
		return p, err
	}
	if score.Valid {
		v := score.Float64
		p.Score = &v
	}
	return p, nil
}

// OrganisationTrend returns an organisation's figures per scan in the
// namespaces, oldest first; with a schedule, only that schedule's scans.
// (An organisation scanned from several of the namespaces has a history in
// each; their points are interleaved by time, each naming its scan.)
func (s *Store) OrganisationTrend(ctx context.Context, namespaces []string, organisation, schedule string) ([]TrendPoint, error) {
	ids, err := s.organisationIDs(ctx, namespaces, organisation, nil)
	if err != nil {
		return nil, err
	}
	cond, args := idList("os.organisation_id", ids)
	query := `SELECT ` + trendColumns + ` FROM organisation_scans os JOIN scans s ON s.id = os.scan_id WHERE ` + cond
	if schedule != "" {
		query, args = query+` AND os.schedule = ?`, append(args, schedule)
	}
	rows, err := s.db.QueryContext(ctx, s.q(query+` ORDER BY os.finished_at, os.scan_id`), args...)
	if err != nil {
		return nil, fmt.Errorf("store: reading organisation %q's trend: %w", organisation, err)
	}
	defer func() { _ = rows.Close() }() // read only
	points := []TrendPoint{}
	for rows.Next() {
		p, err := scanTrendPoint(rows)
		if err != nil {
			return nil, fmt.Errorf("store: reading organisation %q's trend: %w", organisation, err)
		}
		if n := len(points); n > 0 && len(ids) == 1 {
			p.EngineChanged = engineChanged(points[n-1].Engine, p.Engine)
		}
		points = append(points, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: reading organisation %q's trend: %w", organisation, err)
	}
	return points, nil
}

// engineChanged reports whether a version both points know differs. The
// CWAC image is a digest when the scan's pod was still there to report
// it, else the image the scan named (a tag): a digest and a tag are not
// compared, since the same image reads differently in each.
func engineChanged(a, b EngineVersions) bool {
	differ := func(x, y string) bool { return x != "" && y != "" && x != y }
	imageDiffers := differ(a.CWACImageDigest, b.CWACImageDigest) && isDigest(a.CWACImageDigest) == isDigest(b.CWACImageDigest)
	return imageDiffers || differ(a.AxeCore, b.AxeCore) || differ(a.Chrome, b.Chrome)
}

// isDigest reports whether an image reference names its content
// ("…@sha256:…", or the bare "sha256:…" a runtime reports for an image
// imported without a registry).
func isDigest(image string) bool { return strings.Contains(image, "sha256:") }

// ScorePoint is one organisation's headline figures in one scan: what a
// sparkline and "change since the previous scan" need.
type ScorePoint struct {
	Scan       string
	FinishedAt time.Time
	Issues     int64
	Score      *float64
	// Completeness is the scan's verdict on the organisation, as
	// TrendPoint's: a reader that shows scores needs it beside them.
	Completeness string
}

// MaxRecentPoints bounds the points RecentScores returns per organisation.
const MaxRecentPoints = 52

// RecentScores returns, for every organisation of the namespaces, its
// newest n scans' headline figures, oldest first (n 1..MaxRecentPoints).
func (s *Store) RecentScores(ctx context.Context, namespaces []string, n int) (map[OrganisationKey][]ScorePoint, error) {
	return s.recentScores(ctx, namespaces, n)
}

func (s *Store) recentScores(ctx context.Context, namespaces []string, n int) (map[OrganisationKey][]ScorePoint, error) {
	if n < 1 || n > MaxRecentPoints {
		return nil, fmt.Errorf("points %d is not between 1 and %d", n, MaxRecentPoints)
	}
	cond, args, err := inNamespaces("o.namespace", namespaces)
	if err != nil {
		return nil, err
	}
	// Each organisation's newest n points, in two steps: first, per
	// organisation, the time of its nth newest point (one seek of the
	// organisation_scans_latest index, walked n entries backwards), kept
	// apart (MATERIALIZED) so it is found once per organisation; then the
	// points since that time, a range of the same index. Numbering every
	// point with a window took a second for 1,000 organisations of 156
	// scans on SQLite; a subquery per point, nearly as long.
	rows, err := s.db.QueryContext(ctx, s.q(`WITH c AS MATERIALIZED (
			SELECT o.id, o.namespace, o.name, (SELECT l.finished_at FROM organisation_scans l WHERE l.organisation_id = o.id
				ORDER BY l.finished_at DESC, l.scan_id DESC LIMIT 1 OFFSET ?) AS since
			FROM organisations o WHERE `+cond+`)
		SELECT c.namespace, c.name, s.namespace, s.name, os.finished_at, os.issues, os.score, os.completeness
		FROM c JOIN organisation_scans os ON os.organisation_id = c.id AND os.finished_at >= COALESCE(c.since, 0)
		JOIN scans s ON s.id = os.scan_id
		ORDER BY os.organisation_id, os.finished_at, os.scan_id`), append([]any{n - 1}, args...)...)
	if err != nil {
		return nil, fmt.Errorf("store: reading recent scores: %w", err)
	}
	defer func() { _ = rows.Close() }() // read only
	out := map[OrganisationKey][]ScorePoint{}
	for rows.Next() {
		var k OrganisationKey
		var p ScorePoint
		var scanNS, scanN string
		var at int64
		var score sql.NullFloat64
		if err := rows.Scan(&k.Namespace, &k.Name, &scanNS, &scanN, &at, &p.Issues, &score, &p.Completeness); err != nil {
			return nil, fmt.Errorf("store: reading recent scores: %w", err)
		}
		p.Scan, p.FinishedAt = scanName(scanNS, scanN), unix(at)
		if score.Valid {
			v := score.Float64
			p.Score = &v
		}
		out[k] = append(out[k], p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: reading recent scores: %w", err)
	}
	// Points at the same time as the nth newest came too: keep n.
	for k, pts := range out {
		if len(pts) > n {
			out[k] = pts[len(pts)-n:]
		}
	}
	return out, nil
}

// SectorPoint is a sector's figures in one scan: the sums of its
// organisations' figures. Organisations counts those the scan recorded;
// NotScored those among them whose scan was blocked or unreachable, whose
// figures describe a refusal or an error page rather than a site and are
// left out of the sums (as the leaderboard leaves out their scores).
// Score is left to the caller: it is the leaderboard's formula over
// ByImpact and Pages (report.Score), the one place scores are computed.
type SectorPoint struct {
	TrendPoint
	Organisations int
	NotScored     int
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
		"os.new_issues", "os.fixed_issues", "os.fixed_page_not_scanned", "os.reopened_issues", "os.unstable_issues", "os.open_issues", "os.set_aside_issues",
		"os.decided_issues"}
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
			&p.New, &p.Fixed, &p.FixedPageNotScanned, &p.Reopened, &p.Unstable, &p.Open, &p.SetAside, &p.Decided,
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
