package store

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
)

// roomForUpdates are PostgreSQL's fill factors (percent of each page that
// inserts fill) for the tables every scan updates row by row: each issue
// it shows (issue_sightings: last seen, scans present) and each page it
// visits (pages: last scan). Neither update touches an indexed column, so
// PostgreSQL can write the new version of a row beside the old one, on its
// page, without adding it to the table's indexes (a heap-only update), if
// the page has room: a table loaded full has none, and each update was
// then also an insert into every index. On a million-row scan's next week,
// the issue_sightings update took 4.05 s with no room and 2.34 s with it
// (EXPLAIN ANALYZE, docs/history.md). The space is what the old versions
// take until vacuum anyway. SQLite updates in place and has no such
// setting.
var roomForUpdates = []struct {
	table      string
	fillFactor int
}{
	{"issue_sightings", 50},
	{tablePages, 50},
}

// leaveRoomForUpdates sets roomForUpdates' fill factors on PostgreSQL
// where a table does not have them yet (a store made before they were
// set, or a new one): the setting applies to the pages written after it.
// Changing it takes a lock that waits only for vacuum and schema changes
// of that table, never for its readers or writers.
func leaveRoomForUpdates(ctx context.Context, db *sql.DB) error {
	for _, r := range roomForUpdates {
		want := "fillfactor=" + strconv.Itoa(r.fillFactor)
		var set bool
		err := db.QueryRowContext(ctx, `SELECT $2 = ANY(COALESCE(reloptions, '{}')) FROM pg_class WHERE oid = to_regclass($1)`,
			r.table, want).Scan(&set)
		if err != nil {
			return fmt.Errorf("store: reading the storage settings of %s: %w", r.table, err)
		}
		if set {
			continue
		}
		if _, err := db.ExecContext(ctx, fmt.Sprintf(`ALTER TABLE %s SET (fillfactor = %d)`, r.table, r.fillFactor)); err != nil {
			return fmt.Errorf("store: leaving room for updates in %s: %w", r.table, err)
		}
	}
	return nil
}
