package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing/fstest"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // creating the bench's PostgreSQL databases

	"github.com/a11y-dev/cwac-operator/hack/bench/binarycase"
	"github.com/a11y-dev/cwac-operator/internal/ingest"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/store"
)

// historyOptions size the issue-history figures.
type historyOptions struct {
	orgs, scans, calls int
	noPostgres         bool
}

// childMemoryLimit is the soft memory limit the ingest runs under: what
// the MCP server gives itself (80%) in the chart's default 256 MiB limit.
const childMemoryLimit = "205MiB"

// historyEngine is one engine the figures are taken on: fresh(name)
// returns the DSN of a new, empty database; serverCPU, for an engine
// with a server of its own, the CPU time it has spent so far.
type historyEngine struct {
	name      string
	fresh     func(name string) (string, error)
	size      func(dsn string) (int64, error)
	serverCPU func() (time.Duration, error)
}

// historyFigures measures the issue history on SQLite and (when
// hack/postgres.sh can start it) PostgreSQL: ingest of the big scan
// beside a bare bulk insert of the same rows, in their own processes (peak
// RSS), then the read paths on a store of orgs × weekly scans.
// historyCases are the history's write cases, each in a process of its
// own: the bare bulk insert (the baseline), on SQLite also the same rows
// by one prepared INSERT each (the baseline as a bulk load is usually
// written there), the ingest, the same rows again as the next week's
// scan (every issue stored), the same ingest by the mcp-server binary's
// import command (caseImport), and of the same rows a few to a page
// (caseImportPages), the issues ingest stored copied inside the
// engine without and with the issues' key and indexes (caseCopy,
// caseCopyIndexed), and the ingest followed by the scan's issue events
// sent to a receiver on loopback.
func historyCases(engine string) []string {
	cases := []string{"bulk", "ingest", caseImport, caseImportPages, caseAgain, caseCopy, caseCopyIndexed, "events"}
	if engine == "sqlite" {
		return slices.Insert(cases, 1, "prepared")
	}
	return cases
}

// caseImport is the ingest by `mcp-server import`, the binary itself in a
// process of its own: its peak counts the binary's own pages it touched
// (shared with the page cache, given back under pressure) beside the
// ingest's heap.
const caseImport = "import"

// caseImportPages is caseImport of the same rows a few to a page
// (dataset.pagesDir): the ingest's tables of pages grow with them.
const caseImportPages = "import-pages"

// caseAgain is the next week's scan: it writes into the store ingest filled.
const caseAgain = "again"

// caseCopy and caseCopyIndexed copy the issues of the store ingest filled
// inside the engine, into a table of their columns alone and into one with
// the issues' key and indexes: what the schema itself costs a write of
// these rows, apart from reading and matching them.
const (
	caseCopy        = "copy"
	caseCopyIndexed = "copy-indexed"
)

func historyFigures(d *dataset, o historyOptions) error {
	engines := []historyEngine{sqliteEngine(d)}
	if !o.noPostgres {
		// A server already running (a developer's, the tests') is left
		// running; one started here is stopped at the end.
		running := exec.Command("./hack/postgres.sh", "dsn").Run() == nil
		pg, err := postgresEngine()
		if err != nil {
			fmt.Printf("\nPostgreSQL: not measured (%v)\n", err)
		} else {
			engines = append(engines, pg)
			if !running {
				defer func() { _ = exec.Command("./hack/postgres.sh", "stop").Run() }()
			}
		}
	}
	bin := filepath.Join(d.root, "historycase")
	if err := buildTool(bin, "./bench/historycase"); err != nil {
		return fmt.Errorf("building historycase: %w", err)
	}
	mcpServer := filepath.Join(d.root, "mcp-server")
	if err := buildProduct(mcpServer, "./cmd/mcp-server"); err != nil {
		return fmt.Errorf("building mcp-server: %w", err)
	}
	t := newTable(fmt.Sprintf("Issue history: ingest of the %d-row scan (own process, GOMEMLIMIT=%s as the MCP server sets itself in the chart's 256Mi) "+
		"beside a bare bulk insert of the same rows (bulk: SQLite multi-row INSERTs, PostgreSQL COPY; prepared: SQLite, one prepared INSERT a row; "+
		"import: the same ingest by the mcp-server binary's import command, its own process (its peak counts the binary's pages); "+
		"import-pages: the same, of the same rows a few to a page as the real run has them; "+
		"again: the same rows as the next week's scan, into the store ingest filled, "+
		"every issue stored; copy: the issues ingest stored, copied inside the engine into a table of their columns alone; "+
		"copy-indexed: the same into one with the issues' key and indexes; events: the ingest, then every change sent as issue events; "+
		"server CPU: the PostgreSQL server's processes' over the case, from /proc)", d.rows, childMemoryLimit),
		"engine", "case", "wall", "CPU", "peak RSS", "wall ÷ bulk", "wall ÷ prepared", "CPU ÷ bulk", "server CPU", "server CPU ÷ bulk", "store size", "answer")
	for _, e := range engines {
		if err := historyWrites(t, e, bin, mcpServer, d); err != nil {
			return err
		}
	}
	t.flush()

	q := newTable(fmt.Sprintf("Issue history reads: %d organisations × %d weekly scans, %d calls each", o.orgs, o.scans, o.calls),
		"engine", "query", "p50", "p95", "max", "answer")
	var sizeRows [][]string
	for _, e := range engines {
		empty, err := emptySize(e)
		if err != nil {
			return err
		}
		dsn, err := e.fresh("bench_reads")
		if err != nil {
			return err
		}
		st, err := store.Open(context.Background(), dsn)
		if err != nil {
			return err
		}
		start := time.Now()
		if err := buildHistory(st, o); err != nil {
			_ = st.Close()
			return fmt.Errorf("%s: building the store: %w", e.name, err)
		}
		built := time.Since(start)
		if err := readFiguresOn(q, e.name, st, o); err != nil {
			_ = st.Close()
			return err
		}
		_ = st.Close()
		var presences, issues int64
		if db, err := openRaw(dsn); err == nil {
			_ = db.QueryRow(`SELECT COUNT(*) FROM issues`).Scan(&issues)
			// A presence is a row of presences or, for the scan that first
			// saw an issue, the issue's own first scan (no row): one each.
			_ = db.QueryRow(`SELECT COUNT(*) FROM presences`).Scan(&presences)
			presences += issues
			_ = db.Close()
		}
		size, err := storeSize(e, dsn)
		if err != nil {
			return err
		}
		per := "-"
		if presences > 0 {
			per = mib((size - empty) * 1_000_000 / presences)
		}
		sizeRows = append(sizeRows, []string{e.name, strconv.FormatInt(presences, 10), strconv.FormatInt(issues, 10), mib(size), mib(empty), per,
			built.Round(time.Second).String()})
	}
	q.flush()
	s := newTable("Issue history store size (per million presences: the whole store less an empty one, over its presences)",
		"engine", "presences", "issues", "store size", "empty store", "per million presences", "build time")
	for _, r := range sizeRows {
		s.row(r...)
	}
	s.flush()
	return nil
}

// historyWrites runs each write case of historyCases on the engine, in
// order, and adds a row per case to t.
func historyWrites(t *table, e historyEngine, bin, mcpServer string, d *dataset) error {
	figures := map[string]processFigure{}
	sizes := map[string]int64{}
	var ingested string
	for _, c := range historyCases(e.name) {
		dsn := ingested // the next week's scan, or its issues copied, in the store ingest filled
		if c != caseAgain && c != caseCopy && c != caseCopyIndexed {
			var err error
			if dsn, err = e.fresh("bench_" + strings.ReplaceAll(c, "-", "_")); err != nil { // a name PostgreSQL takes unquoted
				return err
			}
		}
		if c == "ingest" {
			ingested = dsn
		}
		name, dir := c, d.bigDir
		if c == caseImportPages {
			name, dir = caseImport, d.pagesDir
		}
		cmd := exec.Command(bin, name, dsn, dir)
		cmd.Env = append(os.Environ(), "GOMEMLIMIT="+childMemoryLimit, binarycase.MCPServerEnv+"="+mcpServer)
		cmd.Stderr = os.Stderr
		out, server, err := outputWithServerCPU(e, cmd)
		if err != nil {
			return fmt.Errorf("%s %s: %w", e.name, c, err)
		}
		var res childResult
		if err := json.Unmarshal(out, &res); err != nil {
			return err
		}
		f := figureOf(cmd.ProcessState, res.Wall, res.Answer)
		f.rssMiB = float64(res.PeakKiB) / 1024
		f.serverCPU = server
		figures[c] = f
		if c == caseCopy || c == caseCopyIndexed {
			continue // its table is dropped: the store keeps the room (SQLite's free pages), no rows
		}
		if sizes[c], err = storeSize(e, dsn); err != nil {
			return err
		}
	}
	for _, c := range historyCases(e.name) {
		f := figures[c]
		prepared := "-"
		if p, ok := figures["prepared"]; ok {
			prepared = ratio(f.wall, p.wall)
		}
		server, serverRatio := "-", "-"
		if e.serverCPU != nil {
			server, serverRatio = ms(f.serverCPU), ratio(f.serverCPU, figures["bulk"].serverCPU)
		}
		size := "-"
		if n, ok := sizes[c]; ok {
			size = mib(n)
		}
		t.row(e.name, c, ms(f.wall), ms(f.cpu), fmt.Sprintf("%.1f MiB", f.rssMiB), ratio(f.wall, figures["bulk"].wall), prepared,
			ratio(f.cpu, figures["bulk"].cpu), server, serverRatio, size, f.answer)
	}
	return nil
}

// emptySize is the size of a store with its schema and nothing else.
func emptySize(e historyEngine) (int64, error) {
	dsn, err := e.fresh("bench_empty")
	if err != nil {
		return 0, err
	}
	return storeSize(e, dsn)
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

func storeSize(e historyEngine, dsn string) (int64, error) {
	st, err := store.Open(context.Background(), dsn) // migrated: an empty store's size is its schema's
	if err != nil {
		return 0, err
	}
	if err := st.Close(); err != nil {
		return 0, err
	}
	return e.size(dsn)
}

func sqliteEngine(d *dataset) historyEngine {
	dir := filepath.Join(d.root, "history")
	return historyEngine{
		name: "sqlite",
		fresh: func(name string) (string, error) {
			path, err := filepath.Abs(filepath.Join(dir, name+".db"))
			if err != nil {
				return "", err
			}
			for _, suffix := range []string{"", "-wal", "-shm"} {
				if err := os.Remove(path + suffix); err != nil && !os.IsNotExist(err) {
					return "", err
				}
			}
			return "sqlite://" + path, os.MkdirAll(dir, 0o755)
		},
		size: func(dsn string) (int64, error) {
			db, err := openRaw(dsn)
			if err != nil {
				return 0, err
			}
			defer func() { _ = db.Close() }()
			if _, err := db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
				return 0, err
			}
			fi, err := os.Stat(strings.TrimPrefix(dsn, "sqlite://"))
			if err != nil {
				return 0, err
			}
			return fi.Size(), nil
		},
	}
}

// postgresEngine starts the project's PostgreSQL (hack/postgres.sh) and
// gives each measurement a database of its own.
func postgresEngine() (historyEngine, error) {
	out, err := exec.Command("./hack/postgres.sh", "start").Output()
	if err != nil {
		return historyEngine{}, fmt.Errorf("hack/postgres.sh start: %w", err)
	}
	admin := strings.TrimSpace(string(out))
	server, err := findPostmaster(admin)
	if err != nil {
		return historyEngine{}, fmt.Errorf("finding the server's processes: %w", err)
	}
	return historyEngine{
		name:      "postgres",
		serverCPU: server.cpu,
		fresh: func(name string) (string, error) {
			db, err := sql.Open("pgx", admin)
			if err != nil {
				return "", err
			}
			defer func() { _ = db.Close() }()
			if _, err := db.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"); err != nil {
				return "", err
			}
			if _, err := db.Exec("CREATE DATABASE " + name); err != nil {
				return "", err
			}
			return strings.Replace(admin, "/postgres?", "/"+name+"?", 1), nil
		},
		size: func(dsn string) (int64, error) {
			db, err := openRaw(dsn)
			if err != nil {
				return 0, err
			}
			defer func() { _ = db.Close() }()
			var n int64
			err = db.QueryRow(`SELECT pg_database_size(current_database())`).Scan(&n)
			return n, err
		},
	}, nil
}

// readFiguresOn times OrganisationTrend and the issue history's first page.
func readFiguresOn(t *table, engine string, st *store.Store, o historyOptions) error {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	cases := []struct {
		name string
		call func() (string, error)
	}{
		{"cwac_organisation_trend (one organisation)", func() (string, error) {
			pts, err := st.OrganisationTrend(ctx, benchNamespaces, orgName(rng.IntN(o.orgs)), "")
			return fmt.Sprintf("%d points", len(pts)), err
		}},
		{"cwac_organisation_trend (one schedule)", func() (string, error) {
			pts, err := st.OrganisationTrend(ctx, benchNamespaces, orgName(rng.IntN(o.orgs)), "weekly")
			return fmt.Sprintf("%d points", len(pts)), err
		}},
		{"cwac_issue_history first page (organisation, open)", func() (string, error) {
			p, err := st.IssueHistory(ctx, store.IssueFilter{Namespaces: benchNamespaces, Organisation: orgName(rng.IntN(o.orgs)), State: "open"})
			return fmt.Sprintf("%d of %d", len(p.Issues), p.Total), err
		}},
		{"cwac_issue_history first page (organisation, reopened)", func() (string, error) {
			p, err := st.IssueHistory(ctx, store.IssueFilter{Namespaces: benchNamespaces, Organisation: orgName(rng.IntN(o.orgs)), ReopenedOnly: true})
			return fmt.Sprintf("%d of %d", len(p.Issues), p.Total), err
		}},
		{"cwac_issue_history first page (rule, fixed)", func() (string, error) {
			p, err := st.IssueHistory(ctx, store.IssueFilter{Namespaces: benchNamespaces, Rule: "color-contrast", State: "fixed"})
			return fmt.Sprintf("%d of %d", len(p.Issues), p.Total), err
		}},
		{"cwac_issue_history first page (all)", func() (string, error) {
			p, err := st.IssueHistory(ctx, store.IssueFilter{Namespaces: benchNamespaces})
			return fmt.Sprintf("%d of %d", len(p.Issues), p.Total), err
		}},
	}
	for _, c := range cases {
		times := make([]time.Duration, 0, o.calls)
		var answer string
		for range o.calls {
			start := time.Now()
			a, err := c.call()
			if err != nil {
				return fmt.Errorf("%s: %s: %w", engine, c.name, err)
			}
			times = append(times, time.Since(start))
			answer = a
		}
		slices.Sort(times)
		t.row(engine, c.name, ms(times[len(times)/2]), ms(times[len(times)*95/100]), ms(times[len(times)-1]), answer)
	}
	return nil
}

// benchNamespaces scope the reads, as a caller's RBAC does.
var benchNamespaces = []string{benchNamespace}

func orgName(i int) string { return fmt.Sprintf("Organisation %04d", i) }

// buildHistory ingests o.scans weekly scans of o.orgs organisations, each
// organisation's results the real run's with its own host, and changes
// week to week: its colour-contrast issue fixed one week in four (and
// reopened after), its form page not scanned one week in thirteen.
func buildHistory(st *store.Store, o historyOptions) error {
	files, err := realCSVs()
	if err != nil {
		return err
	}
	t0 := time.Date(2024, 1, 1, 3, 0, 0, 0, time.UTC)
	for w := range o.scans {
		fsys := weekResults(files, o.orgs, w)
		scan := store.Scan{UID: fmt.Sprintf("bench-week-%03d", w), Namespace: benchNamespace, Name: fmt.Sprintf("week-%03d", w),
			Schedule: "weekly", FinishedAt: t0.AddDate(0, 0, 7*w), Phase: "Complete"}
		if _, err := ingest.Ingest(context.Background(), st, fsys, scan, ingest.Options{Holder: "bench-history"}); err != nil {
			return fmt.Errorf("week %d: %w", w, err)
		}
	}
	return nil
}

// realCSVs are the real run's CSVs that the history reads, parsed.
func realCSVs() (map[string][][]string, error) {
	out := map[string][][]string{}
	for _, name := range []string{"audit_log.csv", "pages_scanned.csv", results.AxeCoreAuditFile, "focus_indicator_audit.csv", "reflow_audit.csv"} {
		b, err := os.ReadFile(filepath.Join(realScan, name))
		if err != nil {
			return nil, err
		}
		r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))))
		r.FieldsPerRecord = -1
		if out[name], err = r.ReadAll(); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	return out, nil
}

func weekResults(files map[string][][]string, orgs, week int) fstest.MapFS {
	fsys := fstest.MapFS{}
	for name, rows := range files {
		header := rows[0]
		col := func(n string) int { return slices.Index(header, n) }
		orgCol, urlCol, baseCol, sectorCol, idCol, pagesCol := col("organisation"), col("url"), col("base_url"), col("sector"), col("id"), col("number_of_pages")
		var b bytes.Buffer
		b.WriteString("\xef\xbb\xbf")
		w := csv.NewWriter(&b)
		_ = w.Write(header)
		rec := make([]string, len(header))
		for i := range orgs {
			host := fmt.Sprintf("https://org%04d.example/", i)
			dropForm := (week+i)%13 == 0
			for _, row := range rows[1:] {
				copy(rec, row)
				if urlCol >= 0 {
					if dropForm && strings.HasSuffix(row[urlCol], "/form.html") {
						continue
					}
					if idCol >= 0 && row[idCol] == "color-contrast" && (week+i)%4 == 0 {
						continue
					}
					rec[urlCol] = strings.Replace(row[urlCol], "http://127.0.0.1:8765/", host, 1)
				}
				if baseCol >= 0 {
					rec[baseCol] = host
				}
				if orgCol >= 0 {
					rec[orgCol] = orgName(i)
				}
				if sectorCol >= 0 {
					rec[sectorCol] = "Sector " + strconv.Itoa(i%10)
				}
				if pagesCol >= 0 && dropForm {
					rec[pagesCol] = "3"
				}
				_ = w.Write(rec)
			}
		}
		w.Flush()
		fsys[name] = &fstest.MapFile{Data: b.Bytes()}
	}
	return fsys
}
