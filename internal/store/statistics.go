package store

import "context"

// PostgreSQL plans the store's queries by each table's statistics, which
// autovacuum gathers once a table has changed by more than 50 rows and a
// tenth of what it held, at its next look (a minute apart by default). A
// scan that grows the issues past that leaves the next reads and the next
// scan's ingest planned for the tables as they were: right after a first
// large scan, as if they were empty. Such a scan gathers them at once,
// after its commit, as autovacuum would have (analyzeMinRows and
// analyzeShare are autovacuum's own defaults).
const (
	analyzeMinRows = 50
	analyzeShare   = 10
)

// analyzedTables are the tables a scan adds rows to for each of its
// issues or pages, whose statistics its growth changes.
const analyzedTables = "pages, issues, issue_sightings, issue_changes, presences"

// growsStatistics says whether a scan that added added issues to a table
// of about before issues changed it enough to gather its statistics.
func growsStatistics(before, added int64) bool {
	return added > analyzeMinRows+before/analyzeShare
}

// gatherStatistics analyzes the tables a committed scan grew enough
// (PostgreSQL only: the store keeps SQLite without statistics, which
// would change every query's plan). It is the planner's help, not the
// scan's record: a failure leaves the statistics to autovacuum.
func (w *ScanWriter) gatherStatistics(ctx context.Context) {
	if w.s.engine != Postgres || !growsStatistics(w.issuesBefore, w.issuesAdded) {
		return
	}
	_, _ = w.s.db.ExecContext(ctx, `ANALYZE `+analyzedTables)
}
