package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/diff"
)

// Issue states and the reasons an issue was fixed.
const (
	StateOpen  = "open"
	StateFixed = "fixed"
	// ReasonFixed: a later scan of the page no longer showed the issue.
	ReasonFixed = "fixed"
	// ReasonPageNotScanned: a later scan of the organisation did not visit
	// the page (it was removed, or the crawl did not reach it). Counted
	// apart from fixes.
	ReasonPageNotScanned = "page not scanned"
)

// IssueStates are the states a reader may filter on.
var IssueStates = []string{StateOpen, StateFixed}

// IssueFilter selects issues for IssueHistory. Empty fields do not
// filter, but Namespaces, which must name at least one.
type IssueFilter struct {
	// Namespaces are those whose organisations may be seen: the caller's
	// (where it may get CwacScans). The total counts only these.
	Namespaces   []string
	Organisation string
	Rule         string
	// State is "open", "fixed" or "" (both).
	State        string
	ReopenedOnly bool
	// Page is a page URL; it is normalised as issues' pages are.
	Page string
	// Limit is the page size (1..MaxLimit; 0 means DefaultLimit).
	Limit  int
	Offset int
	// AfterID, when set, starts the page after the issue of this id (the
	// LastID of the page before), in the same order: a walk through every
	// issue that costs each page the same, where a deep Offset makes the
	// database step over every earlier issue again. The total still counts
	// every match.
	AfterID int64
	// Within, when set, keeps only these organisations of the namespaces
	// (a caller who reads by organisation grant): an organisation it does
	// not keep is not found, and the total counts only those it keeps.
	Within *Within
}

// Paging limits of IssueHistory.
const (
	DefaultLimit = 50
	MaxLimit     = 500
	// MaxOffset bounds how deep a page may start: deeper pages are better
	// reached with narrower filters.
	MaxOffset = 1_000_000
)

// IssuePage is one page of IssueHistory: the matching issues' total and
// the page's issues, oldest first (by first sighting).
type IssuePage struct {
	Total  int64
	Issues []Issue
	// LastID is the id of the page's last issue (0 for an empty page): the
	// next page's IssueFilter.AfterID.
	LastID int64
}

// Issue is one issue identity followed across scans.
type Issue struct {
	Fingerprint   string
	State         string
	Organisation  string
	Page          string
	ViewportWidth int
	Audit         string
	Rule          string
	Impact        string
	ElementHTML   string
	// ElementHash is diff.ElementHash of the element's whole HTML as last
	// seen (ElementHTML may be cut): what a decision about the issue names.
	ElementHash uint64
	Target      string
	HelpURL     string
	WCAG        []string
	// FirstSeenScan, LastSeenScan and FixedInScan name scans as
	// "namespace/name".
	FirstSeenScan string
	FirstSeenAt   time.Time
	LastSeenScan  string
	LastSeenAt    time.Time
	FixedInScan   string
	FixedAt       *time.Time
	FixedReason   string
	Reopened      int
	ScansPresent  int
}

// IssueDetail is one issue with every scan of its organisation since it
// was first seen, and whether each showed it.
type IssueDetail struct {
	Issue
	Scans []IssueScan
}

// IssueScan is one scan of an issue's organisation.
type IssueScan struct {
	Scan       string
	FinishedAt time.Time
	Present    bool
	// Page says whether the scan visited the issue's page.
	Page PageVisit
}

// PageNotVisited reports whether the scan did not visit the issue's page:
// nothing is known of the issue there.
func (s IssueScan) PageNotVisited() bool { return s.Page == PageNotVisited }

// PageVisit says whether a scan visited a page.
type PageVisit int8

// A scan's visit of a page.
const (
	// PageVisitUnknown: the scan was recorded before visits were kept
	// (migration 0007).
	PageVisitUnknown PageVisit = iota
	PageVisited
	PageNotVisited
)

// pageVisitSQL is v as an SQL literal: the query names the visit
// directly (a bound value in a CASE has no type PostgreSQL can infer).
func pageVisitSQL(v PageVisit) string { return strconv.Itoa(int(v)) }

// ErrNotFound is returned (wrapped, naming what) for an organisation or an
// issue the store does not hold.
var ErrNotFound = errors.New("not in the issue history")

// issueColumns are what an Issue is read from; issueJoins the joins they need.
const (
	issueColumns = `i.id, i.organisation_id, i.page_id, i.fingerprint, i.state, o.name, p.url, i.viewport_width, i.audit, i.rule, i.impact,
		i.element_html, i.element_hash, i.target, i.help_url, i.wcag,
		fs.namespace, fs.name, i.first_seen_at, ls.namespace, ls.name, sg.last_seen_at,
		xs.namespace, xs.name, i.fixed_at, i.fixed_reason, i.reopened, sg.scans_present`
	issueJoins = ` FROM issues i
		JOIN organisations o ON o.id = i.organisation_id
		JOIN pages p ON p.id = i.page_id
		JOIN scans fs ON fs.id = i.first_seen_scan_id
		JOIN issue_sightings sg ON sg.issue_id = i.id
		JOIN scans ls ON ls.id = sg.last_seen_scan_id
		LEFT JOIN scans xs ON xs.id = i.fixed_in_scan_id`
)

// issuesAfter is the condition that an issue read through issueJoins has
// an id above after, and its arguments. The bound is said of the issue and
// of its sighting: PostgreSQL does not carry a bound across a join, and
// walked the other table from its first id to the page's (the issues: 0.3
// s a page of a million changes, against 3 ms; the sightings: 5 s a page).
func issuesAfter(after int64) (string, []any) {
	return "i.id > ? AND sg.issue_id > ?", []any{after, after}
}

type issueRow struct {
	id, orgID, pageID int64
	issue             Issue
}

func scanIssue(sc interface{ Scan(...any) error }) (issueRow, error) {
	var r issueRow
	is := &r.issue
	var wcag string
	var firstAt, lastAt int64
	var fixNS, fixName, reason sql.NullString
	var fixedAt sql.NullInt64
	var fsNS, fsName, lsNS, lsName string
	var elementHash int64
	err := sc.Scan(&r.id, &r.orgID, &r.pageID, &is.Fingerprint, &is.State, &is.Organisation, &is.Page, &is.ViewportWidth, &is.Audit, &is.Rule, &is.Impact,
		&is.ElementHTML, &elementHash, &is.Target, &is.HelpURL, &wcag,
		&fsNS, &fsName, &firstAt, &lsNS, &lsName, &lastAt, &fixNS, &fixName, &fixedAt, &reason, &is.Reopened, &is.ScansPresent)
	if err != nil {
		return r, err
	}
	is.ElementHash = uint64(elementHash) //nolint:gosec // stored as the bits of the uint64 (a BIGINT)
	if wcag != "" {
		is.WCAG = strings.Split(wcag, ",")
	}
	is.FirstSeenScan, is.FirstSeenAt = scanName(fsNS, fsName), unix(firstAt)
	is.LastSeenScan, is.LastSeenAt = scanName(lsNS, lsName), unix(lastAt)
	if fixedAt.Valid {
		t := unix(fixedAt.Int64)
		is.FixedInScan, is.FixedAt, is.FixedReason = scanName(fixNS.String, fixName.String), &t, reason.String
	}
	return r, nil
}

// IssueHistory returns one page of the issues a filter selects in its
// namespaces, oldest first (the order they were first seen; ties by id),
// with their total.
func (s *Store) IssueHistory(ctx context.Context, f IssueFilter) (IssuePage, error) {
	limit, err := checkPage(f)
	if err != nil {
		return IssuePage{}, err
	}
	var where []string
	var args []any
	var orgCond string // the organisations the filter reads, on column "organisation_id"
	if f.Organisation != "" {
		ids, err := s.organisationIDs(ctx, f.Namespaces, f.Organisation, f.Within)
		if err != nil {
			return IssuePage{}, err
		}
		cond, idArgs := idList("organisation_id", ids)
		orgCond, args = cond, append(args, idArgs...)
	} else {
		cond, nsArgs, err := inNamespaces("namespace", f.Namespaces)
		if err != nil {
			return IssuePage{}, err
		}
		within, withinArgs, err := f.Within.cond("")
		if err != nil {
			return IssuePage{}, err
		}
		if within != "" {
			cond, nsArgs = cond+" AND "+within, append(nsArgs, withinArgs...)
		}
		orgCond, args = "organisation_id IN (SELECT id FROM organisations WHERE "+cond+")", append(args, nsArgs...)
	}
	orgArgs := slices.Clone(args)
	if f.Organisation != "" {
		where = append(where, "i."+orgCond)
	} else {
		// Every organisation of the namespaces: walking issues in id order
		// and keeping theirs stops at the page's end, where the
		// organisation index would fetch all of their issues and sort them
		// (17,000 issues: 35 ms against 2 ms for the first page). The unary
		// plus, valid on both engines, keeps the planner off that index.
		where = append(where, "+i."+orgCond)
	}
	switch f.State {
	case "":
	case StateOpen, StateFixed:
		where, args = append(where, "i.state = ?"), append(args, f.State)
	default:
		return IssuePage{}, fmt.Errorf("state %q is not open or fixed", f.State)
	}
	if f.Rule != "" {
		where, args = append(where, "i.rule = ?"), append(args, f.Rule)
	}
	if f.ReopenedOnly {
		where = append(where, "i.reopened > 0")
	}
	if f.Page != "" {
		where, args = append(where, "i.page_id IN (SELECT id FROM pages WHERE url = ?)"), append(args, diff.PageKey(f.Page))
	}
	cond := " WHERE " + strings.Join(where, " AND ")
	page := IssuePage{Issues: []Issue{}}
	count := `SELECT COUNT(*) FROM issues i` + cond
	countArgs := args
	if f.Rule == "" && f.Page == "" { // a total the writer keeps
		count, countArgs = `SELECT COALESCE(SUM(`+keptCount(f)+`), 0) FROM organisation_issue_counts WHERE `+orgCond, orgArgs
	}
	if err := s.db.QueryRowContext(ctx, s.q(count), countArgs...).Scan(&page.Total); err != nil {
		return IssuePage{}, fmt.Errorf("store: counting issues: %w", err)
	}
	if page.Total <= int64(f.Offset) {
		return page, nil
	}
	if f.AfterID > 0 { // the rows only: the total counts every match
		after, afterArgs := issuesAfter(f.AfterID)
		cond, args = cond+" AND "+after, append(args, afterArgs...)
	}
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT `+issueColumns+issueJoins+cond+` ORDER BY i.id LIMIT ? OFFSET ?`), append(args, limit, f.Offset)...)
	if err != nil {
		return IssuePage{}, fmt.Errorf("store: reading issues: %w", err)
	}
	defer func() { _ = rows.Close() }() // read only
	for rows.Next() {
		r, err := scanIssue(rows)
		if err != nil {
			return IssuePage{}, fmt.Errorf("store: reading issues: %w", err)
		}
		page.Issues, page.LastID = append(page.Issues, r.issue), r.id
	}
	if err := rows.Err(); err != nil {
		return IssuePage{}, fmt.Errorf("store: reading issues: %w", err)
	}
	return page, nil
}

// keptCount is the sum of organisation_issue_counts' columns that counts
// the issues of a filter by state and reopened issues only.
func keptCount(f IssueFilter) string {
	switch {
	case f.ReopenedOnly && f.State == StateOpen:
		return "reopened_open"
	case f.ReopenedOnly && f.State == StateFixed:
		return "reopened_fixed"
	case f.ReopenedOnly:
		return "reopened_open + reopened_fixed"
	case f.State == StateOpen:
		return "open_issues"
	case f.State == StateFixed:
		return "fixed_issues"
	}
	return "open_issues + fixed_issues"
}

// checkPage validates a filter's paging and returns the page size.
func checkPage(f IssueFilter) (int, error) {
	switch {
	case f.Limit < 0 || f.Limit > MaxLimit:
		return 0, fmt.Errorf("limit %d is not between 1 and %d", f.Limit, MaxLimit)
	case f.Offset < 0 || f.Offset > MaxOffset:
		return 0, fmt.Errorf("offset %d is not between 0 and %d", f.Offset, MaxOffset)
	case f.Limit == 0:
		return DefaultLimit, nil
	}
	return f.Limit, nil
}

// Issue returns one issue of the namespaces by fingerprint, with every
// scan of its organisation since it was first seen and whether each
// showed it.
func (s *Store) Issue(ctx context.Context, namespaces []string, fingerprint string) (IssueDetail, error) {
	cond, args, err := inNamespaces("o.namespace", namespaces)
	if err != nil {
		return IssueDetail{}, err
	}
	r, err := scanIssue(s.db.QueryRowContext(ctx, s.q(`SELECT `+issueColumns+issueJoins+` WHERE i.fingerprint = ? AND `+cond),
		append([]any{fingerprint}, args...)...))
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return IssueDetail{}, fmt.Errorf("issue %q: %w", fingerprint, ErrNotFound)
	case err != nil:
		return IssueDetail{}, fmt.Errorf("store: reading issue %q: %w", fingerprint, err)
	}
	d := IssueDetail{Issue: r.issue, Scans: []IssueScan{}}
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT s.namespace, s.name, os.finished_at,
		CASE WHEN `+presentIn("i", "os.scan_id")+` THEN 1 ELSE 0 END,
		CASE WHEN EXISTS (SELECT 1 FROM page_visits v WHERE v.scan_id = os.scan_id AND v.page_id = ?) THEN `+pageVisitSQL(PageVisited)+`
			WHEN EXISTS (SELECT 1 FROM page_visits v WHERE v.scan_id = os.scan_id) THEN `+pageVisitSQL(PageNotVisited)+`
			ELSE `+pageVisitSQL(PageVisitUnknown)+` END
		FROM organisation_scans os JOIN scans s ON s.id = os.scan_id JOIN issues i ON i.id = ?
		WHERE os.organisation_id = ? AND os.finished_at >= ? ORDER BY os.finished_at, os.scan_id`),
		r.pageID, r.id, r.orgID, r.issue.FirstSeenAt.Unix())
	if err != nil {
		return IssueDetail{}, fmt.Errorf("store: reading issue %q's scans: %w", fingerprint, err)
	}
	defer func() { _ = rows.Close() }() // read only
	for rows.Next() {
		var ns, name string
		var at int64
		var present, visit int
		if err := rows.Scan(&ns, &name, &at, &present, &visit); err != nil {
			return IssueDetail{}, fmt.Errorf("store: reading issue %q's scans: %w", fingerprint, err)
		}
		d.Scans = append(d.Scans, IssueScan{Scan: scanName(ns, name), FinishedAt: unix(at), Present: present == 1, Page: PageVisit(visit)})
	}
	if err := rows.Err(); err != nil {
		return IssueDetail{}, fmt.Errorf("store: reading issue %q's scans: %w", fingerprint, err)
	}
	return d, nil
}

// StoredIssue is the part of a stored issue that matching needs.
type StoredIssue struct {
	ID          int64
	Fingerprint string
	PageID      int64
	Width       int
	Audit, Rule string
	ElementHash uint64
	TargetHash  uint64
	Open        bool
}

// EachIssueOn streams the issues (open and fixed) on the pages (store
// ids) to fn, a statement of at most maxParams pages at a time, each
// page's oldest first (matching pairs alike elements in that order, as
// the comparison pairs them in the baseline's file order).
func (w *ScanWriter) EachIssueOn(ctx context.Context, pages []int64, fn func(*StoredIssue) error) error {
	for start := 0; start < len(pages); start += maxParams {
		if err := w.eachIssueOn(ctx, pages[start:min(start+maxParams, len(pages))], fn); err != nil {
			return err
		}
	}
	return nil
}

func (w *ScanWriter) eachIssueOn(ctx context.Context, pages []int64, fn func(*StoredIssue) error) error {
	rows, err := w.tx.QueryContext(ctx, w.s.q(`SELECT id, fingerprint, page_id, viewport_width, audit, rule, element_hash, target_hash, state
		FROM issues WHERE page_id IN (`+placeholders(len(pages))+`) ORDER BY id`), idArgs(pages)...)
	if err != nil {
		return fmt.Errorf("store: reading issues: %w", err)
	}
	defer func() { _ = rows.Close() }() // read only
	var is StoredIssue
	for rows.Next() {
		var html, target int64
		var state string
		if err := rows.Scan(&is.ID, &is.Fingerprint, &is.PageID, &is.Width, &is.Audit, &is.Rule, &html, &target, &state); err != nil {
			return fmt.Errorf("store: reading issues: %w", err)
		}
		is.ElementHash, is.TargetHash, is.Open = uint64(html), uint64(target), state == StateOpen
		if err := fn(&is); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: reading issues: %w", err)
	}
	return nil
}

// OpenIssuesNotVisited returns the open issues of an organisation on the
// pages this scan did not visit (Observe), oldest first: the organisation's
// pages this scan did visit must all have been observed first.
//
// It finds those pages first, then their open issues by page, rather than
// joining the two: the planner judges the join by statistics taken before
// this scan marked its pages, which say every page is unvisited, and on
// PostgreSQL read every open issue of the organisation (0.6 s at 857,149,
// for none) where the pages left are usually few.
func (w *ScanWriter) OpenIssuesNotVisited(ctx context.Context, orgID int64) ([]int64, error) {
	pages, err := w.pagesNotVisited(ctx, orgID)
	if err != nil {
		return nil, fmt.Errorf("store: reading the pages this scan did not visit: %w", err)
	}
	var ids []int64
	for start := 0; start < len(pages); start += maxParams {
		batch := pages[start:min(start+maxParams, len(pages))]
		if ids, err = w.openIssuesOn(ctx, batch, ids); err != nil {
			return nil, fmt.Errorf("store: reading the open issues of pages not visited: %w", err)
		}
	}
	slices.Sort(ids)
	return ids, nil
}

// pagesNotVisited lists the pages of an organisation this scan has not
// observed.
func (w *ScanWriter) pagesNotVisited(ctx context.Context, orgID int64) ([]int64, error) {
	rows, err := w.tx.QueryContext(ctx, w.s.q(`SELECT id FROM pages
		WHERE organisation_id = ? AND (last_scan_id IS NULL OR last_scan_id <> ?)`), orgID, w.scanID)
	if err != nil {
		return nil, err
	}
	return appendIDs(rows, nil)
}

// openIssuesOn appends the open issues of pages to ids.
func (w *ScanWriter) openIssuesOn(ctx context.Context, pages, ids []int64) ([]int64, error) {
	rows, err := w.tx.QueryContext(ctx, w.s.q(`SELECT id FROM issues
		WHERE page_id IN (`+placeholders(len(pages))+`) AND state = 'open'`), idArgs(pages)...)
	if err != nil {
		return ids, err
	}
	return appendIDs(rows, ids)
}

// appendIDs appends the one column of rows to ids, and closes rows.
func appendIDs(rows *sql.Rows, ids []int64) ([]int64, error) {
	defer func() { _ = rows.Close() }() // read only
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return ids, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// NewIssue is an issue seen for the first time.
type NewIssue struct {
	Fingerprint   string
	OrgID, PageID int64
	Width         int
	Audit, Rule   string
	Impact        string
	ElementHTML   string
	ElementHash   uint64
	Target        string
	TargetHash    uint64
	HelpURL       string
	// WCAG lists success criteria numbers ("1.4.3"), comma-separated.
	WCAG string
}

// IssueIDs reserves ids for n new issues and returns the first.
func (w *ScanWriter) IssueIDs(n int) int64 { return w.alloc("issues", n) }

// AddIssues stores new issues, open, first seen in this scan, with the
// ids given (from IssueIDs). Commit records their sighting: last seen in
// this scan, one scan present (newIssuesShown). That this scan opened and
// showed them is said by the scan's range of new ids and their
// first_seen_scan_id, not by rows (openedIn, presentIn).
func (w *ScanWriter) AddIssues(ctx context.Context, ids []int64, issues []NewIssue) error {
	if err := w.setAsideFingerprintIndex(ctx, len(issues)); err != nil {
		return err
	}
	// Each row's values go straight into the statement's arguments: a
	// slice of them per issue was most of what an ingest allocated.
	return w.insertEach(ctx, "issues", []string{"id", "fingerprint", colOrganisation, colPage, "viewport_width", colAudit, "rule", "impact",
		"element_html", "element_hash", "target", "target_hash", "help_url", "wcag"},
		[]sameInEveryRow{{"state", StateOpen}, {"first_seen_scan_id", w.scanID}, {"first_seen_at", w.at}, {"reopened", int64(0)}}, len(issues),
		func(i int, args []any) []any {
			is := &issues[i]
			return append(args, ids[i], is.Fingerprint, is.OrgID, is.PageID, is.Width, is.Audit, is.Rule, is.Impact,
				is.ElementHTML, int64(is.ElementHash), is.Target, int64(is.TargetHash), is.HelpURL, is.WCAG)
		})
}

// Fix marks open issues fixed in this scan, for a reason (ReasonFixed or
// ReasonPageNotScanned).
func (w *ScanWriter) Fix(ctx context.Context, ids []int64, reason string) error {
	if err := w.updateIDs(ctx, "issues", `UPDATE issues SET state = 'fixed', fixed_in_scan_id = ?, fixed_at = ?, fixed_reason = ? WHERE state = 'open' AND id IN `,
		[]any{w.scanID, w.at, reason}, ids); err != nil {
		return err
	}
	return w.addChanges(ctx, ids, reason) // ReasonFixed and ReasonPageNotScanned name their changes
}

// Reopen marks fixed issues open again, counting the reopening.
func (w *ScanWriter) Reopen(ctx context.Context, ids []int64) error {
	if err := w.updateIDs(ctx, "issues", `UPDATE issues SET state = 'open', fixed_in_scan_id = NULL, fixed_at = NULL, fixed_reason = NULL,
		reopened = reopened + 1 WHERE state = 'fixed' AND id IN `, nil, ids); err != nil {
		return err
	}
	return w.addChanges(ctx, ids, ChangeReopened)
}

// addChanges records that this scan made the change to the issues
// (issue_changes), once each has been changed.
func (w *ScanWriter) addChanges(ctx context.Context, ids []int64, change string) error {
	return w.insertEach(ctx, "issue_changes", []string{"issue_id"}, []sameInEveryRow{{colScan, w.scanID}, {"change", change}}, len(ids),
		func(i int, args []any) []any { return append(args, ids[i]) })
}

// SetElement records an issue's element as this scan shows it: matched on
// its target, its HTML changed.
func (w *ScanWriter) SetElement(ctx context.Context, id int64, html string, hash uint64) error {
	if _, err := w.exec(ctx, `UPDATE issues SET element_html = ?, element_hash = ? WHERE id = ?`, html, int64(hash), id); err != nil {
		return fmt.Errorf("store: updating an issue's element: %w", err)
	}
	return nil
}

// AddPresences records that this scan showed the issues, stored before it
// (those AddIssues adds were first seen in it, which says so: presentIn).
func (w *ScanWriter) AddPresences(ctx context.Context, ids []int64) error {
	for _, id := range ids {
		if id > w.issuesBefore {
			return fmt.Errorf("store: writing presences: issue %d is new in this scan (its commit records its presence)", id)
		}
	}
	return w.insertEach(ctx, "presences", []string{"issue_id"}, []sameInEveryRow{{colScan, w.scanID}}, len(ids),
		func(i int, args []any) []any { return append(args, ids[i]) })
}

// newIssuesShown records that this scan opened, showed and last saw every
// issue it added: the issues whose ids follow the last one stored before
// it (the writer lock keeps every other writer out, so they are all this
// scan's). Their sightings are one statement, which reads the new issues
// in their key's order and writes nothing else (a row per issue written
// from Go was a fifth of a first scan's ingest). Their openings and their
// presence are no rows at all: the scan keeps the range of their ids
// (openedIn reads it) and each issue its first_seen_scan_id (presentIn).
// Those rows were two thirds of these statements' time: presences 2.5 s
// and openings 2.7 s of PostgreSQL's 8 s at 857,149 new issues.
func (w *ScanWriter) newIssuesShown(ctx context.Context) error {
	if _, err := w.exec(ctx, `UPDATE scans SET new_issues_after = ?, new_issues_last = ? WHERE id = ?`,
		w.issuesBefore, w.next["issues"]-1, w.scanID); err != nil {
		return fmt.Errorf("store: recording the range of the new issues: %w", err)
	}
	if w.issuesAdded == 0 {
		return nil
	}
	if _, err := w.exec(ctx, `INSERT INTO issue_sightings (issue_id, last_seen_scan_id, last_seen_at, scans_present)
		SELECT id, ?, ?, 1 FROM issues WHERE id > ? ORDER BY id`,
		w.scanID, w.at, w.issuesBefore); err != nil {
		return fmt.Errorf("store: writing the sightings of the new issues: %w", err)
	}
	return nil
}

// presentIn is the condition that the issue i (an alias of issues) was
// shown by the scan whose id the expression scan names: the scan that
// first saw an issue says so by the issue's first_seen_scan_id
// (newIssuesShown writes it no row of presences; a store written before
// holds one too, which changes nothing), every later one by a row of
// presences (AddPresences). It is the one place the store reads a
// presence.
func presentIn(i, scan string) string {
	return `(` + i + `.first_seen_scan_id = ` + scan + ` OR EXISTS (SELECT 1 FROM presences pr WHERE pr.scan_id = ` + scan +
		` AND pr.issue_id = ` + i + `.id))`
}

// FinishPresences sets last seen and the count of scans present on every
// issue this scan showed, in one statement; issues it added already say
// so, and are not written twice. They are kept apart from the issues
// (issue_sightings, migration 0015): a narrow row with one index to
// update, where an issue's row has six.
func (w *ScanWriter) FinishPresences(ctx context.Context) error {
	_, err := w.exec(ctx, `UPDATE issue_sightings SET last_seen_scan_id = ?, last_seen_at = ?, scans_present = scans_present + 1
		WHERE issue_id IN (SELECT issue_id FROM presences WHERE scan_id = ?) AND last_seen_scan_id <> ?`, w.scanID, w.at, w.scanID, w.scanID)
	if err != nil {
		return fmt.Errorf("store: updating the issues this scan showed: %w", err)
	}
	return nil
}
