package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
)

// TestParseDSN: the two DSN forms, and a clear error for anything else
// that never repeats the DSN (it may hold a password).
func TestParseDSN(t *testing.T) {
	cases := []struct {
		dsn, engine, source, err string
	}{
		{dsn: "sqlite:///var/lib/cwac/history.db", engine: "sqlite",
			source: "file:/var/lib/cwac/history.db?_journal_mode=WAL&_pragma=page_size%2816384%29&_pragma=busy_timeout%2830000%29" +
				"&_pragma=foreign_keys%281%29&_pragma=synchronous%28NORMAL%29" +
				"&_pragma=temp_store_directory%28%27%2Fvar%2Flib%2Fcwac%27%29&_txlock=immediate"},
		{dsn: "sqlite:///srv/o'k/h.db", engine: "sqlite",
			source: "file:/srv/o'k/h.db?_journal_mode=WAL&_pragma=page_size%2816384%29&_pragma=busy_timeout%2830000%29" +
				"&_pragma=foreign_keys%281%29&_pragma=synchronous%28NORMAL%29" +
				"&_pragma=temp_store_directory%28%27%2Fsrv%2Fo%27%27k%27%29&_txlock=immediate"},
		{dsn: "postgres://cwac:secret@db:5432/history?sslmode=require", engine: "postgres", source: "postgres://cwac:secret@db:5432/history?sslmode=require"},
		{dsn: "postgresql://db/history", engine: "postgres", source: "postgresql://db/history"},
		{dsn: "", err: `must start with "sqlite://" or "postgres://"`},
		{dsn: "/var/lib/history.db", err: `must start with`},
		{dsn: "mysql://u:secret@db/x", err: `DSN scheme "mysql" is not sqlite or postgres`},
		{dsn: "sqlite://relative.db", err: "needs an absolute path"},
		{dsn: "sqlite://", err: "needs an absolute path"},
		{dsn: "sqlite:///a.db?_pragma=foreign_keys(0)", err: "takes no options"},
		{dsn: "sqlite:///a.db#x", err: "takes no options"},
		{dsn: "sqlite:///a/../b.db", err: "not a clean file path"},
		{dsn: "sqlite:///a/", err: "not a clean file path"},
		{dsn: "postgres://u:secret@db/%zz", err: "not a valid URL"},
	}
	for _, tc := range cases {
		t.Run(tc.dsn, func(t *testing.T) {
			engine, _, source, err := parseDSN(tc.dsn)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				if strings.Contains(err.Error(), "secret") {
					t.Errorf("error %q repeats the password", err)
				}
				return
			}
			if err != nil || string(engine) != tc.engine || source != tc.source {
				t.Errorf("parseDSN = %q, %q, %v; want %q, %q", engine, source, err, tc.engine, tc.source)
			}
		})
	}
}

// TestRebind: PostgreSQL's placeholders are numbered; a quoted ? is text.
func TestRebind(t *testing.T) {
	cases := map[string]string{
		"SELECT 1":                           "SELECT 1",
		"a = ? AND b = ?":                    "a = $1 AND b = $2",
		"a = '?' AND b = ?":                  "a = '?' AND b = $1",
		"a = 'it''s ?' AND b IN (?, ?, ?)":   "a = 'it''s ?' AND b IN ($1, $2, $3)",
		"VALUES (?, ?), (?, ?), (?, ?), (?)": "VALUES ($1, $2), ($3, $4), ($5, $6), ($7)",
		"? ? ? ? ? ? ? ? ? ?":                "$1 $2 $3 $4 $5 $6 $7 $8 $9 $10",
	}
	for in, want := range cases {
		if got := rebind(in); got != want {
			t.Errorf("rebind(%q) = %q, want %q", in, got, want)
		}
	}
	s := &Store{engine: SQLite}
	if got := s.q("a = ?"); got != "a = ?" {
		t.Errorf("SQLite query rewritten: %q", got)
	}
	s = &Store{engine: Postgres}
	for range 2 { // the second call comes from the cache
		if got := s.q("a = ?"); got != "a = $1" {
			t.Errorf("PostgreSQL query = %q", got)
		}
	}
}

// TestOpenSQLite: the file is created with the schema, 16 KiB pages, WAL
// and foreign keys on, and SQLite's temporary files beside it; opening it again migrates nothing and keeps the data.
func TestOpenSQLite(t *testing.T) {
	ctx := context.Background()
	dsn := "sqlite://" + filepath.Join(t.TempDir(), "history.db")
	st, err := Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	if st.Engine() != SQLite {
		t.Errorf("engine %q", st.Engine())
	}
	var mode string
	var fk, busy int
	if err := st.db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q (%v), want wal", mode, err)
	}
	if err := st.db.QueryRow("PRAGMA foreign_keys").Scan(&fk); err != nil || fk != 1 {
		t.Errorf("foreign_keys = %d (%v), want 1", fk, err)
	}
	if err := st.db.QueryRow("PRAGMA busy_timeout").Scan(&busy); err != nil || busy != 30000 {
		t.Errorf("busy_timeout = %d (%v), want 30000", busy, err)
	}
	if size := pageSize(t, st.db); size != sqlitePageSize {
		t.Errorf("page_size = %d, want %d", size, sqlitePageSize)
	}
	var tmp string
	if err := st.db.QueryRow("PRAGMA temp_store_directory").Scan(&tmp); err != nil || tmp != filepath.Dir(strings.TrimPrefix(dsn, "sqlite://")) {
		t.Errorf("temp_store_directory = %q (%v), want the database's directory", tmp, err)
	}
	if _, err := st.db.Exec(`INSERT INTO organisations (id, namespace, name, sector) VALUES (1, 'ns', 'O', '')`); err != nil {
		t.Fatal(err)
	}
	if _, err := st.db.Exec(`INSERT INTO pages (id, organisation_id, url) VALUES (1, 99, 'x')`); err == nil {
		t.Error("a page of an organisation that does not exist was accepted: foreign keys are off")
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st, err = Open(ctx, dsn)
	if err != nil {
		t.Fatalf("opening again: %v", err)
	}
	defer func() { _ = st.Close() }()
	var n int
	if err := st.db.QueryRow(`SELECT COUNT(*) FROM organisations`).Scan(&n); err != nil || n != 1 {
		t.Errorf("organisations after reopening = %d (%v), want 1", n, err)
	}
}

// TestOpenSQLiteKeepsItsPageSize: a store SQLite made with its own 4 KiB
// pages (before the store made its files with 16 KiB ones) opens, is
// migrated and written, and keeps its pages: SQLite cannot change the
// size of a database in WAL mode, and the store never tries.
func TestOpenSQLiteKeepsItsPageSize(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "history.db")
	old, err := sql.Open("sqlite", "file:"+path+"?_pragma=page_size(4096)&_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := old.Exec(`CREATE TABLE made_before (x INTEGER)`); err != nil {
		t.Fatal(err)
	}
	if size := pageSize(t, old); size != 4096 {
		t.Fatalf("the old store's page_size = %d, want 4096", size)
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := Open(ctx, "sqlite://"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = st.Close() }()
	if _, err := st.db.Exec(`INSERT INTO organisations (id, namespace, name, sector) VALUES (1, 'ns', 'O', '')`); err != nil {
		t.Fatal(err)
	}
	if size := pageSize(t, st.db); size != 4096 {
		t.Errorf("page_size after opening = %d, want the store's own 4096", size)
	}
}

func pageSize(t *testing.T, db *sql.DB) int {
	t.Helper()
	var size int
	if err := db.QueryRow("PRAGMA page_size").Scan(&size); err != nil {
		t.Fatal(err)
	}
	return size
}

// TestOpenFailures: a directory that does not exist, and a server that
// does not answer, fail with the engine named.
func TestOpenFailures(t *testing.T) {
	ctx := context.Background()
	if _, err := Open(ctx, "sqlite://"+filepath.Join(t.TempDir(), "missing", "history.db")); err == nil || !strings.Contains(err.Error(), "sqlite") {
		t.Errorf("missing directory: %v", err)
	}
	ctx, cancel := context.WithTimeout(ctx, 5e9)
	defer cancel()
	_, err := Open(ctx, "postgres://u:secret@127.0.0.1:1/history?connect_timeout=2")
	if err == nil || !strings.Contains(err.Error(), "postgres") || strings.Contains(err.Error(), "secret") {
		t.Errorf("no server: %v", err)
	}
}

// SQLSource opens what Open opens, for tooling's own pool; a DSN Open
// refuses is refused alike.
func TestSQLSource(t *testing.T) {
	driver, source, err := SQLSource("sqlite:///var/lib/cwac/history.db")
	if err != nil || driver != "sqlite" || !strings.HasPrefix(source, "file:/var/lib/cwac/history.db?") || !strings.Contains(source, "journal_mode") {
		t.Errorf("sqlite: %q %q %v", driver, source, err)
	}
	if driver, source, err := SQLSource("postgres://u@db/history"); err != nil || driver != "pgx" || source != "postgres://u@db/history" {
		t.Errorf("postgres: %q %q %v", driver, source, err)
	}
	if _, _, err := SQLSource("mysql://x"); err == nil {
		t.Error("a DSN Open refuses was taken")
	}
}
