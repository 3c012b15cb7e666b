package store

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/golang-migrate/migrate/v4"
	migratesqlite "github.com/golang-migrate/migrate/v4/database/sqlite"
	"github.com/golang-migrate/migrate/v4/source/iofs"
)

// migrator opens a SQLite store at dsn, unmigrated, and the migrations
// that step it from version to version.
func migrator(t *testing.T, dsn string) (*sql.DB, *migrate.Migrate) {
	t.Helper()
	_, driver, source, err := parseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open(driver, source)
	if err != nil {
		t.Fatal(err)
	}
	src, err := iofs.New(migrations, "migrations")
	if err != nil {
		t.Fatal(err)
	}
	d, err := migratesqlite.WithInstance(db, &migratesqlite.Config{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := migrate.NewWithInstance("iofs", src, "sqlite", d)
	if err != nil {
		t.Fatal(err)
	}
	return db, m
}

// TestMigrationCountsExistingIssues: a store written at schema version 1
// gets its organisations' issue counts when 0002 is applied by Open, so
// the first page's totals are right at once.
func TestMigrationCountsExistingIssues(t *testing.T) {
	dsn := "sqlite://" + filepath.Join(t.TempDir(), "history.db")
	db, m := migrator(t, dsn)
	if err := m.Steps(1); err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{
		`INSERT INTO scans (id, uid, namespace, name, schedule, finished_at, phase, results_path, cwac_image_digest, axe_core_version, chrome_version, ingested_at)
			VALUES (1, 'u', 'ns', 's', '', 100, 'Complete', '', '', '', '', 100)`,
		`INSERT INTO organisations (id, namespace, name, sector) VALUES (1, 'ns', 'O', ''), (2, 'ns', 'P', '')`,
		`INSERT INTO pages (id, organisation_id, url) VALUES (1, 1, 'https://o/'), (2, 2, 'https://p/')`,
		`INSERT INTO issues (id, fingerprint, organisation_id, page_id, viewport_width, audit, rule, impact, element_html, element_hash, target, target_hash,
			help_url, wcag, state, first_seen_scan_id, first_seen_at, last_seen_scan_id, last_seen_at, fixed_in_scan_id, fixed_at, fixed_reason, reopened, scans_present)
			VALUES (1, 'a', 1, 1, 320, 'x', 'r', '', '', 0, '', 0, '', '', 'open', 1, 100, 1, 100, NULL, NULL, NULL, 1, 1),
			       (2, 'b', 1, 1, 320, 'x', 'r', '', '', 0, '', 0, '', '', 'fixed', 1, 100, 1, 100, 1, 100, 'fixed', 0, 1),
			       (3, 'c', 1, 1, 320, 'x', 'r', '', '', 0, '', 0, '', '', 'fixed', 1, 100, 1, 100, 1, 100, 'fixed', 2, 1),
			       (4, 'd', 2, 2, 320, 'x', 'r', '', '', 0, '', 0, '', '', 'open', 1, 100, 1, 100, NULL, NULL, NULL, 0, 1)`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	_, _ = m.Close() // closes db: Open migrates on its own connection

	st, err := Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = st.Close() }()
	for _, tc := range []struct {
		f    IssueFilter
		want int64
	}{
		{IssueFilter{}, 4}, {IssueFilter{State: StateOpen}, 2}, {IssueFilter{State: StateFixed}, 2},
		{IssueFilter{ReopenedOnly: true}, 2}, {IssueFilter{ReopenedOnly: true, State: StateFixed}, 1},
		{IssueFilter{Organisation: "O"}, 3}, {IssueFilter{Organisation: "P", State: StateFixed}, 0},
	} {
		tc.f.Namespaces = []string{"ns"}
		page, err := st.IssueHistory(context.Background(), tc.f)
		if err != nil || page.Total != tc.want {
			t.Errorf("%+v: total %d, %v; want %d", tc.f, page.Total, err, tc.want)
		}
	}
}

// TestSetAside: a scan sets the fingerprint index aside once it adds at
// least setAsideMinIssues issues and an eighth of those the table held.
func TestSetAside(t *testing.T) {
	for _, c := range []struct {
		before, added int64
		want          bool
	}{
		{0, 0, false},
		{0, setAsideMinIssues - 1, false},
		{0, setAsideMinIssues, true},
		{8 * setAsideMinIssues, setAsideMinIssues, true},
		{8*setAsideMinIssues + 8, setAsideMinIssues, false},
		{1_000_000, 124_999, false},
		{1_000_000, 125_000, true},
	} {
		if got := setAside(c.before, c.added); got != c.want {
			t.Errorf("setAside(%d, %d) = %v, want %v", c.before, c.added, got, c.want)
		}
	}
}

// TestMigrationNamesTheFingerprintIndex: 0013 makes the issues table again
// with its rows, the fingerprint unique through the index a large scan may
// drop (the column's own, which SQLite cannot drop, gone); its down
// migration gives the column its constraint back, rows kept.
func TestMigrationNamesTheFingerprintIndex(t *testing.T) {
	db, m := migrator(t, "sqlite://"+filepath.Join(t.TempDir(), "history.db"))
	indexes := func(db *sql.DB) map[string]bool {
		rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'issues'`)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = rows.Close() }()
		got := map[string]bool{}
		for rows.Next() {
			var name string
			if err := rows.Scan(&name); err != nil {
				t.Fatal(err)
			}
			got[name] = true
		}
		return got
	}
	count := func(db *sql.DB) int {
		var n int
		if err := db.QueryRow(`SELECT COUNT(*) FROM issues WHERE fingerprint IN ('a', 'b')`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if err := m.Migrate(12); err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{
		`INSERT INTO organisations (id, namespace, name, sector) VALUES (1, 'ns', 'O', '')`,
		`INSERT INTO pages (id, organisation_id, url) VALUES (1, 1, 'https://o/')`,
		`INSERT INTO issues (id, fingerprint, organisation_id, page_id, viewport_width, audit, rule, impact, element_html, element_hash, target, target_hash,
			help_url, wcag, state, first_seen_scan_id, first_seen_at, last_seen_scan_id, last_seen_at, fixed_in_scan_id, fixed_at, fixed_reason, reopened, scans_present)
			VALUES (1, 'a', 1, 1, 320, 'x', 'r', '', '', 0, '', 0, '', '', 'open', 1, 100, 1, 100, NULL, NULL, NULL, 1, 1),
			       (2, 'b', 1, 1, 320, 'x', 'r', '', '', 0, '', 0, '', '', 'fixed', 1, 100, 1, 100, 1, 100, 'fixed', 0, 1)`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	// SQLite names a table's constraint indexes in order: the primary
	// key's (id is BIGINT, not a rowid) is _1, the fingerprint's _2.
	if !indexes(db)["sqlite_autoindex_issues_2"] {
		t.Fatal("at version 12 the fingerprint column has no index of its own: the test reads the wrong schema")
	}
	if err := m.Migrate(13); err != nil {
		t.Fatal(err)
	}
	got := indexes(db)
	if !got["issues_by_fingerprint"] || got["sqlite_autoindex_issues_2"] || !got["issues_by_page"] || !got["issues_fixed_by_time"] {
		t.Fatalf("indexes of issues at version 13: %v", got)
	}
	if n := count(db); n != 2 {
		t.Fatalf("%d of 2 issues kept at version 13", n)
	}
	dup := `INSERT INTO issues SELECT 3, fingerprint, organisation_id, page_id, viewport_width, audit, rule, impact,
		element_html, element_hash, target, target_hash, help_url, wcag, state, first_seen_scan_id, first_seen_at,
		last_seen_scan_id, last_seen_at, fixed_in_scan_id, fixed_at, fixed_reason, reopened, scans_present
		FROM issues WHERE id = 1`
	if _, err := db.Exec(dup); err == nil {
		t.Fatal("version 13 took a fingerprint twice")
	}
	if err := m.Steps(-1); err != nil {
		t.Fatal(err)
	}
	if got := indexes(db); !got["sqlite_autoindex_issues_2"] || got["issues_by_fingerprint"] || !got["issues_by_organisation"] {
		t.Fatalf("indexes of issues back at version 12: %v", got)
	}
	if n := count(db); n != 2 {
		t.Fatalf("%d of 2 issues kept back at version 12", n)
	}
	if _, err := db.Exec(dup); err == nil {
		t.Fatal("version 12 again took a fingerprint twice")
	}
	_, _ = m.Close()
}

// TestMigrationDropsTheIssuesForeignKeys: 0014 makes the issues table
// again with its rows and indexes and without its foreign keys (the tests'
// storetest.ReferencesHold checks what they did); its down
// migration gives them back, rows kept.
func TestMigrationDropsTheIssuesForeignKeys(t *testing.T) {
	db, m := migrator(t, "sqlite://"+filepath.Join(t.TempDir(), "history.db"))
	if err := m.Migrate(13); err != nil {
		t.Fatal(err)
	}
	insert := func(id int, page int) error {
		_, err := db.Exec(`INSERT INTO issues (id, fingerprint, organisation_id, page_id, viewport_width, audit, rule, impact,
			element_html, element_hash, target, target_hash, help_url, wcag, state, first_seen_scan_id, first_seen_at,
			last_seen_scan_id, last_seen_at, fixed_in_scan_id, fixed_at, fixed_reason, reopened, scans_present)
			VALUES (?, ?, 1, ?, 320, 'x', 'r', '', '', 0, '', 0, '', '', 'open', 1, 100, 1, 100, NULL, NULL, NULL, 0, 1)`, id, fmt.Sprint("f", id), page)
		return err
	}
	count := func() int {
		var n int
		if err := db.QueryRow(`SELECT COUNT(*) FROM issues`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	indexes := func() string {
		var names string
		if err := db.QueryRow(`SELECT group_concat(name, ' ') FROM (SELECT name FROM sqlite_master
			WHERE type = 'index' AND tbl_name = 'issues' AND name LIKE 'issues_%' ORDER BY name)`).Scan(&names); err != nil {
			t.Fatal(err)
		}
		return names
	}
	for _, stmt := range []string{
		`INSERT INTO organisations (id, namespace, name, sector) VALUES (1, 'ns', 'O', '')`,
		`INSERT INTO pages (id, organisation_id, url) VALUES (1, 1, 'https://o/')`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	for id := 1; id <= 2; id++ {
		if err := insert(id, 1); err != nil {
			t.Fatal(err)
		}
	}
	const want = "issues_by_fingerprint issues_by_organisation issues_by_page issues_by_rule issues_fixed_by_time issues_reopened"
	if err := insert(3, 99); err == nil {
		t.Fatal("at version 13 an issue of a page not stored was taken: the test reads the wrong schema")
	}
	if err := m.Migrate(14); err != nil {
		t.Fatal(err)
	}
	if n, got := count(), indexes(); n != 2 || got != want {
		t.Fatalf("at version 14: %d of 2 issues, indexes %q, want %q", n, got, want)
	}
	if err := insert(3, 99); err != nil {
		t.Fatalf("version 14 still checks an issue's page: %v", err)
	}
	if _, err := db.Exec(`DELETE FROM issues WHERE id = 3`); err != nil {
		t.Fatal(err)
	}
	if err := m.Steps(-1); err != nil {
		t.Fatal(err)
	}
	if n, got := count(), indexes(); n != 2 || got != want {
		t.Fatalf("back at version 13: %d of 2 issues, indexes %q, want %q", n, got, want)
	}
	if err := insert(3, 99); err == nil {
		t.Fatal("back at version 13 an issue of a page not stored was taken")
	}
	_, _ = m.Close()
}

// TestMigrationMovesTheSightingsApart: 0015 moves each issue's last seen
// and scans present to issue_sightings, values kept, and its down
// migration gives them back to the issues.
func TestMigrationMovesTheSightingsApart(t *testing.T) {
	db, m := migrator(t, "sqlite://"+filepath.Join(t.TempDir(), "history.db"))
	if err := m.Migrate(14); err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{
		`INSERT INTO organisations (id, namespace, name, sector) VALUES (1, 'ns', 'O', '')`,
		`INSERT INTO pages (id, organisation_id, url) VALUES (1, 1, 'https://o/')`,
		`INSERT INTO issues (id, fingerprint, organisation_id, page_id, viewport_width, audit, rule, impact,
			element_html, element_hash, target, target_hash, help_url, wcag, state, first_seen_scan_id, first_seen_at,
			last_seen_scan_id, last_seen_at, fixed_in_scan_id, fixed_at, fixed_reason, reopened, scans_present)
			VALUES (1, 'a', 1, 1, 320, 'x', 'r', 'serious', '<a>', 7, '/a', 8, '', '1.4.3', 'open', 1, 100, 3, 300, NULL, NULL, NULL, 1, 2),
			       (2, 'b', 1, 1, 320, 'x', 'r', '', '', 0, '', 0, '', '', 'fixed', 2, 200, 2, 200, 3, 300, 'fixed', 0, 1)`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	const issues = `SELECT group_concat(id || ' ' || fingerprint || ' ' || state || ' ' || first_seen_scan_id || ' ' || reopened || ' ' ||
		element_html || ' ' || element_hash || ' ' || target_hash, '; ') FROM (SELECT * FROM issues ORDER BY id)`
	read := func(query string) string {
		t.Helper()
		var s string
		if err := db.QueryRow(query).Scan(&s); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		return s
	}
	const wantIssues, wantSightings = "1 a open 1 1 <a> 7 8; 2 b fixed 2 0  0 0", "1 3 300 2; 2 2 200 1"
	before := read(issues)
	if before != wantIssues {
		t.Fatalf("at version 14: issues %q, want %q", before, wantIssues)
	}
	if err := m.Migrate(15); err != nil {
		t.Fatal(err)
	}
	sightings := read(`SELECT group_concat(issue_id || ' ' || last_seen_scan_id || ' ' || last_seen_at || ' ' || scans_present, '; ')
		FROM (SELECT * FROM issue_sightings ORDER BY issue_id)`)
	if got := read(issues); got != wantIssues || sightings != wantSightings {
		t.Fatalf("at version 15: issues %q, sightings %q; want %q, %q", got, sightings, wantIssues, wantSightings)
	}
	if n := read(`SELECT COUNT(*) FROM pragma_table_info('issues') WHERE name IN ('last_seen_scan_id', 'last_seen_at', 'scans_present')`); n != "0" {
		t.Fatalf("at version 15 the issues keep %s of the three columns moved", n)
	}
	if err := m.Steps(-1); err != nil {
		t.Fatal(err)
	}
	back := read(`SELECT group_concat(id || ' ' || last_seen_scan_id || ' ' || last_seen_at || ' ' || scans_present, '; ')
		FROM (SELECT * FROM issues ORDER BY id)`)
	if got := read(issues); got != wantIssues || back != wantSightings {
		t.Fatalf("back at version 14: issues %q, sightings %q; want %q, %q", got, back, wantIssues, wantSightings)
	}
	if n := read(`SELECT COUNT(*) FROM sqlite_master WHERE name = 'issue_sightings'`); n != "0" {
		t.Fatal("back at version 14 issue_sightings is still there")
	}
	_, _ = m.Close()
}
