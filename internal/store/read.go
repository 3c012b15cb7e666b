package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/diff"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// ErrNotFound is returned (wrapped, naming what) for an organisation or an
// issue the store does not hold.
var ErrNotFound = errors.New("not in the issue history")

// impactNames are the leaderboard's impact classes, in the order of the
// organisation_scans columns: axe-core's impacts, then other.
var impactNames = append(results.Impacts(), "other")

// HasScan reports whether a scan (by uid) is in the store.
func (s *Store) HasScan(ctx context.Context, uid string) (bool, error) {
	var one int
	err := s.db.QueryRowContext(ctx, s.q(`SELECT 1 FROM scans WHERE uid = ?`), uid).Scan(&one)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("store: looking up scan %q: %w", uid, err)
	}
	return true, nil
}

// MaxNamespaces bounds the namespaces one read may name.
const MaxNamespaces = 1000

// ErrNoNamespace is returned by a read that names no namespace: every read
// is scoped to the namespaces whose scans its caller may get, so an
// unscoped read is a caller's mistake, never "everything".
var ErrNoNamespace = errors.New("store: a read must name the namespaces it may see")

// inNamespaces is the condition "col IN (namespaces)" and its arguments.
func inNamespaces(col string, namespaces []string) (string, []any, error) {
	if len(namespaces) == 0 {
		return "", nil, ErrNoNamespace
	}
	if len(namespaces) > MaxNamespaces {
		return "", nil, fmt.Errorf("store: %d namespaces, more than the %d one read may name", len(namespaces), MaxNamespaces)
	}
	args := make([]any, len(namespaces))
	for i, ns := range namespaces {
		args[i] = ns
	}
	return col + " IN (" + strings.TrimSuffix(strings.Repeat("?, ", len(namespaces)), ", ") + ")", args, nil
}

// organisationIDs resolves an organisation's name in the namespaces (one
// id per namespace that has it), oldest first.
func (s *Store) organisationIDs(ctx context.Context, namespaces []string, name string) ([]int64, error) {
	cond, args, err := inNamespaces("namespace", namespaces)
	if err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT id FROM organisations WHERE name = ? AND `+cond+` ORDER BY id`), append([]any{name}, args...)...)
	if err != nil {
		return nil, fmt.Errorf("store: looking up organisation %q: %w", name, err)
	}
	defer func() { _ = rows.Close() }() // read only
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("store: looking up organisation %q: %w", name, err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: looking up organisation %q: %w", name, err)
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("organisation %q: %w", name, ErrNotFound)
	}
	return ids, nil
}

// idList is "col IN (ids)" and its arguments.
func idList(col string, ids []int64) (string, []any) {
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	return col + " IN (" + strings.TrimSuffix(strings.Repeat("?, ", len(ids)), ", ") + ")", args
}

// issueColumns are what an Issue is read from; issueJoins the joins they need.
const (
	issueColumns = `i.id, i.organisation_id, i.fingerprint, i.state, o.name, p.url, i.viewport_width, i.audit, i.rule, i.impact,
		i.element_html, i.target, i.help_url, i.wcag,
		fs.namespace, fs.name, i.first_seen_at, ls.namespace, ls.name, i.last_seen_at,
		xs.namespace, xs.name, i.fixed_at, i.fixed_reason, i.reopened, i.scans_present`
	issueJoins = ` FROM issues i
		JOIN organisations o ON o.id = i.organisation_id
		JOIN pages p ON p.id = i.page_id
		JOIN scans fs ON fs.id = i.first_seen_scan_id
		JOIN scans ls ON ls.id = i.last_seen_scan_id
		LEFT JOIN scans xs ON xs.id = i.fixed_in_scan_id`
)

type issueRow struct {
	id, orgID int64
	issue     Issue
}

func scanIssue(sc interface{ Scan(...any) error }) (issueRow, error) {
	var r issueRow
	is := &r.issue
	var wcag string
	var firstAt, lastAt int64
	var fixNS, fixName, reason sql.NullString
	var fixedAt sql.NullInt64
	var fsNS, fsName, lsNS, lsName string
	err := sc.Scan(&r.id, &r.orgID, &is.Fingerprint, &is.State, &is.Organisation, &is.Page, &is.ViewportWidth, &is.Audit, &is.Rule, &is.Impact,
		&is.ElementHTML, &is.Target, &is.HelpURL, &wcag,
		&fsNS, &fsName, &firstAt, &lsNS, &lsName, &lastAt, &fixNS, &fixName, &fixedAt, &reason, &is.Reopened, &is.ScansPresent)
	if err != nil {
		return r, err
	}
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

func scanName(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

func unix(sec int64) time.Time { return time.Unix(sec, 0).UTC() }

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
		ids, err := s.organisationIDs(ctx, f.Namespaces, f.Organisation)
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
		page.Issues = append(page.Issues, r.issue)
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
		CASE WHEN EXISTS (SELECT 1 FROM presences p WHERE p.scan_id = os.scan_id AND p.issue_id = ?) THEN 1 ELSE 0 END
		FROM organisation_scans os JOIN scans s ON s.id = os.scan_id
		WHERE os.organisation_id = ? AND os.finished_at >= ? ORDER BY os.finished_at, os.scan_id`),
		r.id, r.orgID, r.issue.FirstSeenAt.Unix())
	if err != nil {
		return IssueDetail{}, fmt.Errorf("store: reading issue %q's scans: %w", fingerprint, err)
	}
	defer func() { _ = rows.Close() }() // read only
	for rows.Next() {
		var ns, name string
		var at int64
		var present int
		if err := rows.Scan(&ns, &name, &at, &present); err != nil {
			return IssueDetail{}, fmt.Errorf("store: reading issue %q's scans: %w", fingerprint, err)
		}
		d.Scans = append(d.Scans, IssueScan{Scan: scanName(ns, name), FinishedAt: unix(at), Present: present == 1})
	}
	if err := rows.Err(); err != nil {
		return IssueDetail{}, fmt.Errorf("store: reading issue %q's scans: %w", fingerprint, err)
	}
	return d, nil
}

// trendColumns are what a TrendPoint is read from (os: organisation_scans, s: scans).
const trendColumns = `s.namespace, s.name, os.schedule, os.finished_at, os.base_urls, os.pages, os.issues, os.elements,
	os.critical, os.serious, os.moderate, os.minor, os.other, os.by_audit, os.weighted_per_page, os.score,
	os.new_issues, os.fixed_issues, os.fixed_page_not_scanned, os.reopened_issues, os.unstable_issues, os.open_issues,
	s.cwac_image_digest, s.axe_core_version, s.chrome_version, os.completeness, os.completeness_reason`

func scanTrendPoint(sc interface{ Scan(...any) error }) (TrendPoint, error) {
	var p TrendPoint
	var ns, name, byAudit string
	var at int64
	var imp [5]int64
	var score sql.NullFloat64
	err := sc.Scan(&ns, &name, &p.Schedule, &at, &p.BaseURLs, &p.Pages, &p.Issues, &p.Elements,
		&imp[0], &imp[1], &imp[2], &imp[3], &imp[4], &byAudit, &p.WeightedPerPage, &score,
		&p.New, &p.Fixed, &p.FixedPageNotScanned, &p.Reopened, &p.Unstable, &p.Open,
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
	ids, err := s.organisationIDs(ctx, namespaces, organisation)
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

type scanFunc func(dest ...any) error

func (f scanFunc) Scan(dest ...any) error { return f(dest...) }

// Templates returns an organisation's templates in its latest scan in the
// namespace, most pages first, at most limit (1..MaxLimit).
func (s *Store) Templates(ctx context.Context, namespace, organisation string, limit int) ([]Template, error) {
	if limit < 1 || limit > MaxLimit {
		return nil, fmt.Errorf("limit %d is not between 1 and %d", limit, MaxLimit)
	}
	ids, err := s.organisationIDs(ctx, []string{namespace}, organisation)
	if err != nil {
		return nil, err
	}
	id := ids[0]
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT t.audit, t.rule, t.element_html, ts.pages, ts.instances
		FROM template_scans ts JOIN templates t ON t.id = ts.template_id
		WHERE t.organisation_id = ? AND ts.scan_id = (SELECT l.scan_id FROM organisation_scans l
			WHERE l.organisation_id = ? ORDER BY l.finished_at DESC, l.scan_id DESC LIMIT 1)
		ORDER BY ts.pages DESC, ts.instances DESC, t.id LIMIT ?`), id, id, limit)
	if err != nil {
		return nil, fmt.Errorf("store: reading organisation %q's templates: %w", organisation, err)
	}
	defer func() { _ = rows.Close() }() // read only
	out := []Template{}
	for rows.Next() {
		var t Template
		if err := rows.Scan(&t.Audit, &t.Rule, &t.ElementHTML, &t.Pages, &t.Instances); err != nil {
			return nil, fmt.Errorf("store: reading organisation %q's templates: %w", organisation, err)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: reading organisation %q's templates: %w", organisation, err)
	}
	return out, nil
}

// encodeCounts stores a map of counts as a JSON object (sorted keys).
func encodeCounts(m map[string]int64) (string, error) {
	if m == nil {
		m = map[string]int64{}
	}
	b, err := json.Marshal(m)
	if err != nil {
		return "", fmt.Errorf("store: encoding counts: %w", err)
	}
	return string(b), nil
}

func decodeCounts(s string) (map[string]int64, error) {
	m := map[string]int64{}
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return nil, fmt.Errorf("by_audit is not a JSON object of counts: %w", err)
	}
	return m, nil
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
