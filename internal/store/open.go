package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/golang-migrate/migrate/v4"
	migratepgx "github.com/golang-migrate/migrate/v4/database/pgx/v5"
	migratesqlite "github.com/golang-migrate/migrate/v4/database/sqlite"
	"github.com/golang-migrate/migrate/v4/source/iofs"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
	_ "modernc.org/sqlite"             // the "sqlite" database/sql driver, pure Go
)

// Engine is the database behind a Store.
type Engine string

// The two engines, with one schema and one set of queries.
const (
	SQLite   Engine = "sqlite"
	Postgres Engine = "postgres"
)

//go:embed migrations/*.sql
var migrations embed.FS

// busyTimeout is how long an SQLite statement waits for another
// connection's write lock before failing: a prune waits for an ingest's
// transaction rather than failing at once.
const busyTimeout = 30 * time.Second

// sqlitePageSize is the page size, in bytes, of a store SQLite makes.
const sqlitePageSize = 16 << 10

// Store is the issue history on SQLite or PostgreSQL. It is safe for
// concurrent use; writes (BeginScan, Prune) are serialised by the database.
type Store struct {
	db     *sql.DB
	engine Engine
	// now is the clock (tests set it).
	now func() time.Time

	rebound sync.Map // query with ? placeholders → the engine's form
}

// Open connects to the store a DSN names and applies the schema's
// migrations: "sqlite:///absolute/path.db" (the file is created, with its
// write-ahead log beside it) or "postgres://user@host:port/db?…" (or
// "postgresql://"). Anything else is refused. Errors never repeat the DSN,
// which may hold a password.
func Open(ctx context.Context, dsn string) (*Store, error) {
	engine, driver, source, err := parseDSN(dsn)
	if err != nil {
		return nil, err
	}
	if err := migrateUp(ctx, engine, driver, source); err != nil {
		return nil, err
	}
	db, err := sql.Open(driver, source)
	if err != nil {
		return nil, fmt.Errorf("store: opening the %s database: %w", engine, err)
	}
	if engine == SQLite {
		// One writer at a time anyway; a few readers beside it (WAL).
		db.SetMaxOpenConns(4)
	} else {
		db.SetMaxOpenConns(8)
	}
	db.SetConnMaxIdleTime(5 * time.Minute)
	if err := db.PingContext(ctx); err != nil {
		_ = db.Close() // the error that matters is the ping's
		return nil, fmt.Errorf("store: connecting to the %s database: %w", engine, err)
	}
	if engine == Postgres {
		if err := leaveRoomForUpdates(ctx, db); err != nil {
			_ = db.Close()
			return nil, err
		}
	}
	return &Store{db: db, engine: engine, now: time.Now}, nil
}

// Close closes the connections.
func (s *Store) Close() error { return s.db.Close() }

// Engine is the store's database engine.
func (s *Store) Engine() Engine { return s.engine }

// SQLSource is the database/sql driver name and data source a store DSN
// opens, with the settings Open gives its own pool: for tooling that
// measures beside the store with a pool of its own (hack/bench). The
// store's tables are written only through Store.
func SQLSource(dsn string) (driver, source string, err error) {
	_, driver, source, err = parseDSN(dsn)
	return driver, source, err
}

// DB is the store's own connection pool, for tests that must act on its
// connections (internal/ingest fills a SQLite store's pages on the
// connection it writes with, to check that a full disk keeps nothing of a
// scan). Tooling opens a pool of its own (SQLSource).
func (s *Store) DB() *sql.DB { return s.db }

// parseDSN checks a store DSN and returns the engine, the database/sql
// driver and its data source name.
func parseDSN(dsn string) (Engine, string, string, error) {
	scheme, rest, ok := strings.Cut(dsn, "://")
	switch {
	case !ok:
		return "", "", "", errors.New(`store: the DSN must start with "sqlite://" or "postgres://"`)
	case scheme == "sqlite":
		path, err := sqlitePath(rest)
		if err != nil {
			return "", "", "", err
		}
		q := url.Values{}
		// A new store's pages are 16 KiB, not SQLite's 4 KiB: a scan's
		// ingest is bulk writing, and larger pages mean fewer of them to
		// split, spill mid-transaction and write (the first ingest of a
		// million-row scan took about 15% less CPU, docs/history.md). SQLite
		// fixes the size when the file is first written, so it must come
		// before the journal mode: the driver runs the _pragma list (sorted
		// by name) before _journal_mode. A store made earlier keeps its own.
		q.Add("_pragma", fmt.Sprintf("page_size(%d)", sqlitePageSize))
		q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()))
		q.Set("_journal_mode", "WAL")
		q.Add("_pragma", "foreign_keys(1)")
		q.Add("_pragma", "synchronous(NORMAL)")
		// SQLite's temporary files (statement journals, sorts that spill)
		// go beside the database, never to /tmp or the working directory:
		// the chart's pods have a read-only root filesystem, where a scan of
		// more than a few hundred issue rows failed with "disk I/O error".
		// The setting is SQLite's, for the whole process; a process opens
		// one SQLite store.
		q.Add("_pragma", "temp_store_directory("+sqlQuote(filepath.Dir(path))+")")
		q.Set("_txlock", "immediate") // a write transaction takes the lock at BEGIN: no upgrade deadlock
		return SQLite, "sqlite", "file:" + path + "?" + q.Encode(), nil
	case scheme == "postgres" || scheme == "postgresql":
		if _, err := url.Parse(dsn); err != nil {
			return "", "", "", errors.New("store: the postgres DSN is not a valid URL")
		}
		return Postgres, "pgx", dsn, nil
	}
	return "", "", "", fmt.Errorf("store: DSN scheme %q is not sqlite or postgres", scheme)
}

// sqlitePath is the file of a sqlite:// DSN's rest ("/abs/path.db"): an
// absolute, clean path with no query, so no option can be smuggled in.
func sqlitePath(rest string) (string, error) {
	switch {
	case rest == "" || !strings.HasPrefix(rest, "/"):
		return "", errors.New("store: a sqlite DSN needs an absolute path: sqlite:///var/lib/cwac/history.db")
	case strings.ContainsAny(rest, "?#\x00"):
		return "", errors.New("store: a sqlite DSN takes no options (?, #): the store sets its own")
	case filepath.Clean(rest) != rest || strings.HasSuffix(rest, "/"):
		return "", fmt.Errorf("store: sqlite path %q is not a clean file path", rest)
	}
	return rest, nil
}

// sqlQuote is s as an SQL string literal.
func sqlQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// migrateUp applies the embedded migrations on a connection of its own
// (the migration library closes what it is given). On PostgreSQL it holds
// an advisory lock, so replicas starting together migrate once.
func migrateUp(ctx context.Context, engine Engine, driver, source string) error {
	db, err := sql.Open(driver, source)
	if err != nil {
		return fmt.Errorf("store: opening the %s database: %w", engine, err)
	}
	if err := db.PingContext(ctx); err != nil {
		_ = db.Close() // the ping's error is the one to report
		return fmt.Errorf("store: connecting to the %s database: %w", engine, err)
	}
	src, err := iofs.New(migrations, "migrations")
	if err != nil {
		_ = db.Close()
		return fmt.Errorf("store: reading the migrations: %w", err)
	}
	var m *migrate.Migrate
	switch engine {
	case SQLite:
		d, derr := migratesqlite.WithInstance(db, &migratesqlite.Config{})
		if derr != nil {
			_ = db.Close()
			return fmt.Errorf("store: preparing migrations on sqlite: %w", derr)
		}
		m, err = migrate.NewWithInstance("iofs", src, "sqlite", d)
	default:
		d, derr := migratepgx.WithInstance(db, &migratepgx.Config{})
		if derr != nil {
			_ = db.Close()
			return fmt.Errorf("store: preparing migrations on postgres: %w", derr)
		}
		m, err = migrate.NewWithInstance("iofs", src, "pgx5", d)
	}
	if err != nil {
		_ = db.Close()
		return fmt.Errorf("store: preparing migrations: %w", err)
	}
	defer func() { _, _ = m.Close() }() // closes db; the migration's outcome is already known
	err = m.Up()
	switch {
	case errors.Is(err, migrate.ErrNoChange):
		return nil
	case err != nil:
		return fmt.Errorf("store: applying the schema's migrations: %w", err)
	case engine == Postgres:
		// A migration that makes a table again (0013 to 0015) leaves it
		// without statistics until autovacuum's next look: the first
		// scan after an upgrade then read its stored issues by sequential
		// scans (35 s where 19 s with them, a million-row scan).
		if _, err := db.ExecContext(ctx, `ANALYZE`); err != nil {
			return fmt.Errorf("store: gathering statistics after migrating: %w", err)
		}
	}
	return nil
}

// q rewrites a query written with ? placeholders for the engine:
// PostgreSQL numbers them ($1, $2, …). The store's queries hold no ? in
// string literals; the rewrite still skips quoted text.
func (s *Store) q(query string) string {
	if s.engine != Postgres {
		return query
	}
	if v, ok := s.rebound.Load(query); ok {
		return v.(string)
	}
	out := rebind(query)
	s.rebound.Store(query, out)
	return out
}

func rebind(query string) string {
	var b strings.Builder
	b.Grow(len(query) + 16)
	n, quoted := 0, false
	for i := 0; i < len(query); i++ {
		c := query[i]
		switch {
		case c == '\'':
			quoted = !quoted
		case c == '?' && !quoted:
			n++
			fmt.Fprintf(&b, "$%d", n)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
