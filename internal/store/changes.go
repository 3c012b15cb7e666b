package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
)

// Changes a scan makes to an issue: opened (first seen: the scan's range
// of new issues, openedIn), fixed for one of the reasons (ReasonFixed,
// ReasonPageNotScanned) or reopened (rows of issue_changes). Fixed and
// page-not-scanned changes are named by their reasons.
const (
	ChangeOpened   = "opened"
	ChangeReopened = "reopened"
)

// IssueChange is one change a scan made to one issue, with the issue as it
// stands now (a later scan may have changed it again).
type IssueChange struct {
	Change string
	Issue  Issue
	// IssueID is the store's id of the issue: what pages are ordered by
	// (ChangesFilter.After).
	IssueID int64
}

// ChangesPage is one page of ScanChanges, in the order of the issues' ids.
type ChangesPage struct {
	Changes []IssueChange
}

// LastID is the page's last issue's id (0 for an empty page): the next
// page's ChangesFilter.After.
func (p ChangesPage) LastID() int64 {
	if len(p.Changes) == 0 {
		return 0
	}
	return p.Changes[len(p.Changes)-1].IssueID
}

// ChangesFilter selects a page of one scan's changes.
type ChangesFilter struct {
	// Namespaces are the namespaces the reader may read: a scan of
	// another is not found.
	Namespaces []string
	// UID is the scan's (the CwacScan's uid); without it, Name is: the
	// newest scan recorded by that name in Namespaces.
	UID, Name string
	// After is the previous page's LastID (0: the first page).
	After int64
	// Limit is the most changes a page holds, 1 to MaxLimit.
	Limit int
	// Within, when set, keeps only the changes of these organisations.
	Within *Within
}

// ScanChanges returns one page of the changes a scan made to issues, in
// the order of the issues' ids: its rows of issue_changes, and the
// openings its range of new issues says (openedIn). A scan the store does
// not hold (or of another namespace) is ErrNotFound; a pruned scan has no
// changes left.
func (s *Store) ScanChanges(ctx context.Context, f ChangesFilter) (ChangesPage, error) {
	if f.Limit < 1 || f.Limit > MaxLimit {
		return ChangesPage{}, fmt.Errorf("limit %d: must be 1 to %d", f.Limit, MaxLimit)
	}
	inNS, nsArgs, err := inNamespaces("namespace", f.Namespaces)
	if err != nil {
		return ChangesPage{}, err
	}
	within, withinArgs, err := f.Within.cond("o.")
	if err != nil {
		return ChangesPage{}, err
	}
	key, which := f.UID, "uid"
	if key == "" {
		key, which = f.Name, "name"
	}
	var sc changedScan
	err = s.db.QueryRowContext(ctx, s.q(`SELECT id, pruned_at, new_issues_after, new_issues_last FROM scans WHERE `+which+` = ? AND `+inNS+`
		ORDER BY finished_at DESC, id DESC LIMIT 1`), append([]any{key}, nsArgs...)...).Scan(&sc.id, &sc.prunedAt, &sc.newAfter, &sc.newLast)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return ChangesPage{}, fmt.Errorf("scan %q: %w", key, ErrNotFound)
	case err != nil:
		return ChangesPage{}, fmt.Errorf("store: reading scan %q: %w", key, err)
	}
	// issuesAfter says again, of the issues and their sightings, what
	// c.issue_id > After and the joins say (see there why).
	after, afterArgs := issuesAfter(f.After)
	where := `c.scan_id = ? AND c.issue_id > ? AND ` + after
	args := append([]any{sc.id, f.After}, afterArgs...)
	if within != "" {
		where += " AND " + within
		args = append(args, withinArgs...)
	}
	written := []IssueChange{}
	if sc.wroteAfter(f.After) {
		written, err = s.readChanges(ctx, `SELECT c.change, `+issueColumns+issueJoins+`
		JOIN issue_changes c ON c.issue_id = i.id
		WHERE `+where+` ORDER BY c.issue_id LIMIT ?`, append(args, f.Limit))
		if err != nil {
			return ChangesPage{}, fmt.Errorf("store: reading scan %q's changes: %w", key, err)
		}
	}
	// The openings that precede the last change of a full page are all
	// that can still belong on it.
	upTo := int64(math.MaxInt64)
	if len(written) == f.Limit {
		upTo = written[len(written)-1].IssueID - 1
	}
	cond, condArgs, ok := sc.openedIn(f.After, upTo)
	if !ok {
		return ChangesPage{Changes: written}, nil
	}
	if within != "" {
		cond += " AND " + within
		condArgs = append(condArgs, withinArgs...)
	}
	opened, err := s.readChanges(ctx, `SELECT '`+ChangeOpened+`', `+issueColumns+issueJoins+`
		WHERE `+cond+` ORDER BY i.id LIMIT ?`, append(condArgs, f.Limit))
	if err != nil {
		return ChangesPage{}, fmt.Errorf("store: reading scan %q's openings: %w", key, err)
	}
	return ChangesPage{Changes: mergeChanges(written, opened, f.Limit)}, nil
}

// changedScan is what ScanChanges reads of the scan.
type changedScan struct {
	id       int64
	prunedAt sql.NullInt64
	// newAfter and newLast bound the ids of the issues the scan added
	// (newIssuesShown): NULL for a scan recorded before 0016, whose
	// openings are rows of issue_changes.
	newAfter, newLast sql.NullInt64
}

// wroteAfter reports whether the scan can have rows of issue_changes for
// issues whose ids are above after. Its fixes and reopenings are of issues
// stored before it began, none above its new_issues_after (the issues
// table's last id then); a scan recorded before 0016 (no range) has rows of
// its openings too. Past its fixes, a page is read with one query, not two:
// the sender of issue events reads a first scan of 857,149 issues in 9,317
// pages, and SQLite prepares each query again.
func (sc changedScan) wroteAfter(after int64) bool {
	return !sc.newAfter.Valid || after < sc.newAfter.Int64
}

// openedIn is the condition, on issues read through issueJoins, that the
// scan opened the issue and its id is above after and at most upTo, with
// its arguments; false when no issue can meet it. The scan's range of new
// ids is read through the issues' key and their first_seen_scan_id
// confirms each (an id of an issue retention deleted can be given again
// by a later scan). A pruned scan has no openings left, as it has no rows
// of changes left.
func (sc changedScan) openedIn(after, upTo int64) (string, []any, bool) {
	if sc.prunedAt.Valid || !sc.newAfter.Valid || !sc.newLast.Valid {
		return "", nil, false
	}
	lo, hi := max(after, sc.newAfter.Int64), min(upTo, sc.newLast.Int64)
	if hi <= lo {
		return "", nil, false
	}
	// Both bounds are said of the sightings too (issuesAfter says why).
	cond, args := issuesAfter(lo)
	return cond + ` AND i.id <= ? AND sg.issue_id <= ? AND i.first_seen_scan_id = ?`, append(args, hi, hi, sc.id), true
}

// mergeChanges merges two pages of changes in the order of the issues'
// ids and keeps the first limit. A scan's other changes are to issues
// stored before it, so in practice its openings follow them all; the
// merge does not depend on it.
func mergeChanges(a, b []IssueChange, limit int) []IssueChange {
	out := make([]IssueChange, 0, min(len(a)+len(b), limit))
	for len(out) < limit && (len(a) > 0 || len(b) > 0) {
		if len(b) == 0 || (len(a) > 0 && a[0].IssueID < b[0].IssueID) {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return out
}

// readChanges runs a query of changes: the change, then issueColumns.
func (s *Store) readChanges(ctx context.Context, query string, args []any) ([]IssueChange, error) {
	rows, err := s.db.QueryContext(ctx, s.q(query), args...)
	if err != nil {
		return nil, err
	}
	defer func() { _ = rows.Close() }() // read only
	changes := []IssueChange{}
	for rows.Next() {
		var change string
		r, err := scanIssue(prefixed{rows, &change})
		if err != nil {
			return nil, err
		}
		changes = append(changes, IssueChange{Change: change, Issue: r.issue, IssueID: r.id})
	}
	return changes, rows.Err()
}

// prefixed scans a row whose first column is read into first, the rest by
// the scanner it is given.
type prefixed struct {
	rows  *sql.Rows
	first *string
}

func (p prefixed) Scan(dest ...any) error { return p.rows.Scan(append([]any{p.first}, dest...)...) }
