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
				noSQLiteStatistics(t, db, "Open")
				return
			}
			analyzed := func(want int) { t.Helper(); waitAnalyzed(t, db, "scans", want) }
			analyzed(1) // migrated from nothing
			open()      // current: nothing to do
			analyzed(1)
			_ = migratedTo(t, driver, source, 14).Close()
			open() // 0015 again
			analyzed(2)
		})
	}
}

// noSQLiteStatistics fails the test when the SQLite database has
// statistics (sqlite_stat1) after what.
func noSQLiteStatistics(t *testing.T, db *sql.DB, what string) {
	t.Helper()
	var n int
	if err := db.QueryRow(`SELECT COUNT(*) FROM sqlite_master WHERE name = 'sqlite_stat1'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("SQLite has statistics after %s (%d tables, %v)", what, n, err)
	}
}

// waitAnalyzed waits for PostgreSQL to count want analyses of table, and
// fails the test if it counts another number. The server publishes a
// session's counts when it ends: the wait is for them, not for a time.
func waitAnalyzed(t *testing.T, db *sql.DB, table string, want int) {
	t.Helper()
	var got int
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if err := db.QueryRow(`SELECT analyze_count FROM pg_stat_user_tables WHERE relname = $1`, table).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got >= want || time.Now().After(deadline) {
			break
		}
	}
	if got != want {
		t.Fatalf("%s analyzed %d times, want %d", table, got, want)
	}
}
