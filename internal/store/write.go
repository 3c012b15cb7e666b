package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// ScanWriter writes one scan in one transaction: everything or, after
// Rollback, a failed Commit or a crash, nothing. Only internal/ingest
// drives it; it holds the SQL, ingest the rules. Not safe for concurrent
// use.
type ScanWriter struct {
	s      *Store
	tx     *sql.Tx
	scanID int64
	at     int64 // the scan's finished_at, seconds
	// namespace is the scan's: its organisations are that namespace's.
	namespace string
	next      map[string]int64
}

// colOrganisation is the column every per-organisation table has.
const colOrganisation = "organisation_id"

// colAudit is the audit column of issues, templates and observations.
const colAudit = "audit"

// maxScanField bounds each of a scan's descriptive fields.
const maxScanField = 4096

// maxParams bounds one statement's bound values: well under SQLite's
// 32,766 and PostgreSQL's 65,535.
const maxParams = 8000

// idTables are the tables whose ids the writer assigns.
var idTables = []string{"scans", "organisations", "pages", "issues", "templates"}

// BeginScan starts writing a scan: it takes the writer lock (one writer at
// a time, whatever the number of replicas), refuses a scan already stored
// (ErrScanExists) and records the scan's row. holder names the writer in
// the lock row (a pod name), for people looking at a stuck lock.
func (s *Store) BeginScan(ctx context.Context, scan Scan, holder string) (*ScanWriter, error) {
	if scan.UID == "" || scan.Name == "" || scan.FinishedAt.IsZero() {
		return nil, errors.New("store: a scan needs a uid, a name and the time it finished")
	}
	for _, f := range []string{scan.UID, scan.Namespace, scan.Name, scan.Schedule, scan.Phase, scan.ResultsPath,
		scan.Engine.CWACImageDigest, scan.Engine.AxeCore, scan.Engine.Chrome} {
		if !utf8.ValidString(f) || strings.IndexByte(f, 0) >= 0 || len(f) > maxScanField {
			return nil, fmt.Errorf("store: scan %q: a field is not text the store keeps (valid UTF-8, no NUL, at most %d bytes)", scan.Name, maxScanField)
		}
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("store: starting the scan's transaction: %w", err)
	}
	w := &ScanWriter{s: s, tx: tx, at: scan.FinishedAt.Unix(), namespace: scan.Namespace, next: map[string]int64{}}
	if err := w.begin(ctx, scan, holder); err != nil {
		_ = tx.Rollback() // nothing was written; the begin error says why
		return nil, err
	}
	return w, nil
}

func (w *ScanWriter) begin(ctx context.Context, scan Scan, holder string) error {
	if _, err := w.exec(ctx, `UPDATE writer_lock SET holder = ?, since = ? WHERE id = 1`, holder, w.s.now().Unix()); err != nil {
		return fmt.Errorf("store: taking the writer lock: %w", err)
	}
	var one int
	err := w.tx.QueryRowContext(ctx, w.s.q(`SELECT 1 FROM scans WHERE uid = ?`), scan.UID).Scan(&one)
	switch {
	case err == nil:
		return ErrScanExists
	case !errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("store: looking up the scan: %w", err)
	}
	for _, t := range idTables {
		var last sql.NullInt64
		if err := w.tx.QueryRowContext(ctx, "SELECT MAX(id) FROM "+t).Scan(&last); err != nil {
			return fmt.Errorf("store: reading the last id of %s: %w", t, err)
		}
		w.next[t] = last.Int64 + 1
	}
	w.scanID = w.alloc("scans", 1)
	_, err = w.exec(ctx, `INSERT INTO scans (id, uid, namespace, name, schedule, finished_at, phase, results_path,
		cwac_image_digest, axe_core_version, chrome_version, ingested_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		w.scanID, scan.UID, scan.Namespace, scan.Name, scan.Schedule, w.at, scan.Phase, scan.ResultsPath,
		scan.Engine.CWACImageDigest, scan.Engine.AxeCore, scan.Engine.Chrome, w.s.now().Unix())
	if err != nil {
		return fmt.Errorf("store: recording the scan: %w", err)
	}
	return nil
}

// alloc reserves n ids of a table and returns the first.
func (w *ScanWriter) alloc(table string, n int) int64 {
	id := w.next[table]
	w.next[table] += int64(n)
	return id
}

func (w *ScanWriter) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return w.tx.ExecContext(ctx, w.s.q(query), args...)
}

// ScanID is the scan's id in the store.
func (w *ScanWriter) ScanID() int64 { return w.scanID }

// Commit makes the scan's writes visible, all at once.
func (w *ScanWriter) Commit() error {
	if err := w.tx.Commit(); err != nil {
		return fmt.Errorf("store: committing the scan: %w", err)
	}
	return nil
}

// Rollback discards the scan's writes (after Commit it does nothing).
func (w *ScanWriter) Rollback() {
	_ = w.tx.Rollback() // sql.ErrTxDone after a commit: nothing to undo
}

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

// Pages returns an organisation's stored pages, by URL.
func (w *ScanWriter) Pages(ctx context.Context, orgID int64) (map[string]int64, error) {
	rows, err := w.tx.QueryContext(ctx, w.s.q(`SELECT id, url FROM pages WHERE organisation_id = ?`), orgID)
	if err != nil {
		return nil, fmt.Errorf("store: reading pages: %w", err)
	}
	defer func() { _ = rows.Close() }() // read only
	out := map[string]int64{}
	for rows.Next() {
		var id int64
		var u string
		if err := rows.Scan(&id, &u); err != nil {
			return nil, fmt.Errorf("store: reading pages: %w", err)
		}
		out[u] = id
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: reading pages: %w", err)
	}
	return out, nil
}

// AddPages stores new pages of an organisation and returns their ids, in order.
func (w *ScanWriter) AddPages(ctx context.Context, orgID int64, urls []string) ([]int64, error) {
	ids := make([]int64, len(urls))
	rows := make([][]any, len(urls))
	for i, u := range urls {
		ids[i] = w.alloc("pages", 1)
		rows[i] = []any{ids[i], orgID, u}
	}
	if err := w.insert(ctx, "pages", []string{"id", colOrganisation, "url"}, rows); err != nil {
		return nil, err
	}
	return ids, nil
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

// EachIssue streams an organisation's issues (open and fixed) to fn.
func (w *ScanWriter) EachIssue(ctx context.Context, orgID int64, fn func(*StoredIssue) error) error {
	rows, err := w.tx.QueryContext(ctx, w.s.q(`SELECT id, fingerprint, page_id, viewport_width, audit, rule, element_hash, target_hash, state
		FROM issues WHERE organisation_id = ?`), orgID)
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

// AddIssues stores new issues, open, first and last seen in this scan (one
// scan present), with the ids given (from IssueIDs).
func (w *ScanWriter) AddIssues(ctx context.Context, ids []int64, issues []NewIssue) error {
	rows := make([][]any, len(issues))
	for i, is := range issues {
		rows[i] = []any{ids[i], is.Fingerprint, is.OrgID, is.PageID, is.Width, is.Audit, is.Rule, is.Impact,
			is.ElementHTML, int64(is.ElementHash), is.Target, int64(is.TargetHash), is.HelpURL, is.WCAG,
			StateOpen, w.scanID, w.at, w.scanID, w.at, 0, 1}
	}
	return w.insert(ctx, "issues", []string{"id", "fingerprint", colOrganisation, "page_id", "viewport_width", colAudit, "rule", "impact",
		"element_html", "element_hash", "target", "target_hash", "help_url", "wcag",
		"state", "first_seen_scan_id", "first_seen_at", "last_seen_scan_id", "last_seen_at", "reopened", "scans_present"}, rows)
}

// Fix marks open issues fixed in this scan, for a reason (ReasonFixed or
// ReasonPageNotScanned).
func (w *ScanWriter) Fix(ctx context.Context, ids []int64, reason string) error {
	return w.updateIDs(ctx, "issues", `UPDATE issues SET state = 'fixed', fixed_in_scan_id = ?, fixed_at = ?, fixed_reason = ? WHERE state = 'open' AND id IN `,
		[]any{w.scanID, w.at, reason}, ids)
}

// Reopen marks fixed issues open again, counting the reopening.
func (w *ScanWriter) Reopen(ctx context.Context, ids []int64) error {
	return w.updateIDs(ctx, "issues", `UPDATE issues SET state = 'open', fixed_in_scan_id = NULL, fixed_at = NULL, fixed_reason = NULL,
		reopened = reopened + 1 WHERE state = 'fixed' AND id IN `, nil, ids)
}

// SetElement records an issue's element as this scan shows it: matched on
// its target, its HTML changed.
func (w *ScanWriter) SetElement(ctx context.Context, id int64, html string, hash uint64) error {
	if _, err := w.exec(ctx, `UPDATE issues SET element_html = ?, element_hash = ? WHERE id = ?`, html, int64(hash), id); err != nil {
		return fmt.Errorf("store: updating an issue's element: %w", err)
	}
	return nil
}

// AddPresences records that this scan showed the issues.
func (w *ScanWriter) AddPresences(ctx context.Context, ids []int64) error {
	rows := make([][]any, len(ids))
	for i, id := range ids {
		rows[i] = []any{w.scanID, id}
	}
	return w.insert(ctx, "presences", []string{"scan_id", "issue_id"}, rows)
}

// FinishPresences sets last seen and the count of scans present on every
// issue this scan showed, in one statement; issues it added already say
// so, and are not written twice.
func (w *ScanWriter) FinishPresences(ctx context.Context) error {
	_, err := w.exec(ctx, `UPDATE issues SET last_seen_scan_id = ?, last_seen_at = ?, scans_present = scans_present + 1
		WHERE id IN (SELECT issue_id FROM presences WHERE scan_id = ?) AND last_seen_scan_id <> ?`, w.scanID, w.at, w.scanID, w.scanID)
	if err != nil {
		return fmt.Errorf("store: updating the issues this scan showed: %w", err)
	}
	return nil
}

// TemplateKey identifies a template within an organisation.
type TemplateKey struct {
	Audit, Rule string
	ElementHash uint64
}

// Templates returns an organisation's stored templates, by key.
func (w *ScanWriter) Templates(ctx context.Context, orgID int64) (map[TemplateKey]int64, error) {
	rows, err := w.tx.QueryContext(ctx, w.s.q(`SELECT id, audit, rule, element_hash FROM templates WHERE organisation_id = ?`), orgID)
	if err != nil {
		return nil, fmt.Errorf("store: reading templates: %w", err)
	}
	defer func() { _ = rows.Close() }() // read only
	out := map[TemplateKey]int64{}
	for rows.Next() {
		var id, h int64
		var k TemplateKey
		if err := rows.Scan(&id, &k.Audit, &k.Rule, &h); err != nil {
			return nil, fmt.Errorf("store: reading templates: %w", err)
		}
		k.ElementHash = uint64(h)
		out[k] = id
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: reading templates: %w", err)
	}
	return out, nil
}

// TemplateIDs reserves ids for n new templates and returns the first.
func (w *ScanWriter) TemplateIDs(n int) int64 { return w.alloc("templates", n) }

// NewTemplate is a template seen for the first time.
type NewTemplate struct {
	ID          int64
	OrgID       int64
	Key         TemplateKey
	ElementHTML string
}

// AddTemplates stores new templates.
func (w *ScanWriter) AddTemplates(ctx context.Context, ts []NewTemplate) error {
	rows := make([][]any, len(ts))
	for i, t := range ts {
		rows[i] = []any{t.ID, t.OrgID, t.Key.Audit, t.Key.Rule, int64(t.Key.ElementHash), t.ElementHTML}
	}
	return w.insert(ctx, "templates", []string{"id", colOrganisation, colAudit, "rule", "element_hash", "element_html"}, rows)
}

// TemplateCount is a template's pages and instances in this scan.
type TemplateCount struct {
	TemplateID int64
	Pages      int
	Instances  int64
}

// AddTemplateCounts records templates' figures in this scan.
func (w *ScanWriter) AddTemplateCounts(ctx context.Context, cs []TemplateCount) error {
	rows := make([][]any, len(cs))
	for i, c := range cs {
		rows[i] = []any{w.scanID, c.TemplateID, c.Pages, c.Instances}
	}
	return w.insert(ctx, "template_scans", []string{"scan_id", "template_id", "pages", "instances"}, rows)
}

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
		new_issues, fixed_issues, fixed_page_not_scanned, reopened_issues, unstable_issues, open_issues, completeness, completeness_reason)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		f.OrgID, w.scanID, f.Schedule, w.at, f.BaseURLs, f.Pages, f.Issues, f.Elements,
		f.ByImpact[0], f.ByImpact[1], f.ByImpact[2], f.ByImpact[3], f.ByImpact[4], byAudit, f.WeightedPerPage, score,
		f.New, f.Fixed, f.FixedPageNotScanned, f.Reopened, f.Unstable, f.Open,
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
	if _, err := w.exec(ctx, countIssuesInto+` WHERE organisation_id = ? GROUP BY organisation_id`, orgID); err != nil {
		return fmt.Errorf("store: counting issues: %w", err)
	}
	return nil
}

// countIssuesInto fills organisation_issue_counts from issues; a WHERE
// clause and GROUP BY organisation_id follow it.
const countIssuesInto = `INSERT INTO organisation_issue_counts (organisation_id, open_issues, fixed_issues, reopened_open, reopened_fixed)
	SELECT organisation_id,
		SUM(CASE WHEN state = 'open' THEN 1 ELSE 0 END),
		SUM(CASE WHEN state = 'fixed' THEN 1 ELSE 0 END),
		SUM(CASE WHEN state = 'open' AND reopened > 0 THEN 1 ELSE 0 END),
		SUM(CASE WHEN state = 'fixed' AND reopened > 0 THEN 1 ELSE 0 END)
	FROM issues`

// insert writes rows with multi-row INSERTs of at most maxParams values.
func (w *ScanWriter) insert(ctx context.Context, table string, columns []string, rows [][]any) error {
	if len(rows) == 0 {
		return nil
	}
	per := max(1, maxParams/len(columns))
	one := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(columns)), ", ") + ")"
	head := "INSERT INTO " + table + " (" + strings.Join(columns, ", ") + ") VALUES "
	args := make([]any, 0, per*len(columns))
	for start := 0; start < len(rows); start += per {
		end := min(start+per, len(rows))
		args = args[:0]
		for _, r := range rows[start:end] {
			args = append(args, r...)
		}
		query := head + strings.TrimSuffix(strings.Repeat(one+", ", end-start), ", ")
		if _, err := w.exec(ctx, query, args...); err != nil {
			return fmt.Errorf("store: writing %s: %w", table, err)
		}
	}
	return nil
}

// updateIDs runs an UPDATE of table whose WHERE clause ends in "id IN ",
// over ids in chunks; each id must name a row it changes.
func (w *ScanWriter) updateIDs(ctx context.Context, table, prefix string, setArgs []any, ids []int64) error {
	per := maxParams - len(setArgs)
	args := make([]any, 0, maxParams)
	for start := 0; start < len(ids); start += per {
		end := min(start+per, len(ids))
		args = append(args[:0], setArgs...)
		for _, id := range ids[start:end] {
			args = append(args, id)
		}
		query := prefix + "(" + strings.TrimSuffix(strings.Repeat("?, ", end-start), ", ") + ")"
		res, err := w.exec(ctx, query, args...)
		if err != nil {
			return fmt.Errorf("store: updating %s: %w", table, err)
		}
		if n, err := res.RowsAffected(); err == nil && n != int64(end-start) {
			return fmt.Errorf("store: updating %s: %d of %d changed (the store changed under the writer)", table, n, end-start)
		}
	}
	return nil
}
