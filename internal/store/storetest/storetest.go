// Package storetest opens issue-history stores for tests: SQLite in a
// temporary directory always, and PostgreSQL (one fresh database per
// test, dropped afterwards) when the integration build tag adds it.
package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/store"
)

// Engine opens a fresh, empty store.
type Engine struct {
	Name string
	Open func(t *testing.T) *store.Store
}

// Engines are the engines the tests run against: SQLite, and PostgreSQL
// under the integration tag (engines_postgres.go).
func Engines() []Engine { return engines }

var engines = []Engine{{Name: "sqlite", Open: OpenSQLite}}

// OpenSQLite opens a store in a new file under the test's temporary directory.
func OpenSQLite(t *testing.T) *store.Store {
	t.Helper()
	return Open(t, SQLiteDSN(t))
}

// SQLiteDSN is a DSN for a new SQLite file in the test's temporary directory.
func SQLiteDSN(t *testing.T) string {
	t.Helper()
	return "sqlite://" + filepath.Join(t.TempDir(), "history.db")
}

// Open opens a store by DSN and, when the test ends, checks that the rows
// the store keeps without foreign keys name rows it holds (ReferencesHold)
// and closes it.
func Open(t *testing.T, dsn string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), dsn)
	if err != nil {
		t.Fatalf("opening the store: %v", err)
	}
	t.Cleanup(func() {
		if st.DB().PingContext(context.Background()) == nil { // a test of closing closed it
			ReferencesHold(t, st)
		}
		_ = st.Close()
	})
	return st
}

// ReferencesHold fails the test when an issue names an organisation or a
// page the store does not hold, or a page of another organisation: what the issues' foreign keys checked before migration
// 0014 (and the page's organisation, which they did not); or when an issue
// has no sighting (last seen, scans present: migration 0015) or a sighting
// names no issue; or when a page visit names a scan or a page, or an
// observation a page, the store does not hold (their foreign keys before
// migration 0017).
func ReferencesHold(t *testing.T, st *store.Store) {
	t.Helper()
	for _, c := range []struct{ query, says string }{
		{`SELECT COUNT(*) FROM issues i
		WHERE NOT EXISTS (SELECT 1 FROM organisations o WHERE o.id = i.organisation_id)
		OR NOT EXISTS (SELECT 1 FROM pages p WHERE p.id = i.page_id AND p.organisation_id = i.organisation_id)`,
			"issues name an organisation or a page the store does not hold, or a page of another organisation"},
		{`SELECT COUNT(*) FROM issues i WHERE NOT EXISTS (SELECT 1 FROM issue_sightings s WHERE s.issue_id = i.id)`,
			"issues have no sighting (last seen, scans present)"},
		{`SELECT COUNT(*) FROM issue_sightings s WHERE NOT EXISTS (SELECT 1 FROM issues i WHERE i.id = s.issue_id)`,
			"sightings name an issue the store does not hold"},
		{`SELECT COUNT(*) FROM page_visits v WHERE NOT EXISTS (SELECT 1 FROM scans s WHERE s.id = v.scan_id)
		OR NOT EXISTS (SELECT 1 FROM pages p WHERE p.id = v.page_id)`,
			"page visits name a scan or a page the store does not hold"},
		{`SELECT COUNT(*) FROM observations o WHERE NOT EXISTS (SELECT 1 FROM pages p WHERE p.id = o.page_id)`,
			"observations name a page the store does not hold"},
	} {
		var n int
		err := st.DB().QueryRowContext(context.Background(), c.query).Scan(&n)
		switch {
		case err != nil:
			t.Errorf("checking the rows' references: %v", err)
		case n > 0:
			t.Errorf("%d %s", n, c.says)
		}
	}
}

// PostgresDSNVariable names the server tests use (hack/postgres.sh prints it).
const PostgresDSNVariable = "CWAC_TEST_POSTGRES_DSN"

// NewPostgresDSN creates an empty database on the test server and returns
// its DSN; the database is dropped when the test ends. It fails the test
// when the variable is unset: a skipped engine must not pass for a tested one.
func NewPostgresDSN(t *testing.T) string {
	t.Helper()
	admin := os.Getenv(PostgresDSNVariable)
	if admin == "" {
		t.Fatalf("%s is unset: start PostgreSQL with hack/postgres.sh start (hack/test.sh does) and export the DSN it prints", PostgresDSNVariable)
	}
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatalf("%s is not a URL: %v", PostgresDSNVariable, err)
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "cwac_test_" + hex.EncodeToString(b)
	db, err := sql.Open("pgx", admin)
	if err != nil {
		t.Fatalf("connecting to PostgreSQL: %v", err)
	}
	defer func() { _ = db.Close() }()
	if _, err := db.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatalf("creating database %s: %v", name, err)
	}
	t.Cleanup(func() {
		db, err := sql.Open("pgx", admin)
		if err != nil {
			return
		}
		defer func() { _ = db.Close() }()
		_, _ = db.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
	})
	u.Path = "/" + name
	return u.String()
}
