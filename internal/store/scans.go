package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Scan describes one finished scan, as the ingest records it.
type Scan struct {
	// UID identifies the scan: the CwacScan's metadata.uid, or for an
	// imported results directory a name derived from it.
	UID       string
	Namespace string
	Name      string
	// Schedule is the CwacScanSchedule that created the scan ("" for none).
	Schedule   string
	FinishedAt time.Time
	Phase      string
	// ResultsPath is the results directory on the results volume.
	ResultsPath string
	Engine      EngineVersions
}

// EngineVersions is what produced a scan's results, where known: a change
// marks the trend, so a jump caused by an axe-core upgrade is not read as
// a regression.
type EngineVersions struct {
	CWACImageDigest string
	AxeCore         string
	Chrome          string
}

// ErrScanExists is returned by BeginScan for a scan already in the store:
// ingesting it again adds nothing.
var ErrScanExists = errors.New("the scan is already in the store")

// ErrOutOfOrder is returned (wrapped, naming the organisation) when a scan
// finished before a scan of one of its organisations already in the store:
// transitions are computed against the previous scan, so history is
// written oldest first.
var ErrOutOfOrder = errors.New("the scan is older than one already in the store for the same organisation")

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

// ScanWriter writes one scan in one transaction: everything or, after
// Rollback, a failed Commit or a crash, nothing. Only internal/ingest
// drives it; it holds the SQL, ingest the rules. Not safe for concurrent
// use.
type ScanWriter struct {
	s *Store
	// conn is the connection the transaction runs on: PostgreSQL's rows
	// are copied on it (copyEach), inside the transaction.
	conn   *sql.Conn
	tx     *sql.Tx
	scanID int64
	at     int64 // the scan's finished_at, seconds
	// namespace is the scan's: its organisations are that namespace's.
	namespace string
	next      map[string]int64
	// prepared are SQLite's statements of full chunks (insert,
	// updateIDs), by query: a large scan runs the same one thousands of
	// times, which SQLite would otherwise parse each time (PostgreSQL's
	// driver keeps its own prepared statements). The transaction closes
	// them.
	prepared map[string]*sql.Stmt
	// issuesBefore is the issues table's last id when the scan began: about
	// how many issues its indexes held.
	issuesBefore int64
	// issuesAdded counts the issues this scan added.
	issuesAdded int64
	// orgsBefore is the organisations table's last id when the scan
	// began: those after it are the scan's own (AddedOrganisation).
	orgsBefore int64
	// fingerprintIndex is the definition of the issues' fingerprint index
	// while this scan has set it aside (SQLite, a scan adding many issues),
	// to build again at Commit; "" while it stands.
	fingerprintIndex string
}

// maxScanField bounds each of a scan's descriptive fields.
const maxScanField = 4096

// idTables are the tables whose ids the writer assigns.
var idTables = []string{"scans", "organisations", tablePages, "issues", "templates"}

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
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: starting the scan's transaction: %w", err)
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		_ = conn.Close() // the error that matters is BeginTx's
		return nil, fmt.Errorf("store: starting the scan's transaction: %w", err)
	}
	w := &ScanWriter{s: s, conn: conn, tx: tx, at: scan.FinishedAt.Unix(), namespace: scan.Namespace, next: map[string]int64{}}
	if err := w.begin(ctx, scan, holder); err != nil {
		w.Rollback() // nothing was written; the begin error says why
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
	w.issuesBefore = w.next["issues"] - 1
	w.orgsBefore = w.next["organisations"] - 1
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

// execChunk runs a chunk's statement (one of chunkRows' sizes), on SQLite
// prepared once per query.
func (w *ScanWriter) execChunk(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if w.s.engine != SQLite {
		return w.exec(ctx, query, args...)
	}
	st, ok := w.prepared[query]
	if !ok {
		var err error
		if st, err = w.tx.PrepareContext(ctx, w.s.q(query)); err != nil {
			return nil, err
		}
		if w.prepared == nil {
			w.prepared = map[string]*sql.Stmt{}
		}
		w.prepared[query] = st
	}
	return st.ExecContext(ctx, args...)
}

// ScanID is the scan's id in the store.
func (w *ScanWriter) ScanID() int64 { return w.scanID }

// Commit makes the scan's writes visible, all at once, once the new
// issues' sightings and range are written and the issues' fingerprint
// index is built again if the scan set it aside (a duplicate fingerprint
// fails the commit, as its insert would have); then, on PostgreSQL, a
// scan that grew the issues by a tenth gathers the tables' statistics
// (gatherStatistics).
func (w *ScanWriter) Commit(ctx context.Context) error {
	if err := w.newIssuesShown(ctx); err != nil {
		return err
	}
	if err := w.restoreFingerprintIndex(ctx); err != nil {
		return err
	}
	err := w.tx.Commit()
	_ = w.conn.Close() // back to the pool; the commit's error is what matters
	if err != nil {
		return fmt.Errorf("store: committing the scan: %w", err)
	}
	w.gatherStatistics(ctx)
	return nil
}

// Rollback discards the scan's writes (after Commit it does nothing).
func (w *ScanWriter) Rollback() {
	_ = w.tx.Rollback() // sql.ErrTxDone after a commit: nothing to undo
	_ = w.conn.Close()  // sql.ErrConnDone after a commit: already back in the pool
}

// OrganisationScan is one organisation's figures in one scan.
type OrganisationScan struct {
	Organisation string
	Sector       string
	Figures      TrendPoint
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
