package store

import (
	"context"
	"fmt"
	"sort"
	"time"
)

// PruneResult says what Prune removed.
type PruneResult struct {
	// Scans lost their per-scan data (presences, figures, template
	// counts); their rows stay, so names resolve and they are never
	// ingested again.
	Scans int
	// Presences is how many rows of presences were deleted: a scan's
	// presence of the issues it first saw is no row (presentIn).
	Presences int64
	// Issues fixed before the oldest scan kept were deleted.
	Issues int64
}

// pruneBatch is how many rows one pruning transaction deletes: small, so
// that an ingest waiting for the write lock waits briefly.
const pruneBatch = 5000

// Prune applies a retention policy: scans past it lose their per-scan
// data, and issues fixed before the oldest scan kept are deleted. It works
// in small transactions of its own, so it never holds the write lock for
// long and can be stopped (ctx) and resumed at any point.
func (s *Store) Prune(ctx context.Context, r Retention) (PruneResult, error) {
	var res PruneResult
	if r.MaxAge < 0 || r.MaxScans < 0 {
		return res, fmt.Errorf("retention: max age %s and max scans %d must not be negative", r.MaxAge, r.MaxScans)
	}
	expired, err := s.expiredScans(ctx, r)
	if err != nil {
		return res, err
	}
	for _, id := range expired {
		n, err := s.pruneScan(ctx, id)
		res.Presences += n
		if err != nil {
			return res, err
		}
		res.Scans++
	}
	if res.Issues, err = s.pruneFixedIssues(ctx); err != nil {
		return res, err
	}
	return res, s.pruneUnrecorded(ctx, r)
}

// pruneUnrecorded forgets why scans were not recorded once the note is
// older than the policy's age.
func (s *Store) pruneUnrecorded(ctx context.Context, r Retention) error {
	if r.MaxAge == 0 {
		return nil
	}
	horizon := s.now().Add(-r.MaxAge).Unix()
	if _, err := s.db.ExecContext(ctx, s.q(`DELETE FROM unrecorded_scans WHERE updated_at < ?`), horizon); err != nil {
		return fmt.Errorf("store: pruning the notes of unrecorded scans: %w", err)
	}
	return nil
}

// expiredScans lists the scans not yet pruned that the policy expires.
func (s *Store) expiredScans(ctx context.Context, r Retention) ([]int64, error) {
	if r.MaxAge == 0 && r.MaxScans == 0 {
		return nil, nil
	}
	rows, err := s.db.QueryContext(ctx, `SELECT id, namespace, schedule, finished_at FROM scans WHERE pruned_at IS NULL`)
	if err != nil {
		return nil, fmt.Errorf("store: listing scans to prune: %w", err)
	}
	defer func() { _ = rows.Close() }() // read only
	type scan struct {
		id, at       int64
		ns, schedule string
	}
	var all []scan
	for rows.Next() {
		var sc scan
		if err := rows.Scan(&sc.id, &sc.ns, &sc.schedule, &sc.at); err != nil {
			return nil, fmt.Errorf("store: listing scans to prune: %w", err)
		}
		all = append(all, sc)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: listing scans to prune: %w", err)
	}
	sort.Slice(all, func(i, j int) bool { // newest first
		if all[i].at != all[j].at {
			return all[i].at > all[j].at
		}
		return all[i].id > all[j].id
	})
	horizon := s.now().Add(-r.MaxAge).Unix()
	kept := map[[2]string]int{}
	var out []int64
	for _, sc := range all {
		group := [2]string{sc.ns, sc.schedule}
		kept[group]++
		if (r.MaxAge > 0 && sc.at < horizon) || (r.MaxScans > 0 && kept[group] > r.MaxScans) {
			out = append(out, sc.id)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] }) // oldest ids first
	return out, nil
}

// pruneScan deletes one scan's presences and issue changes in batches,
// then its figures, and marks it pruned. It returns the presences deleted.
func (s *Store) pruneScan(ctx context.Context, id int64) (int64, error) {
	total, err := s.pruneScanRows(ctx, "presences", id)
	if err != nil {
		return total, err
	}
	if _, err := s.pruneScanRows(ctx, "issue_changes", id); err != nil {
		return total, err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return total, fmt.Errorf("store: pruning scan %d: %w", id, err)
	}
	defer func() { _ = tx.Rollback() }() // after Commit: nothing to undo
	for _, stmt := range []string{
		`DELETE FROM page_visits WHERE scan_id = ?`,
		`DELETE FROM template_scans WHERE scan_id = ?`,
		`DELETE FROM organisation_scans WHERE scan_id = ?`,
	} {
		if _, err := tx.ExecContext(ctx, s.q(stmt), id); err != nil {
			return total, fmt.Errorf("store: pruning scan %d: %w", id, err)
		}
	}
	if _, err := tx.ExecContext(ctx, s.q(`UPDATE scans SET pruned_at = ? WHERE id = ?`), s.now().Unix(), id); err != nil {
		return total, fmt.Errorf("store: pruning scan %d: %w", id, err)
	}
	if err := tx.Commit(); err != nil {
		return total, fmt.Errorf("store: pruning scan %d: %w", id, err)
	}
	return total, nil
}

// pruneScanRows deletes the scan's rows of a table keyed by scan and issue
// (presences, issue_changes) in batches, and returns how many.
func (s *Store) pruneScanRows(ctx context.Context, table string, id int64) (int64, error) {
	var total int64
	for {
		res, err := s.db.ExecContext(ctx, s.q(`DELETE FROM `+table+` WHERE scan_id = ? AND issue_id IN
			(SELECT issue_id FROM `+table+` WHERE scan_id = ? ORDER BY issue_id LIMIT ?)`), id, id, pruneBatch)
		if err != nil {
			return total, fmt.Errorf("store: pruning scan %d's %s: %w", id, table, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return total, fmt.Errorf("store: pruning scan %d's %s: %w", id, table, err)
		}
		total += n
		if n < pruneBatch {
			return total, nil
		}
	}
}

// pruneFixedIssues deletes issues fixed before the oldest scan kept: every
// scan that showed them, and the one that fixed them, has been pruned.
// Their organisations' issue counts are then counted again.
func (s *Store) pruneFixedIssues(ctx context.Context) (int64, error) {
	var horizon, pruned int64
	err := s.db.QueryRowContext(ctx, `SELECT COALESCE(MIN(finished_at), 0), COUNT(*) FROM scans WHERE pruned_at IS NULL`).Scan(&horizon, &pruned)
	if err != nil {
		return 0, fmt.Errorf("store: finding the oldest scan kept: %w", err)
	}
	if pruned == 0 { // no scan kept: nothing is known to be older than one
		return 0, nil
	}
	var total int64
	for {
		n, err := s.pruneFixedIssuesBatch(ctx, horizon)
		if err != nil {
			return total, fmt.Errorf("store: pruning fixed issues: %w", err)
		}
		total += n
		if n < pruneBatch {
			break
		}
	}
	if total == 0 {
		return 0, nil
	}
	return total, s.recountIssues(ctx)
}

// pruneFixedIssuesBatch deletes a batch of the issues fixed before the
// horizon, with their sightings, in one transaction, and returns how many.
func (s *Store) pruneFixedIssuesBatch(ctx context.Context, horizon int64) (int64, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer func() { _ = tx.Rollback() }() // after Commit: nothing to undo
	const batch = `SELECT id FROM issues WHERE state = 'fixed' AND fixed_at < ? ORDER BY id LIMIT ?`
	if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM issue_sightings WHERE issue_id IN (`+batch+`)`), horizon, pruneBatch); err != nil {
		return 0, err
	}
	res, err := tx.ExecContext(ctx, s.q(`DELETE FROM issues WHERE id IN (`+batch+`)`), horizon, pruneBatch)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, err
	}
	return n, tx.Commit()
}

// recountIssues counts every organisation's issues again, in one
// transaction (after retention deleted some).
func (s *Store) recountIssues(ctx context.Context) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: counting issues: %w", err)
	}
	defer func() { _ = tx.Rollback() }() // after Commit: nothing to undo
	if _, err := tx.ExecContext(ctx, `DELETE FROM organisation_issue_counts`); err != nil {
		return fmt.Errorf("store: counting issues: %w", err)
	}
	if _, err := tx.ExecContext(ctx, countIssuesInto(false)); err != nil {
		return fmt.Errorf("store: counting issues: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: counting issues: %w", err)
	}
	return nil
}

// Retention bounds what Prune keeps. Zero fields keep everything.
type Retention struct {
	// MaxAge prunes scans that finished longer ago.
	MaxAge time.Duration
	// MaxScans keeps the newest scans of each schedule (scans without a
	// schedule count as one), pruning older ones.
	MaxScans int
}
