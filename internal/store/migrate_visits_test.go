package store_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
)

// TestVisitsForeignKeysMigration: 0017 makes page_visits and observations
// again without their foreign keys, rows kept (storetest.Open's check says
// what the keys did); down, they are back, rows kept, and a visit or an
// observation of a page the store does not hold is refused again; up
// again, the store records the next scan.
func TestVisitsForeignKeysMigration(t *testing.T) {
	for _, e := range storetest.Engines() {
		t.Run(e.Name, func(t *testing.T) {
			ctx := context.Background()
			dsn, driver, source := migrationDB(t, e.Name)
			st := storetest.Open(t, dsn)
			observe := func(ctx context.Context, w *store.ScanWriter, pages []int64) {
				t.Helper()
				seen := []store.Sighting{
					{ObservationKey: store.ObservationKey{PageID: pages[0], Width: 320, Audit: "axe_core_audit"}},
					{ObservationKey: store.ObservationKey{PageID: pages[1], Width: 1280, Audit: "reflow_audit"}, Observed: store.Observed{Animating: true}},
				}
				if err := w.Observe(ctx, pages, seen, nil); err != nil {
					t.Fatal(err)
				}
			}
			var pages []int64
			changesScan(t, st, 1, func(ctx context.Context, w *store.ScanWriter, _ int64, p []int64) []int64 {
				pages = p
				observe(ctx, w, p)
				return nil
			})
			const rows = `SELECT (SELECT COUNT(*) FROM page_visits) || ' visits, ' || (SELECT COUNT(*) FROM observations) || ' observations'`
			read := func(db *sql.DB) string {
				t.Helper()
				var got string
				if err := db.QueryRowContext(ctx, rows).Scan(&got); err != nil {
					t.Fatal(err)
				}
				return got
			}
			const want = "2 visits, 2 observations"
			orphans := []string{
				`INSERT INTO page_visits (scan_id, page_id) VALUES (1, 999)`,
				`INSERT INTO page_visits (scan_id, page_id) VALUES (999, 1)`,
				`INSERT INTO observations (page_id, viewport_width, audit, animating, replaced) VALUES (999, 320, 'axe_core_audit', 0, 0)`,
			}
			for _, stmt := range orphans {
				if _, err := st.DB().ExecContext(ctx, stmt); err != nil {
					t.Errorf("at 0017 %q: %v, want it taken (no foreign key)", stmt, err)
				}
			}
			for _, stmt := range []string{`DELETE FROM page_visits WHERE page_id = 999 OR scan_id = 999`, `DELETE FROM observations WHERE page_id = 999`} {
				if _, err := st.DB().ExecContext(ctx, stmt); err != nil {
					t.Fatal(err)
				}
			}
			if got := read(st.DB()); got != want {
				t.Fatalf("at 0017: %s, want %s", got, want)
			}
			if e.Name != "sqlite" {
				var keys string
				err := st.DB().QueryRowContext(ctx, `SELECT string_agg(conname, ' ' ORDER BY conname) FROM pg_constraint
					WHERE conrelid IN ('page_visits'::regclass, 'observations'::regclass)`).Scan(&keys)
				if err != nil || keys != "observations_pkey page_visits_pkey" {
					t.Errorf("at 0017 the tables' constraints: %q (%v), want their keys alone, under their tables' names", keys, err)
				}
			}
			_ = st.Close()
			db := migratedTo(t, driver, source, 16)
			if driver == "sqlite" {
				// SQLite checks foreign keys only where asked, as the store asks.
				db.SetMaxOpenConns(1)
				if _, err := db.ExecContext(ctx, `PRAGMA foreign_keys = ON`); err != nil {
					t.Fatal(err)
				}
			}
			if got := read(db); got != want {
				t.Errorf("back at 0016: %s, want %s", got, want)
			}
			for _, stmt := range orphans {
				if _, err := db.ExecContext(ctx, stmt); err == nil {
					t.Errorf("back at 0016 %q was taken: the foreign keys are not back", stmt)
				}
			}
			_ = db.Close()
			st = storetest.Open(t, dsn) // Open applies 0017 again
			if got := read(st.DB()); got != want {
				t.Errorf("at 0017 again: %s, want %s", got, want)
			}
			changesScan(t, st, 2, func(ctx context.Context, w *store.ScanWriter, _ int64, _ []int64) []int64 {
				observe(ctx, w, pages)
				return nil
			})
			if got := read(st.DB()); got != "4 visits, 2 observations" {
				t.Errorf("after a scan at 0017 again: %s, want 4 visits, 2 observations", got)
			}
		})
	}
}
