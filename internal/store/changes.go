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
// the order of the issues' ids. A scan the store does not hold (or of
// another namespace) is ErrNotFound; a pruned scan has no changes left.
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
	var scanID int64
	err = s.db.QueryRowContext(ctx, s.q(`SELECT id FROM scans WHERE `+which+` = ? AND `+inNS+` ORDER BY finished_at DESC, id DESC LIMIT 1`),
		append([]any{key}, nsArgs...)...).Scan(&scanID)
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
	args := append([]any{scanID, f.After}, afterArgs...)
	if within != "" {
		where += " AND " + within
		args = append(args, withinArgs...)
	}
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT c.change, `+issueColumns+issueJoins+`
		JOIN issue_changes c ON c.issue_id = i.id
		WHERE `+where+` ORDER BY c.issue_id LIMIT ?`), append(args, f.Limit)...)
	if err != nil {
		return ChangesPage{}, fmt.Errorf("store: reading scan %q's changes: %w", key, err)
	}
	defer func() { _ = rows.Close() }() // read only
	page := ChangesPage{Changes: []IssueChange{}}
	for rows.Next() {
		var change string
		r, err := scanIssue(prefixed{rows, &change})
		if err != nil {
			return ChangesPage{}, fmt.Errorf("store: reading scan %q's changes: %w", key, err)
		}
		page.Changes = append(page.Changes, IssueChange{Change: change, Issue: r.issue, IssueID: r.id})
	}
	if err := rows.Err(); err != nil {
		return ChangesPage{}, fmt.Errorf("store: reading scan %q's changes: %w", key, err)
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
