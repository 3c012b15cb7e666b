// Command historycase runs one of bench's issue-history writes in a process
// of its own, so that its time and peak memory (VmHWM) are its alone:
//
//	historycase ingest DSN RESULTS-DIR   # ingest.Ingest of the directory as one scan
//	historycase again DSN RESULTS-DIR    # the same, as the next week's scan of a store ingest filled
//	historycase events DSN RESULTS-DIR   # the same ingest, then the scan's changes sent as issue events to a receiver on loopback
//	historycase import DSN RESULTS-DIR   # the same ingest by the mcp-server binary's import command ($HISTORYCASE_MCP_SERVER)
//	historycase bulk DSN RESULTS-DIR     # the baseline: the same issue rows, read by the same reader, bulk inserted into one bare table
//	                                     # (SQLite: multi-row INSERTs; PostgreSQL: one COPY)
//	historycase prepared DSN RESULTS-DIR # SQLite's other baseline: the same, one prepared INSERT per row, in one transaction
//	historycase copy DSN RESULTS-DIR     # the issues a store holds, copied inside the engine into a table of their columns alone
//	historycase copy-indexed DSN RESULTS-DIR # the same, into a table with the issues' key and indexes (see copy.go)
//
// It prints {"wall", "answer", "peak_kib"} as JSON.
package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/a11y-dev/cwac-operator/hack/bench/caseprofile"
	"github.com/a11y-dev/cwac-operator/internal/ingest"
	"github.com/a11y-dev/cwac-operator/internal/issueevents"
	"github.com/a11y-dev/cwac-operator/internal/notify"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

type childResult struct {
	Wall    time.Duration `json:"wall"`
	Answer  string        `json:"answer"`
	PeakKiB int64         `json:"peak_kib"`
}

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: historycase ingest|again|import|events|bulk|prepared|copy|copy-indexed DSN RESULTS-DIR")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2], os.Args[3]); err != nil {
		fmt.Fprintln(os.Stderr, "historycase:", err)
		os.Exit(1)
	}
}

func run(name, dsn, dir string) error {
	ctx := context.Background()
	if name == caseImport { // another process's work: nothing of this one's to profile
		res, err := importCase(ctx, dsn, dir)
		if err != nil {
			return err
		}
		return json.NewEncoder(os.Stdout).Encode(res)
	}
	st, err := store.Open(ctx, dsn)
	if err != nil {
		return err
	}
	defer func() { _ = st.Close() }()
	stop, err := caseprofile.Start("HISTORYCASE_CPUPROFILE")
	if err != nil {
		return err
	}
	defer stop()
	stopHeap, err := caseprofile.StartHeap("HISTORYCASE_HEAPPROFILE")
	if err != nil {
		return err
	}
	defer stopHeap()
	start := time.Now()
	var answer string
	switch name {
	case "ingest", "again":
		uid := benchScan
		if name == "again" {
			uid = benchScan + "-next"
		}
		res, err := ingestScan(ctx, st, dir, uid)
		if err != nil {
			return err
		}
		answer = fmt.Sprintf("%d rows, %d new issues, %d still open", res.IssueRows, res.New, res.StillOpen)
	case "events":
		if answer, err = ingestThenEvents(ctx, st, dir); err != nil {
			return err
		}
	case "bulk":
		n, err := bulk(ctx, dsn, st.Engine(), dir)
		if err != nil {
			return err
		}
		answer = fmt.Sprintf("%d rows", n)
	case "prepared":
		n, err := prepared(ctx, dsn, st.Engine(), dir)
		if err != nil {
			return err
		}
		answer = fmt.Sprintf("%d rows", n)
	case "copy", "copy-indexed":
		n, took, err := copyIssues(ctx, dsn, st.Engine(), name == "copy-indexed")
		if err != nil {
			return err
		}
		return json.NewEncoder(os.Stdout).Encode(childResult{Wall: took, Answer: fmt.Sprintf("%d issues copied", n), PeakKiB: peakKiB()})
	default:
		return fmt.Errorf("no case %q", name)
	}
	return json.NewEncoder(os.Stdout).Encode(childResult{Wall: time.Since(start), Answer: answer, PeakKiB: peakKiB()})
}

// bulkRows is SQLite's baseline batch: multi-row INSERTs, as the store's
// own there.
const bulkRows = 500

// bulkColumns are the baseline table's: the cells an issue keeps, each a
// TEXT column (no index), in eachIssueRow's order.
var bulkColumns = []string{"url", "viewport", "rule", "impact", "html", "target", "help_url"}

// bulkTable makes the baseline's table.
var bulkTable = "CREATE TABLE bench_rows (" + strings.Join(bulkColumns, " TEXT, ") + " TEXT)"

// bulkRow is one row's placeholders in the SQLite baselines' INSERTs.
var bulkRow = "(" + strings.TrimSuffix(strings.Repeat("?, ", len(bulkColumns)), ", ") + ")"

// bareTable makes the baselines' table on a SQLite connection of its own
// and begins the transaction they insert in; done rolls back what was not
// committed and closes the connection.
func bareTable(ctx context.Context, driver, source string) (tx *sql.Tx, done func(), err error) {
	db, err := sql.Open(driver, source)
	if err != nil {
		return nil, nil, err
	}
	if _, err := db.ExecContext(ctx, bulkTable); err != nil {
		_ = db.Close()
		return nil, nil, err
	}
	if tx, err = db.BeginTx(ctx, nil); err != nil {
		_ = db.Close()
		return nil, nil, err
	}
	return tx, func() { _ = tx.Rollback(); _ = db.Close() }, nil
}

// bulk reads the issue rows with the same reader and inserts the cells an
// issue keeps into one table with no index, in one transaction: on
// SQLite with multi-row INSERTs, on PostgreSQL with one COPY.
func bulk(ctx context.Context, dsn string, engine store.Engine, dir string) (int, error) {
	driver, source, err := store.SQLSource(dsn) // a connection of its own beside the store's
	if err != nil {
		return 0, err
	}
	if engine == store.Postgres {
		return bulkCopy(ctx, source, dir)
	}
	tx, done, err := bareTable(ctx, driver, source)
	if err != nil {
		return 0, err
	}
	defer done()
	width := len(bulkColumns)
	row := bulkRow + ", "
	args := make([]any, 0, bulkRows*width)
	flush := func() error {
		if len(args) == 0 {
			return nil
		}
		_, err := tx.ExecContext(ctx, "INSERT INTO bench_rows VALUES "+strings.TrimSuffix(strings.Repeat(row, len(args)/width), ", "), args...)
		args = args[:0]
		return err
	}
	n, err := eachIssueRow(ctx, dir, func(cells []any) error {
		args = append(args, cells...)
		if len(args) == bulkRows*width {
			return flush()
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	if err := flush(); err != nil {
		return 0, err
	}
	return n, tx.Commit()
}

// prepared is SQLite's baseline as a bulk load is usually written there:
// one prepared INSERT, run once per row, in one transaction, into the
// same bare table as bulk's.
func prepared(ctx context.Context, dsn string, engine store.Engine, dir string) (int, error) {
	if engine != store.SQLite {
		return 0, fmt.Errorf("the prepared baseline is SQLite's; PostgreSQL's is bulk (COPY)")
	}
	driver, source, err := store.SQLSource(dsn)
	if err != nil {
		return 0, err
	}
	tx, done, err := bareTable(ctx, driver, source)
	if err != nil {
		return 0, err
	}
	defer done()
	stmt, err := tx.PrepareContext(ctx, "INSERT INTO bench_rows VALUES "+bulkRow)
	if err != nil {
		return 0, err
	}
	defer func() { _ = stmt.Close() }()
	n, err := eachIssueRow(ctx, dir, func(cells []any) error {
		_, err := stmt.ExecContext(ctx, cells...)
		return err
	})
	if err != nil {
		return 0, err
	}
	return n, tx.Commit()
}

// bulkCopy is PostgreSQL's baseline: the rows read in one goroutine and
// copied in one COPY as they come.
func bulkCopy(ctx context.Context, source, dir string) (int, error) {
	conn, err := pgx.Connect(ctx, source)
	if err != nil {
		return 0, err
	}
	defer func() { _ = conn.Close(ctx) }()
	if _, err := conn.Exec(ctx, bulkTable); err != nil {
		return 0, err
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		return 0, err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	rows := make(chan []any, 1024)
	readCtx, stop := context.WithCancel(ctx)
	defer stop()
	var n int
	var readErr error
	go func() {
		defer close(rows)
		n, readErr = eachIssueRow(readCtx, dir, func(cells []any) error {
			select {
			case rows <- slices.Clone(cells):
				return nil
			case <-readCtx.Done():
				return readCtx.Err()
			}
		})
	}()
	copied, err := tx.CopyFrom(ctx, pgx.Identifier{"bench_rows"}, bulkColumns, pgx.CopyFromFunc(func() ([]any, error) {
		return <-rows, nil // nil once the reader is done: the copy's end
	}))
	stop()
	for range rows { // let the reader finish before reading what it set
	}
	switch {
	case err != nil: // the reader's error then is only that it was stopped
		return 0, err
	case readErr != nil:
		return 0, readErr
	case copied != int64(n):
		return 0, fmt.Errorf("%d of %d rows copied", copied, n)
	}
	return n, tx.Commit(ctx)
}

// eachIssueRow gives fn the cells of each issue row of the results, one
// per bulkColumns (a slice fn must not keep), and returns how many there
// were.
func eachIssueRow(ctx context.Context, dir string, fn func(cells []any) error) (int, error) {
	n := 0
	cells := make([]any, 0, len(bulkColumns))
	v := visitor(func(file string, r *results.Reader, row results.Row) error {
		if _, ok := results.AuditName(file); !ok || !r.Has("num_issues") {
			return nil
		}
		if c, _ := results.ParseNumIssues(row.Get("num_issues")); c <= 0 {
			return nil
		}
		n++
		cells = append(cells[:0], row.Get("url"), row.Get("viewport_size"), row.Get("id"), row.Get("impact"), row.Get("html"), row.Get("target"), row.Get("helpUrl"))
		return fn(cells)
	})
	err := results.Walk(ctx, os.DirFS(dir), v)
	return n, err
}

type visitor func(file string, r *results.Reader, row results.Row) error

func (v visitor) VisitRow(file string, r *results.Reader, row results.Row) error {
	return v(file, r, row)
}

// peakKiB reads VmHWM from /proc/self/status (0 where there is none).
func peakKiB() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

// bench names the benchmark's namespace, holder and receiver; benchScan
// its one scan.
const (
	bench     = "bench"
	benchScan = "bench-1m"
)

// ingestScan records the results directory as a scan of the benchmark's
// (benchScan, or the next week's).
func ingestScan(ctx context.Context, st *store.Store, dir, uid string) (ingest.Result, error) {
	return ingest.Ingest(ctx, st, os.DirFS(dir), store.Scan{UID: uid, Namespace: bench, Name: uid,
		FinishedAt: time.Now(), Phase: "Complete", ResultsPath: dir}, ingest.Options{Holder: bench})
}

// ingestThenEvents records the scan with a receiver of issue events
// configured, then sends it every change the scan made (each opened), as
// the history's writer does after recording, to a receiver on loopback
// that reads and drops each batch.
func ingestThenEvents(ctx context.Context, st *store.Store, dir string) (string, error) {
	if _, err := st.IssueEventsDue(ctx, bench, 1); err != nil {
		return "", err
	}
	res, err := ingestScan(ctx, st, dir, benchScan)
	if err != nil {
		return "", err
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	policy := urlpolicy.New(urlpolicy.Config{AllowCIDRs: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}, Resolver: net.DefaultResolver})
	s, err := issueevents.New(issueevents.Config{Store: st, HTTP: notify.NewSender(policy, true, time.Minute), Retry: issueevents.DefaultRetry,
		Receivers: []issueevents.Receiver{{Name: bench, URL: srv.URL, Key: []byte("bench-key")}}})
	if err != nil {
		return "", err
	}
	if _, err := s.Pass(ctx); err != nil {
		return "", err
	}
	ds, err := st.ScanIssueEvents(ctx, []string{bench}, benchScan)
	if err != nil || len(ds) != 1 || ds[0].State != store.EventsSent {
		return "", fmt.Errorf("the scan's issue events were not all sent: %+v, %v", ds, err)
	}
	return fmt.Sprintf("%d rows, %d changes in %d batches", res.IssueRows, ds[0].Changes, ds[0].Batches), nil
}
