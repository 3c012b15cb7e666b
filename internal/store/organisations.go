package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/report"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// MaxNameBytes bounds a stored organisation, sector, rule or impact name:
// a longer one is stored cut to it, so a name of up to this length names
// what the history holds (the dashboard accepts names up to it).
const MaxNameBytes = 1000

// Organisation finds or creates an organisation of the scan's namespace,
// setting its sector when one is given, and returns its id. It refuses
// (ErrOutOfOrder) when the organisation has a stored scan that finished
// after this one.
func (w *ScanWriter) Organisation(ctx context.Context, name, sector string) (int64, error) {
	var id int64
	var stored string
	err := w.tx.QueryRowContext(ctx, w.s.q(`SELECT id, sector FROM organisations WHERE namespace = ? AND name = ?`), w.namespace, name).Scan(&id, &stored)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		id = w.alloc("organisations", 1)
		if _, err := w.exec(ctx, `INSERT INTO organisations (id, namespace, name, sector) VALUES (?, ?, ?, ?)`, id, w.namespace, name, sector); err != nil {
			return 0, fmt.Errorf("store: adding organisation %q: %w", name, err)
		}
		return id, nil
	case err != nil:
		return 0, fmt.Errorf("store: looking up organisation %q: %w", name, err)
	}
	if sector != "" && sector != stored {
		if _, err := w.exec(ctx, `UPDATE organisations SET sector = ? WHERE id = ?`, sector, id); err != nil {
			return 0, fmt.Errorf("store: updating organisation %q: %w", name, err)
		}
	}
	var latest sql.NullInt64
	if err := w.tx.QueryRowContext(ctx, w.s.q(`SELECT MAX(finished_at) FROM organisation_scans WHERE organisation_id = ?`), id).Scan(&latest); err != nil {
		return 0, fmt.Errorf("store: reading organisation %q's last scan: %w", name, err)
	}
	if latest.Valid && latest.Int64 > w.at {
		return 0, fmt.Errorf("organisation %q was scanned at %s: %w", name, time.Unix(latest.Int64, 0).UTC().Format(time.RFC3339), ErrOutOfOrder)
	}
	return id, nil
}

// AddedOrganisation reports whether this scan added the organisation (an
// id from Organisation) to the history: none of its pages were stored
// before the scan, so a page the scan has not added is not stored.
func (w *ScanWriter) AddedOrganisation(id int64) bool { return id > w.orgsBefore }

// OrganisationFigures are one organisation's figures in this scan (see
// TrendPoint for each).
type OrganisationFigures struct {
	OrgID    int64
	Schedule string
	BaseURLs int
	Pages    int
	Issues   int64
	Elements int64
	// ByImpact is in the leaderboard's class order: critical, serious,
	// moderate, minor, other.
	ByImpact            [5]int64
	ByAudit             map[string]int64
	WeightedPerPage     float64
	Score               *float64
	New                 int64
	Fixed               int64
	FixedPageNotScanned int64
	Reopened            int64
	Unstable            int64
	Open                int64
	// SetAside is CWAC's count of timing-dependent rows, in none of the
	// figures above (report.TimingDependentWhy).
	SetAside int64
	// Decided is CWAC's count of issues a decision covered (the scan's
	// decisions), in none of the figures above but Open.
	Decided int64
	// Completeness is the organisation's verdict in this scan (complete,
	// partial, blocked, unreachable; "": not known) and CompletenessReason
	// why, cut to MaxCompletenessReasonBytes.
	Completeness       string
	CompletenessReason string
}

// MaxCompletenessReasonBytes bounds the completeness reason recorded.
const MaxCompletenessReasonBytes = 1024

// AddOrganisationFigures records an organisation's figures in this scan.
// They are the last of an organisation a scan writes (after its issues,
// transitions and presences): its issue counts are counted again then.
func (w *ScanWriter) AddOrganisationFigures(ctx context.Context, f OrganisationFigures) error {
	byAudit, err := encodeCounts(f.ByAudit)
	if err != nil {
		return err
	}
	var score any
	if f.Score != nil {
		score = *f.Score
	}
	_, err = w.exec(ctx, `INSERT INTO organisation_scans (organisation_id, scan_id, schedule, finished_at, base_urls, pages,
		issues, elements, critical, serious, moderate, minor, other, by_audit, weighted_per_page, score,
		new_issues, fixed_issues, fixed_page_not_scanned, reopened_issues, unstable_issues, open_issues, set_aside_issues,
		decided_issues, completeness, completeness_reason)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		f.OrgID, w.scanID, f.Schedule, w.at, f.BaseURLs, f.Pages, f.Issues, f.Elements,
		f.ByImpact[0], f.ByImpact[1], f.ByImpact[2], f.ByImpact[3], f.ByImpact[4], byAudit, f.WeightedPerPage, score,
		f.New, f.Fixed, f.FixedPageNotScanned, f.Reopened, f.Unstable, f.Open, f.SetAside, f.Decided,
		textcap.Head(f.Completeness, 32), textcap.Head(f.CompletenessReason, MaxCompletenessReasonBytes))
	if err != nil {
		return fmt.Errorf("store: recording an organisation's figures: %w", err)
	}
	return w.countIssues(ctx, f.OrgID)
}

// countIssues counts again an organisation's issues by state and
// reopened: the totals the issue history's first page reads.
func (w *ScanWriter) countIssues(ctx context.Context, orgID int64) error {
	if _, err := w.exec(ctx, `DELETE FROM organisation_issue_counts WHERE organisation_id = ?`, orgID); err != nil {
		return fmt.Errorf("store: counting issues: %w", err)
	}
	if _, err := w.exec(ctx, countIssuesInto(true), orgID, orgID); err != nil {
		return fmt.Errorf("store: counting issues: %w", err)
	}
	return nil
}

// countIssuesInto fills organisation_issue_counts from issues: every
// organisation's counts, or with oneOrganisation those of the organisation
// its two arguments name (the same id, once for each count); an
// organisation with no issues gets no row. The counts by state read the
// index of the issues by organisation and state alone, and the reopened
// ones the partial index of reopened issues: counted in one pass over the
// issues' rows, as before, a million-row organisation's count read every
// row (2.3 s of a scan's write on SQLite, its page cache cold, against
// 0.28 s).
func countIssuesInto(oneOrganisation bool) string {
	where, and := "", ""
	if oneOrganisation {
		where, and = " WHERE organisation_id = ?", " AND organisation_id = ?"
	}
	return `INSERT INTO organisation_issue_counts (organisation_id, open_issues, fixed_issues, reopened_open, reopened_fixed)
	SELECT c.organisation_id, c.open_issues, c.fixed_issues, COALESCE(r.open_issues, 0), COALESCE(r.fixed_issues, 0)
	FROM (SELECT organisation_id,
			SUM(CASE WHEN state = 'open' THEN 1 ELSE 0 END) AS open_issues,
			SUM(CASE WHEN state = 'fixed' THEN 1 ELSE 0 END) AS fixed_issues
		FROM issues` + where + ` GROUP BY organisation_id) c
	LEFT JOIN (SELECT organisation_id,
			SUM(CASE WHEN state = 'open' THEN 1 ELSE 0 END) AS open_issues,
			SUM(CASE WHEN state = 'fixed' THEN 1 ELSE 0 END) AS fixed_issues
		FROM issues WHERE reopened > 0` + and + ` GROUP BY organisation_id) r ON r.organisation_id = c.organisation_id`
}

// OrganisationSummary is an organisation with its latest figures.
type OrganisationSummary struct {
	Namespace string
	Name      string
	Sector    string
	Scans     int64
	Latest    *TrendPoint
}

// Organisations lists every organisation of the namespaces, by name (then
// namespace), with its sector, how many scans it has figures for, and its
// latest figures.
func (s *Store) Organisations(ctx context.Context, namespaces []string) ([]OrganisationSummary, error) {
	cond, args, err := inNamespaces("o.namespace", namespaces)
	if err != nil {
		return nil, err
	}
	return s.organisations(ctx, cond, args)
}

// Organisation is one organisation of a namespace as Organisations lists
// it (ErrNotFound, wrapped, when the namespace has no such organisation).
func (s *Store) Organisation(ctx context.Context, namespace, name string) (OrganisationSummary, error) {
	orgs, err := s.organisations(ctx, "o.namespace = ? AND o.name = ?", []any{namespace, name})
	if err != nil {
		return OrganisationSummary{}, err
	}
	if len(orgs) == 0 {
		return OrganisationSummary{}, fmt.Errorf("organisation %q: %w", name, ErrNotFound)
	}
	return orgs[0], nil
}

// organisations reads the organisations matching cond (on o: organisations)
// with their latest figures. Each organisation's latest point is one seek
// of the organisation_scans_latest index, newest first; its count of
// scans a count of its primary key's entries.
func (s *Store) organisations(ctx context.Context, cond string, args []any) ([]OrganisationSummary, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT o.namespace, o.name, o.sector,
		(SELECT COUNT(*) FROM organisation_scans c WHERE c.organisation_id = o.id), `+trendColumns+`
		FROM organisations o
		JOIN organisation_scans os ON os.organisation_id = o.id AND os.scan_id = (SELECT l.scan_id FROM organisation_scans l
			WHERE l.organisation_id = o.id ORDER BY l.finished_at DESC, l.scan_id DESC LIMIT 1)
		JOIN scans s ON s.id = os.scan_id
		WHERE `+cond+`
		ORDER BY o.name, o.namespace`), args...)
	if err != nil {
		return nil, fmt.Errorf("store: listing organisations: %w", err)
	}
	defer func() { _ = rows.Close() }() // read only
	out := []OrganisationSummary{}
	for rows.Next() {
		var o OrganisationSummary
		var p TrendPoint
		var err error
		sc := scanFunc(func(dest ...any) error {
			return rows.Scan(append([]any{&o.Namespace, &o.Name, &o.Sector, &o.Scans}, dest...)...)
		})
		if p, err = scanTrendPoint(sc); err != nil {
			return nil, fmt.Errorf("store: listing organisations: %w", err)
		}
		o.Latest = &p
		out = append(out, o)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: listing organisations: %w", err)
	}
	return out, nil
}

// organisationIDs resolves an organisation's name in the namespaces (one
// id per namespace that has it), oldest first; ErrNotFound also when within
// does not keep it.
func (s *Store) organisationIDs(ctx context.Context, namespaces []string, name string, within *Within) ([]int64, error) {
	cond, args, err := inNamespaces("namespace", namespaces)
	if err != nil {
		return nil, err
	}
	withinCond, withinArgs, err := within.cond("")
	if err != nil {
		return nil, err
	}
	if withinCond != "" {
		cond, args = cond+" AND "+withinCond, append(args, withinArgs...)
	}
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT id FROM organisations WHERE name = ? AND `+cond+` ORDER BY id`), append([]any{name}, args...)...)
	if err != nil {
		return nil, fmt.Errorf("store: looking up organisation %q: %w", name, err)
	}
	ids, err := appendIDs(rows, nil)
	if err != nil {
		return nil, fmt.Errorf("store: looking up organisation %q: %w", name, err)
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("organisation %q: %w", name, ErrNotFound)
	}
	return ids, nil
}

// MaxQuotedNameBytes bounds an organisation's name quoted back in a refusal
// (it comes from the caller, and may be long).
const MaxQuotedNameBytes = 128

// NoOrganisation says that the history of namespace ns has no organisation
// org: the one wording of the MCP tools, the dashboard and the exports, each
// adding its own ending.
func NoOrganisation(ns, org string) string {
	return fmt.Sprintf("No organisation %q in the issue history of namespace %s", textcap.Head(org, MaxQuotedNameBytes), ns)
}

// impactNames are the leaderboard's impact classes (report.ImpactClasses),
// in the order of the organisation_scans columns.
var impactNames = report.ImpactClasses()

// The dashboard's reads (internal/dashboard): figures for many
// organisations at once, and an organisation's open issues by page and
// its latest scan's changes. Each is one query (or a few), never one per
// organisation, so a page of 1,000 organisations stays cheap.

// OrganisationKey names an organisation within its namespace.
type OrganisationKey struct {
	Namespace string
	Name      string
}

// LatestChanges is what an organisation's newest scan changed: the issues
// it found first, fixed (either reason) and found again after a fix.
// Each list is capped; the counts are the trend point's.
type LatestChanges struct {
	Scan     string
	New      []Issue
	Fixed    []Issue
	Reopened []Issue
}

// OrganisationLatestChanges returns the issues an organisation's newest
// scan made new, fixed and reopened, at most limit (1..MaxLimit) of each,
// in the order they were first seen. An organisation with no scan has
// empty lists.
func (s *Store) OrganisationLatestChanges(ctx context.Context, namespace, organisation string, limit int) (LatestChanges, error) {
	if limit < 1 || limit > MaxLimit {
		return LatestChanges{}, fmt.Errorf("limit %d is not between 1 and %d", limit, MaxLimit)
	}
	ids, err := s.organisationIDs(ctx, []string{namespace}, organisation, nil)
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
		}{&out.Reopened, `i.reopened > 0 AND i.state = 'open' AND sg.last_seen_scan_id = ? AND i.first_seen_scan_id <> ?
			AND NOT ` + presentIn("i", "?"), []any{latest, latest, scanIDs[1], scanIDs[1]}})
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
