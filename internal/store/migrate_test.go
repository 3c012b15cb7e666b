package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/golang-migrate/migrate/v4"
	migratesqlite "github.com/golang-migrate/migrate/v4/database/sqlite"
	"github.com/golang-migrate/migrate/v4/source/iofs"
)

// TestMigrationCountsExistingIssues: a store written at schema version 1
// gets its organisations' issue counts when 0002 is applied by Open, so
// the first page's totals are right at once.
func TestMigrationCountsExistingIssues(t *testing.T) {
	dsn := "sqlite://" + filepath.Join(t.TempDir(), "history.db")
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
