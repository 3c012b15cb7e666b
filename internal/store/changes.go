package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Changes a scan makes to an issue (issue_changes): opened (first seen),
// fixed for one of the reasons (ReasonFixed, ReasonPageNotScanned), or
// reopened. Fixed and page-not-scanned changes are named by their reasons.
const (
	ChangeOpened   = "opened"
	ChangeReopened = "reopened"
)

// IssueChanges are every change a scan can make to an issue, in the order
// pages list them.
var IssueChanges = []string{ChangeOpened, ReasonFixed, ReasonPageNotScanned, ChangeReopened}

// IssueChange is one change a scan made to one issue, with the issue as it
// stands now (a later scan may have changed it again).
type IssueChange struct {
	Change string
	Issue  Issue
}

// ChangesPage is one page of ScanChanges, in the order of the issues' ids.
type ChangesPage struct {
	Changes []IssueChange
	// LastID is the page's last issue's id (0 for an empty page): the next
	// page's after.
	LastID int64
}

// ScanChanges returns one page of the changes the scan (by its UID) made
// to issues, those of issues after the id after, at most limit
// (1..MaxLimit). A scan the store does not hold is ErrNotFound; a pruned
// scan has no changes left.
func (s *Store) ScanChanges(ctx context.Context, uid string, after int64, limit int) (ChangesPage, error) {
	if limit < 1 || limit > MaxLimit {
		return ChangesPage{}, fmt.Errorf("limit %d: must be 1 to %d", limit, MaxLimit)
	}
	var scanID int64
	err := s.db.QueryRowContext(ctx, s.q(`SELECT id FROM scans WHERE uid = ?`), uid).Scan(&scanID)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return ChangesPage{}, fmt.Errorf("scan %q: %w", uid, ErrNotFound)
	case err != nil:
		return ChangesPage{}, fmt.Errorf("store: reading scan %q: %w", uid, err)
	}
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT c.change, `+issueColumns+issueJoins+`
		JOIN issue_changes c ON c.issue_id = i.id
		WHERE c.scan_id = ? AND c.issue_id > ? ORDER BY c.issue_id LIMIT ?`), scanID, after, limit)
	if err != nil {
		return ChangesPage{}, fmt.Errorf("store: reading scan %q's changes: %w", uid, err)
	}
	defer func() { _ = rows.Close() }() // read only
	page := ChangesPage{Changes: []IssueChange{}}
	for rows.Next() {
		var change string
		r, err := scanIssue(prefixed{rows, &change})
		if err != nil {
			return ChangesPage{}, fmt.Errorf("store: reading scan %q's changes: %w", uid, err)
		}
		page.Changes = append(page.Changes, IssueChange{Change: change, Issue: r.issue})
		page.LastID = r.id
	}
	if err := rows.Err(); err != nil {
		return ChangesPage{}, fmt.Errorf("store: reading scan %q's changes: %w", uid, err)
	}
	return page, nil
}

// prefixed scans a row whose first column is read into first, the rest by
// the scanner it is given.
type prefixed struct {
	rows  *sql.Rows
	first *string
}

func (p prefixed) Scan(dest ...any) error { return p.rows.Scan(append([]any{p.first}, dest...)...) }
