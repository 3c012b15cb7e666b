package store_test

import (
	"database/sql"
	"testing"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
)

// TestOpenGathersStatisticsAfterMigrating: on PostgreSQL, Open analyzes
// the database when it migrated it (tables made again have no statistics
// until autovacuum looks), and not when it found it current; on SQLite it
// never does (statistics there would change every query's plan).
func TestOpenGathersStatisticsAfterMigrating(t *testing.T) {
	for _, e := range storetest.Engines() {
		t.Run(e.Name, func(t *testing.T) {
			dsn, driver, source := migrationDB(t, e.Name)
			open := func() {
				t.Helper()
				st := storetest.Open(t, dsn)
				_ = st.Close()
			}
			db, err := sql.Open(driver, source)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = db.Close() }()
			open()
			if e.Name == "sqlite" {
				var n int
				if err := db.QueryRow(`SELECT COUNT(*) FROM sqlite_master WHERE name = 'sqlite_stat1'`).Scan(&n); err != nil || n != 0 {
					t.Fatalf("SQLite has statistics after Open (%d tables, %v)", n, err)
				}
				return
			}
			analyzed := func(want int) {
				t.Helper()
				var got int
				// The server publishes a session's counts when it ends:
				// wait for them, not for a time.
				for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
					if err := db.QueryRow(`SELECT analyze_count FROM pg_stat_user_tables WHERE relname = 'scans'`).Scan(&got); err != nil {
						t.Fatal(err)
					}
					if got >= want || time.Now().After(deadline) {
						break
					}
				}
				if got != want {
					t.Fatalf("scans analyzed %d times, want %d", got, want)
				}
			}
			analyzed(1) // migrated from nothing
			open()      // current: nothing to do
			analyzed(1)
			_ = migratedTo(t, driver, source, 14).Close()
			open() // 0015 again
			analyzed(2)
		})
	}
}
