package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// The dashboard's reads (internal/dashboard): figures for many
// organisations at once, and an organisation's open issues by page and
// its latest scan's changes. Each is one query (or a few), never one per
// organisation, so a page of 1,000 organisations stays cheap.

// OrganisationKey names an organisation within its namespace.
type OrganisationKey struct {
	Namespace string
	Name      string
}

// ScorePoint is one organisation's headline figures in one scan: what a
// sparkline and "change since the previous scan" need.
type ScorePoint struct {
	Scan       string    `json:"scan"`
	FinishedAt time.Time `json:"finished_at"`
	Issues     int64     `json:"issues"`
	Score      *float64  `json:"score"`
	// Completeness is the scan's verdict on the organisation, as
	// TrendPoint's: a reader that shows scores needs it beside them.
	Completeness string `json:"completeness,omitempty"`
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

// Generation identifies the state of the namespaces' figures: it changes
// whenever a scan of them is recorded (a new scan row, with a new id) or
// pruned (its figures deleted, pruned_at set, in one transaction), the
// only writes that change organisations' figures, names or sectors. The
// dashboard keeps its ranking while the generation stays the same.
type Generation struct {
	Scans, Pruned, LastID int64
}

// Generation reads the namespaces' generation (one pass over their scans' rows).
func (s *Store) Generation(ctx context.Context, namespaces []string) (Generation, error) {
	cond, args, err := inNamespaces("namespace", namespaces)
	if err != nil {
		return Generation{}, err
	}
	var g Generation
	err = s.db.QueryRowContext(ctx, s.q(`SELECT COUNT(*), COUNT(pruned_at), COALESCE(MAX(id), 0) FROM scans WHERE `+cond), args...).
		Scan(&g.Scans, &g.Pruned, &g.LastID)
	if err != nil {
		return Generation{}, fmt.Errorf("store: reading the generation: %w", err)
	}
	return g, nil
}

// PageIssues is one page of an organisation with its open issues.
type PageIssues struct {
	Page string `json:"page"`
	Open int64  `json:"open"`
}

// MaxOrganisationPages bounds the pages OrganisationPages returns.
const MaxOrganisationPages = 10000

// OrganisationPages returns the pages the history holds for an
// organisation (every page a scan of it showed an issue on or visited)
// with their open issues, most first (then by URL), at most limit
// (1..MaxOrganisationPages).
func (s *Store) OrganisationPages(ctx context.Context, namespace, organisation string, limit int) ([]PageIssues, error) {
	if limit < 1 || limit > MaxOrganisationPages {
		return nil, fmt.Errorf("limit %d is not between 1 and %d", limit, MaxOrganisationPages)
	}
	ids, err := s.organisationIDs(ctx, []string{namespace}, organisation)
	if err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT p.url, COUNT(i.id) FROM pages p
		LEFT JOIN issues i ON i.page_id = p.id AND i.state = 'open'
		WHERE p.organisation_id = ?
		GROUP BY p.url ORDER BY COUNT(i.id) DESC, p.url LIMIT ?`), ids[0], limit)
	if err != nil {
		return nil, fmt.Errorf("store: reading organisation %q's pages: %w", organisation, err)
	}
	defer func() { _ = rows.Close() }() // read only
	out := []PageIssues{}
	for rows.Next() {
		var p PageIssues
		if err := rows.Scan(&p.Page, &p.Open); err != nil {
			return nil, fmt.Errorf("store: reading organisation %q's pages: %w", organisation, err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: reading organisation %q's pages: %w", organisation, err)
	}
	return out, nil
}

// LatestChanges is what an organisation's newest scan changed: the issues
// it found first, fixed (either reason) and found again after a fix.
// Each list is capped; the counts are the trend point's.
type LatestChanges struct {
	Scan     string  `json:"scan"`
	New      []Issue `json:"new"`
	Fixed    []Issue `json:"fixed"`
	Reopened []Issue `json:"reopened"`
}

// OrganisationLatestChanges returns the issues an organisation's newest
// scan made new, fixed and reopened, at most limit (1..MaxLimit) of each,
// in the order they were first seen. An organisation with no scan has
// empty lists.
func (s *Store) OrganisationLatestChanges(ctx context.Context, namespace, organisation string, limit int) (LatestChanges, error) {
	if limit < 1 || limit > MaxLimit {
		return LatestChanges{}, fmt.Errorf("limit %d is not between 1 and %d", limit, MaxLimit)
	}
	ids, err := s.organisationIDs(ctx, []string{namespace}, organisation)
	if err != nil {
		return LatestChanges{}, err
	}
	orgID := ids[0]
	// The newest two scans of the organisation: a reopened issue is one
	// the newest showed and the one before did not, that was seen before.
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT os.scan_id, s.namespace, s.name FROM organisation_scans os JOIN scans s ON s.id = os.scan_id
		WHERE os.organisation_id = ? ORDER BY os.finished_at DESC, os.scan_id DESC LIMIT 2`), orgID)
	if err != nil {
		return LatestChanges{}, fmt.Errorf("store: reading organisation %q's scans: %w", organisation, err)
	}
	var scanIDs []int64
	out := LatestChanges{New: []Issue{}, Fixed: []Issue{}, Reopened: []Issue{}}
	for rows.Next() {
		var id int64
		var ns, name string
		if err := rows.Scan(&id, &ns, &name); err != nil {
			_ = rows.Close()
			return LatestChanges{}, fmt.Errorf("store: reading organisation %q's scans: %w", organisation, err)
		}
		if len(scanIDs) == 0 {
			out.Scan = scanName(ns, name)
		}
		scanIDs = append(scanIDs, id)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return LatestChanges{}, fmt.Errorf("store: reading organisation %q's scans: %w", organisation, err)
	}
	if len(scanIDs) == 0 {
		return out, nil
	}
	latest := scanIDs[0]
	lists := []struct {
		dest *[]Issue
		cond string
		args []any
	}{
		{&out.New, `i.first_seen_scan_id = ?`, []any{latest}},
		{&out.Fixed, `i.fixed_in_scan_id = ?`, []any{latest}},
	}
	if len(scanIDs) == 2 {
		lists = append(lists, struct {
			dest *[]Issue
			cond string
			args []any
		}{&out.Reopened, `i.reopened > 0 AND i.state = 'open' AND i.last_seen_scan_id = ? AND i.first_seen_scan_id <> ?
			AND NOT EXISTS (SELECT 1 FROM presences pr WHERE pr.scan_id = ? AND pr.issue_id = i.id)`, []any{latest, latest, scanIDs[1]}})
	}
	for _, l := range lists {
		args := append([]any{orgID}, l.args...)
		rows, err := s.db.QueryContext(ctx, s.q(`SELECT `+issueColumns+issueJoins+` WHERE i.organisation_id = ? AND `+l.cond+
			` ORDER BY i.id LIMIT ?`), append(args, limit)...)
		if err != nil {
			return LatestChanges{}, fmt.Errorf("store: reading organisation %q's changes: %w", organisation, err)
		}
		for rows.Next() {
			r, err := scanIssue(rows)
			if err != nil {
				_ = rows.Close()
				return LatestChanges{}, fmt.Errorf("store: reading organisation %q's changes: %w", organisation, err)
			}
			*l.dest = append(*l.dest, r.issue)
		}
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			return LatestChanges{}, fmt.Errorf("store: reading organisation %q's changes: %w", organisation, err)
		}
	}
	return out, nil
}

// OrganisationScan is one organisation's figures in one scan.
type OrganisationScan struct {
	Organisation string     `json:"organisation"`
	Sector       string     `json:"sector,omitempty"`
	Figures      TrendPoint `json:"figures"`
}

// ErrScanNotStored is returned (wrapped) by ScanOrganisations for a scan
// the store does not hold figures for.
var ErrScanNotStored = errors.New("no figures in the issue history")

// MaxScanOrganisations bounds the organisations ScanOrganisations returns.
const MaxScanOrganisations = 5000

// ScanOrganisations returns the figures a scan recorded for its
// organisations, by organisation name: limit (1..MaxScanOrganisations)
// from offset, and how many it has in all. A scan not in the store (or
// pruned) is ErrScanNotStored.
func (s *Store) ScanOrganisations(ctx context.Context, namespace, name string, offset, limit int) ([]OrganisationScan, int, error) {
	if limit < 1 || limit > MaxScanOrganisations {
		return nil, 0, fmt.Errorf("limit %d is not between 1 and %d", limit, MaxScanOrganisations)
	}
	if offset < 0 {
		return nil, 0, fmt.Errorf("offset %d is negative", offset)
	}
	var scanID int64
	var total int
	err := s.db.QueryRowContext(ctx, s.q(`SELECT s.id, (SELECT COUNT(*) FROM organisation_scans c WHERE c.scan_id = s.id)
		FROM scans s WHERE s.namespace = ? AND s.name = ? ORDER BY s.id DESC LIMIT 1`), namespace, name).Scan(&scanID, &total)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && total == 0) {
		return nil, 0, fmt.Errorf("scan %s/%s: %w", namespace, name, ErrScanNotStored)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("store: reading scan %s/%s's figures: %w", namespace, name, err)
	}
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT o.name, o.sector, `+trendColumns+`
		FROM organisation_scans os JOIN scans s ON s.id = os.scan_id
		JOIN organisations o ON o.id = os.organisation_id
		WHERE os.scan_id = ? ORDER BY o.name LIMIT ? OFFSET ?`), scanID, limit, offset)
	if err != nil {
		return nil, 0, fmt.Errorf("store: reading scan %s/%s's figures: %w", namespace, name, err)
	}
	defer func() { _ = rows.Close() }() // read only
	out := []OrganisationScan{}
	for rows.Next() {
		var o OrganisationScan
		sc := scanFunc(func(dest ...any) error { return rows.Scan(append([]any{&o.Organisation, &o.Sector}, dest...)...) })
		if o.Figures, err = scanTrendPoint(sc); err != nil {
			return nil, 0, fmt.Errorf("store: reading scan %s/%s's figures: %w", namespace, name, err)
		}
		out = append(out, o)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("store: reading scan %s/%s's figures: %w", namespace, name, err)
	}
	return out, total, nil
}
