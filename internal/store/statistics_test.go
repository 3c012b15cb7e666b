package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
)

// TestScanGathersStatisticsWhenItGrowsTheIssues: on PostgreSQL, a scan that
// adds more issues than 50 and a tenth of those stored analyzes the
// tables it grew, as autovacuum would at its next look; a smaller one
// leaves them to autovacuum. SQLite is never given statistics.
func TestScanGathersStatisticsWhenItGrowsTheIssues(t *testing.T) {
	for _, e := range storetest.Engines() {
		t.Run(e.Name, func(t *testing.T) {
			dsn, driver, source := migrationDB(t, e.Name)
			db, err := sql.Open(driver, source)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = db.Close() }()
			scans := 0
			// scan records a scan adding n issues, the store closed after
			// it (the server publishes a session's counts when it ends).
			scan := func(n int) {
				t.Helper()
				scans++
				st := storetest.Open(t, dsn)
				defer func() { _ = st.Close() }()
				changesScan(t, st, scans, func(ctx context.Context, w *store.ScanWriter, org int64, _ []int64) []int64 {
					pages, err := w.AddPages(ctx, org, []string{fmt.Sprintf("https://health.example/%d", scans)})
					if err != nil {
						t.Fatal(err)
					}
					first := w.IssueIDs(n)
					ids := make([]int64, n)
					issues := make([]store.NewIssue, n)
					for i := range n {
						ids[i] = first + int64(i)
						issues[i] = store.NewIssue{Fingerprint: fmt.Sprintf("%d-%d", scans, i), OrgID: org, PageID: pages[0], Width: 320,
							Audit: "axe_core_audit", Rule: "image-alt", Impact: "critical", ElementHTML: "<img>"}
					}
					if err := w.AddIssues(ctx, ids, issues); err != nil {
						t.Fatal(err)
					}
					return ids
				})
			}
			if e.Name == "sqlite" {
				scan(60)
				noSQLiteStatistics(t, db, "a scan")
				return
			}
			analyzed := func(want int) { t.Helper(); waitAnalyzed(t, db, "issues", want) }
			_ = storetest.Open(t, dsn).Close()
			analyzed(1) // Open, migrating from nothing
			scan(51)    // 51 into none: more than 50
			analyzed(2)
			scan(55) // 55 into 51: not more than 50 and a tenth (55)
			scan(61) // 61 into 106: more than 50 and a tenth (60)
			analyzed(3)
		})
	}
}
