package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
)

// TestPruneByAge: scans older than the age lose their data, newer ones
// keep it, and a zero policy prunes nothing; per-schedule counts are
// independent.
func TestPruneByAge(t *testing.T) {
	for _, e := range storetest.Engines() {
		t.Run(e.Name, func(t *testing.T) {
			ctx := context.Background()
			st := e.Open(t)
			known := map[string]int64{}
			writeScan(t, st, known, scanSpec{uid: "old", at: 1000, schedule: "a", show: map[string]string{"a1": "https://o/"}})
			writeScan(t, st, known, scanSpec{uid: "mid", at: 2000, schedule: "b", show: map[string]string{"a1": "https://o/"}})
			writeScan(t, st, known, scanSpec{uid: "new", at: 3000, schedule: "a", show: map[string]string{"a1": "https://o/"}})
			store.SetClock(st, func() time.Time { return at(3000) })
			if res, err := st.Prune(ctx, store.Retention{}); err != nil || res != (store.PruneResult{}) {
				t.Errorf("no policy: %+v %v", res, err)
			}
			// One scan per schedule: "old" goes (schedule a has "new"), "mid"
			// stays. "old" first saw a1, which a1's first scan says, not a
			// row of presences: none is deleted.
			res, err := st.Prune(ctx, store.Retention{MaxScans: 1})
			if err != nil || res.Scans != 1 || res.Presences != 0 {
				t.Errorf("one per schedule: %+v %v", res, err)
			}
			// The pruned scan's page visits went with its presences.
			if n, err := store.CountRows(st, "page_visits"); err != nil || n != 2 {
				t.Errorf("page visits after pruning one of three scans: %d, %v; want 2", n, err)
			}
			// Age: 1,000 s before 3,000 leaves only "new" (2,000 is not older than 2,000).
			res, err = st.Prune(ctx, store.Retention{MaxAge: 1000 * time.Second})
			if err != nil || res.Scans != 0 {
				t.Errorf("age at the limit: %+v %v", res, err)
			}
			res, err = st.Prune(ctx, store.Retention{MaxAge: 999 * time.Second})
			if err != nil || res.Scans != 1 || res.Presences != 1 {
				t.Errorf("age past the limit: %+v %v", res, err)
			}
			trend, err := st.OrganisationTrend(ctx, []string{"ns"}, "O", "")
			if err != nil || len(trend) != 1 || trend[0].Scan != "ns/new" {
				t.Errorf("trend after pruning: %+v %v", trend, err)
			}
		})
	}
}
