package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
)

// writeFigures writes one scan with the given organisations' figures only.
func writeFigures(t *testing.T, st *store.Store, uid, schedule string, finished int64, engine store.EngineVersions, orgs []orgFigures) {
	t.Helper()
	ctx := context.Background()
	w, err := st.BeginScan(ctx, store.Scan{UID: uid, Namespace: "ns", Name: uid, Schedule: schedule, FinishedAt: at(finished),
		Phase: "Complete", Engine: engine}, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Rollback()
	for _, o := range orgs {
		id, err := w.Organisation(ctx, o.name, o.sector)
		if err != nil {
			t.Fatal(err)
		}
		f := o.figures
		f.OrgID, f.Schedule = id, schedule
		if err := w.AddOrganisationFigures(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
}

type orgFigures struct {
	name, sector string
	figures      store.OrganisationFigures
}

// A sector's trend sums its organisations' figures per scan, leaving out
// (and counting) those blocked or unreachable in that scan, and only its
// own organisations.
func TestSectorTrend(t *testing.T) {
	figures := func(pages int, critical, minor, newIssues int64, verdict string) store.OrganisationFigures {
		return store.OrganisationFigures{BaseURLs: 1, Pages: pages, Issues: critical + minor, Elements: critical + minor,
			ByImpact: [5]int64{critical, 0, 0, minor, 0}, New: newIssues, Open: critical + minor, Completeness: verdict}
	}
	for _, e := range storetest.Engines() {
		t.Run(e.Name, func(t *testing.T) {
			st := e.Open(t)
			ctx := context.Background()
			v1 := store.EngineVersions{AxeCore: "4.10"}
			writeFigures(t, st, "w1", "weekly", 100, v1, []orgFigures{
				{"A", "Health", figures(10, 2, 1, 3, "complete")},
				{"B", "Health", figures(4, 1, 0, 1, "partial")},
				{"C", "Education", figures(7, 9, 9, 9, "complete")},
			})
			writeFigures(t, st, "d1", "daily", 150, v1, []orgFigures{{"A", "Health", figures(10, 5, 0, 0, "complete")}})
			writeFigures(t, st, "w2", "weekly", 200, store.EngineVersions{AxeCore: "4.11"}, []orgFigures{
				{"A", "Health", figures(10, 1, 1, 0, "complete")},
				{"B", "Health", figures(1, 0, 0, 0, "blocked")}, // a challenge page: not summed
				{"C", "Education", figures(7, 9, 9, 0, "complete")},
			})

			got, err := st.SectorTrend(ctx, []string{"ns"}, "Health", "weekly")
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 2 {
				t.Fatalf("%d points, want 2: %+v", len(got), got)
			}
			p1, p2 := got[0], got[1]
			if p1.Scan != "ns/w1" || p1.Organisations != 2 || p1.NotScored != 0 || p1.Pages != 14 || p1.ByImpact["critical"] != 3 ||
				p1.ByImpact["minor"] != 1 || p1.Issues != 4 || p1.New != 4 || p1.BaseURLs != 2 || p1.EngineChanged {
				t.Errorf("first point %+v", p1)
			}
			if p2.Scan != "ns/w2" || p2.Organisations != 2 || p2.NotScored != 1 || p2.Pages != 10 || p2.ByImpact["critical"] != 1 ||
				p2.Issues != 2 || !p2.EngineChanged || p2.Engine.AxeCore != "4.11" {
				t.Errorf("second point (B blocked, left out of the sums) %+v", p2)
			}
			all, err := st.SectorTrend(ctx, []string{"ns"}, "Health", "")
			if err != nil || len(all) != 3 || all[1].Scan != "ns/d1" || all[1].Pages != 10 {
				t.Errorf("every schedule: %+v %v", all, err)
			}
			if _, err := st.SectorTrend(ctx, []string{"ns"}, "Defence", ""); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("an unknown sector: %v, want ErrNotFound", err)
			}
			if _, err := st.SectorTrend(ctx, []string{"other"}, "Health", ""); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("a sector of another namespace: %v, want ErrNotFound", err)
			}
			if _, err := st.SectorTrend(ctx, nil, "Health", ""); !errors.Is(err, store.ErrNoNamespace) {
				t.Errorf("no namespaces: %v, want ErrNoNamespace", err)
			}
		})
	}
}
