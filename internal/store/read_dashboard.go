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
}

// MaxRecentPoints bounds the points RecentScores returns per organisation.
const MaxRecentPoints = 52

// RecentScores returns, for every organisation of the namespaces, its
// newest n scans' headline figures, oldest first (n 1..MaxRecentPoints).
func (s *Store) RecentScores(ctx context.Context, namespaces []string, n int) (map[OrganisationKey][]ScorePoint, error) {
	if n < 1 || n > MaxRecentPoints {
		return nil, fmt.Errorf("points %d is not between 1 and %d", n, MaxRecentPoints)
	}
	cond, args, err := inNamespaces("namespace", namespaces)
	if err != nil {
		return nil, err
	}
	// A window over each organisation's points, newest first, on
	// organisation_scans alone; only the n kept per organisation are then
	// joined to their names (joining every point first took a second for
	// 1,000 organisations of 156 scans on SQLite).
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT o.namespace, o.name, s.namespace, s.name, r.finished_at, r.issues, r.score FROM (
		SELECT os.organisation_id, os.scan_id, os.finished_at, os.issues, os.score,
			ROW_NUMBER() OVER (PARTITION BY os.organisation_id ORDER BY os.finished_at DESC, os.scan_id DESC) AS n
		FROM organisation_scans os
		WHERE os.organisation_id IN (SELECT id FROM organisations WHERE `+cond+`)) r
		JOIN organisations o ON o.id = r.organisation_id
		JOIN scans s ON s.id = r.scan_id
		WHERE r.n <= ? ORDER BY o.namespace, o.name, r.finished_at, r.n DESC`), append(args, n)...)
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
		if err := rows.Scan(&k.Namespace, &k.Name, &scanNS, &scanN, &at, &p.Issues, &score); err != nil {
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
	return out, nil
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

// ScanOrganisations returns the figures a scan recorded for each of its
// organisations, by organisation name; a scan not in the store (or
// pruned) is ErrScanNotStored.
func (s *Store) ScanOrganisations(ctx context.Context, namespace, name string) ([]OrganisationScan, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT o.name, o.sector, `+trendColumns+`
		FROM scans s JOIN organisation_scans os ON os.scan_id = s.id
		JOIN organisations o ON o.id = os.organisation_id
		WHERE s.namespace = ? AND s.name = ? ORDER BY o.name LIMIT ?`), namespace, name, MaxScanOrganisations)
	if err != nil {
		return nil, fmt.Errorf("store: reading scan %s/%s's figures: %w", namespace, name, err)
	}
	defer func() { _ = rows.Close() }() // read only
	out := []OrganisationScan{}
	for rows.Next() {
		var o OrganisationScan
		sc := scanFunc(func(dest ...any) error { return rows.Scan(append([]any{&o.Organisation, &o.Sector}, dest...)...) })
		if o.Figures, err = scanTrendPoint(sc); err != nil {
			return nil, fmt.Errorf("store: reading scan %s/%s's figures: %w", namespace, name, err)
		}
		out = append(out, o)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: reading scan %s/%s's figures: %w", namespace, name, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("scan %s/%s: %w", namespace, name, ErrScanNotStored)
	}
	return out, nil
}
