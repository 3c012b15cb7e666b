//go:build integration

package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
)

// TestPostgresLeavesRoomForUpdates: on PostgreSQL, Open gives the tables
// every scan updates row by row a fill factor that leaves room on their
// pages, also to a store made without it; and the next scan's updates of
// what the first wrote then stay on the rows' own pages (heap-only
// updates: no new index entries). In a table filled to the brim each
// updated row moved to a new page.
func TestPostgresLeavesRoomForUpdates(t *testing.T) {
	ctx := context.Background()
	dsn := storetest.NewPostgresDSN(t)
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	fillFactor := func(table string) string {
		t.Helper()
		var options sql.NullString
		if err := db.QueryRowContext(ctx, `SELECT array_to_string(reloptions, ',') FROM pg_class WHERE oid = to_regclass($1)`,
			table).Scan(&options); err != nil {
			t.Fatal(err)
		}
		return options.String
	}
	_ = storetest.Open(t, dsn).Close()
	for _, table := range []string{"issue_sightings", "pages"} {
		if got := fillFactor(table); got != "fillfactor=50" {
			t.Errorf("%s after Open: storage settings %q, want fillfactor=50", table, got)
		}
		// A store made before the setting: Open sets it.
		if _, err := db.ExecContext(ctx, `ALTER TABLE `+table+` RESET (fillfactor)`); err != nil {
			t.Fatal(err)
		}
	}
	st := storetest.Open(t, dsn)
	defer func() { _ = st.Close() }()
	for _, table := range []string{"issue_sightings", "pages"} {
		if got := fillFactor(table); got != "fillfactor=50" {
			t.Errorf("%s after Open of a store without it: storage settings %q, want fillfactor=50", table, got)
		}
	}

	// Enough rows for several pages of each table.
	const n = 2000
	urls := make([]string, n)
	for i := range urls {
		urls[i] = fmt.Sprintf("https://health.example/page-%d", i)
	}
	var ids, pages []int64
	changesScan(t, st, 1, func(ctx context.Context, w *store.ScanWriter, org int64, _ []int64) []int64 {
		if pages, err = w.AddPages(ctx, org, urls); err != nil {
			t.Fatal(err)
		}
		first := w.IssueIDs(n)
		ids = make([]int64, n)
		issues := make([]store.NewIssue, n)
		for i := range n {
			ids[i] = first + int64(i)
			issues[i] = store.NewIssue{Fingerprint: fmt.Sprintf("f-%d", i), OrgID: org, PageID: pages[i], Width: 320,
				Audit: "axe_core_audit", Rule: "image-alt", Impact: "critical", ElementHTML: "<img>"}
		}
		// The pages are not visited (Observe) here: a row updated in the
		// scan that wrote it leaves a version the next update can reuse
		// only once no snapshot needs it, which another connection (an
		// autovacuum worker's ANALYZE) may hold.
		if err := w.AddIssues(ctx, ids, issues); err != nil {
			t.Fatal(err)
		}
		return ids
	})
	// blocks maps each row's key to the table page it is on (the pages:
	// those added above).
	blocks := func(table, key string) map[int64]int64 {
		t.Helper()
		where := ""
		if table == "pages" {
			where = ` WHERE url LIKE 'https://health.example/page-%'`
		}
		rows, err := db.QueryContext(ctx, `SELECT `+key+`, (ctid::text::point)[0]::bigint FROM `+table+where)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = rows.Close() }()
		at := map[int64]int64{}
		for rows.Next() {
			var k, b int64
			if err := rows.Scan(&k, &b); err != nil {
				t.Fatal(err)
			}
			at[k] = b
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return at
	}
	sightingsAt, pagesAt := blocks("issue_sightings", "issue_id"), blocks("pages", "id")
	changesScan(t, st, 2, func(ctx context.Context, w *store.ScanWriter, _ int64, _ []int64) []int64 {
		if err := w.Observe(ctx, pages, nil, nil); err != nil {
			t.Fatal(err)
		}
		if err := w.AddPresences(ctx, ids); err != nil {
			t.Fatal(err)
		}
		if err := w.FinishPresences(ctx); err != nil {
			t.Fatal(err)
		}
		return nil
	})
	// A page's row grows when its first visit sets its last scan (from
	// none): a few rows of each table page then do not fit beside their
	// old versions (about 4 of 53 here). Filled to the brim, nearly all
	// of them moved.
	for _, c := range []struct {
		table   string
		before  map[int64]int64
		after   map[int64]int64
		written string
		mayMove int
	}{
		{"issue_sightings", sightingsAt, blocks("issue_sightings", "issue_id"), "SELECT count(*) FROM issue_sightings WHERE scans_present = 2", 0},
		{"pages", pagesAt, blocks("pages", "id"),
			"SELECT count(*) FROM pages WHERE last_scan_id = (SELECT max(id) FROM scans) AND url LIKE 'https://health.example/page-%'", n / 4},
	} {
		var updated int
		if err := db.QueryRowContext(ctx, c.written).Scan(&updated); err != nil {
			t.Fatal(err)
		}
		if updated != n || len(c.before) != n || len(c.after) != n {
			t.Fatalf("%s: %d rows updated by the second scan, %d and %d rows; want %d", c.table, updated, len(c.before), len(c.after), n)
		}
		moved := 0
		for k, b := range c.before {
			if c.after[k] != b {
				moved++
			}
		}
		if moved > c.mayMove {
			t.Errorf("%s: %d of %d rows moved to another page when the second scan updated them; want at most %d (room left for updates)",
				c.table, moved, n, c.mayMove)
		}
	}
}
