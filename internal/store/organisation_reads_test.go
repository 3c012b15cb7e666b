package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
)

// TestDashboardReads writes three scans of organisation O (a fix, a page
// not scanned, a reopened issue) and one of another namespace, and reads
// them through the dashboard's queries on every engine.
func TestDashboardReads(t *testing.T) {
	for _, e := range storetest.Engines() {
		t.Run(e.Name, func(t *testing.T) {
			st := e.Open(t)
			known, other := map[string]int64{}, map[string]int64{}
			writeScan(t, st, known, scanSpec{uid: "s1", at: 100, schedule: "weekly",
				show: map[string]string{"a1": "https://o/", "a2": "https://o/b", "c3": "https://o/b"}})
			writeScan(t, st, known, scanSpec{uid: "s2", at: 200, schedule: "weekly",
				show: map[string]string{"a1": "https://o/"}, fix: map[string]string{"a2": store.ReasonPageNotScanned, "c3": store.ReasonFixed}})
			writeScan(t, st, known, scanSpec{uid: "s3", at: 300, schedule: "weekly",
				show: map[string]string{"a1": "https://o/", "a2": "https://o/b", "a4": "https://o/c"}, reopen: []string{"a2"}})
			writeScan(t, st, other, scanSpec{uid: "t1", namespace: "team", at: 50, show: map[string]string{"b1": "https://o/"}})

			checkRecentScores(t, st)
			checkPagesAndChanges(t, st)
		})
	}
}

func checkRecentScores(t *testing.T, st *store.Store) {
	t.Helper()
	ctx := context.Background()
	recent, err := st.RecentScores(ctx, nsO, 2)
	if err != nil {
		t.Fatal(err)
	}
	got := recent[store.OrganisationKey{Namespace: "ns", Name: "O"}]
	if len(recent) != 1 || len(got) != 2 || got[0].Scan != "ns/s2" || got[1].Scan != "ns/s3" || got[0].Issues != 1 || got[1].Issues != 3 ||
		got[1].Score == nil || *got[1].Score != 90 {
		t.Errorf("recent scores of ns: %+v", recent)
	}
	all, err := st.RecentScores(ctx, []string{"ns", "team"}, store.MaxRecentPoints)
	if err != nil || len(all) != 2 || len(all[store.OrganisationKey{Namespace: "ns", Name: "O"}]) != 3 ||
		len(all[store.OrganisationKey{Namespace: "team", Name: "O"}]) != 1 {
		t.Errorf("recent scores of both namespaces: %+v %v", all, err)
	}
	for _, n := range []int{0, store.MaxRecentPoints + 1} {
		if _, err := st.RecentScores(ctx, nsO, n); err == nil {
			t.Errorf("RecentScores took %d points", n)
		}
	}
	if _, err := st.RecentScores(ctx, nil, 2); !errors.Is(err, store.ErrNoNamespace) {
		t.Errorf("RecentScores without namespaces: %v", err)
	}
}

func checkPagesAndChanges(t *testing.T, st *store.Store) {
	t.Helper()
	ctx := context.Background()
	pages, err := st.OrganisationPages(ctx, "ns", "O", 10)
	want := []store.PageIssues{{Page: "https://o/", Open: 1}, {Page: "https://o/b", Open: 1}, {Page: "https://o/c", Open: 1}}
	if err != nil || len(pages) != len(want) {
		t.Fatalf("open issues by page: %+v %v", pages, err)
	}
	for i := range want {
		if pages[i] != want[i] {
			t.Errorf("page %d: %+v, want %+v", i, pages[i], want[i])
		}
	}
	if pages, err := st.OrganisationPages(ctx, "ns", "O", 1); err != nil || len(pages) != 1 {
		t.Errorf("limit 1: %+v %v", pages, err)
	}
	if _, err := st.OrganisationPages(ctx, "team", "Nobody", 10); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown organisation: %v", err)
	}

	ch, err := st.OrganisationLatestChanges(ctx, "ns", "O", 10)
	if err != nil {
		t.Fatal(err)
	}
	if ch.Scan != "ns/s3" || len(ch.New) != 1 || ch.New[0].Fingerprint != "a4" || len(ch.Fixed) != 0 ||
		len(ch.Reopened) != 1 || ch.Reopened[0].Fingerprint != "a2" {
		t.Errorf("latest changes: %+v", ch)
	}
	// The team's only scan: everything new, nothing reopened (no scan before).
	if ch, err := st.OrganisationLatestChanges(ctx, "team", "O", 10); err != nil || len(ch.New) != 1 || len(ch.Reopened) != 0 {
		t.Errorf("team's latest changes: %+v %v", ch, err)
	}

	checkScanOrganisations(t, st)
}

// checkScanOrganisations: a scan's organisations a page at a time, and one
// organisation's summary.
func checkScanOrganisations(t *testing.T, st *store.Store) {
	t.Helper()
	ctx := context.Background()
	orgs, total, err := st.ScanOrganisations(ctx, "ns", "s2", 0, 10)
	if err != nil || total != 1 || len(orgs) != 1 || orgs[0].Organisation != "O" || orgs[0].Sector != "Sector" || orgs[0].Figures.Issues != 1 ||
		orgs[0].Figures.Scan != "ns/s2" {
		t.Errorf("scan s2's organisations: %+v %d %v", orgs, total, err)
	}
	if orgs, total, err := st.ScanOrganisations(ctx, "ns", "s2", 1, 10); err != nil || total != 1 || len(orgs) != 0 {
		t.Errorf("past the last organisation: %+v %d %v", orgs, total, err)
	}
	for _, bad := range [][2]int{{0, 0}, {0, store.MaxScanOrganisations + 1}, {-1, 10}} {
		if _, _, err := st.ScanOrganisations(ctx, "ns", "s2", bad[0], bad[1]); err == nil {
			t.Errorf("offset %d, limit %d accepted", bad[0], bad[1])
		}
	}
	if _, _, err := st.ScanOrganisations(ctx, "team", "s2", 0, 10); !errors.Is(err, store.ErrScanNotStored) {
		t.Errorf("a scan of another namespace: %v", err)
	}
	if o, err := st.Organisation(ctx, "ns", "O"); err != nil || o.Sector != "Sector" || o.Scans != 3 || o.Latest == nil || o.Latest.Scan != "ns/s3" {
		t.Errorf("organisation O: %+v %v", o, err)
	}
	if _, err := st.Organisation(ctx, "ns", "Nobody"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("an unknown organisation: %v", err)
	}
}

// TestLatestChangesFixed: the scan that fixes issues lists them as fixed.
func TestLatestChangesFixed(t *testing.T) {
	st := storetest.OpenSQLite(t)
	known := map[string]int64{}
	writeScan(t, st, known, scanSpec{uid: "s1", at: 100, show: map[string]string{"a1": "https://o/", "c3": "https://o/b"}})
	writeScan(t, st, known, scanSpec{uid: "s2", at: 200, show: map[string]string{"a1": "https://o/"}, fix: map[string]string{"c3": store.ReasonFixed}})
	ch, err := st.OrganisationLatestChanges(context.Background(), "ns", "O", 10)
	if err != nil || len(ch.Fixed) != 1 || ch.Fixed[0].Fingerprint != "c3" || ch.Fixed[0].FixedReason != store.ReasonFixed || len(ch.New) != 0 {
		t.Errorf("latest changes: %+v %v", ch, err)
	}
}

// TestRecentScoresTies: scans that finished at the same second are
// ordered by their ids, and the newest n are kept whichever of them the
// nth falls on.
func TestRecentScoresTies(t *testing.T) {
	for _, e := range storetest.Engines() {
		t.Run(e.Name, func(t *testing.T) {
			st := e.Open(t)
			known := map[string]int64{}
			for _, s := range []scanSpec{{uid: "s1", at: 100}, {uid: "s2", at: 200}, {uid: "s3", at: 200}, {uid: "s4", at: 200}} {
				s.show = map[string]string{"a1": "https://o/"}
				writeScan(t, st, known, s)
			}
			key := store.OrganisationKey{Namespace: "ns", Name: "O"}
			for n, want := range map[int]string{1: "s4", 2: "s3 s4", 3: "s2 s3 s4", 4: "s1 s2 s3 s4", 5: "s1 s2 s3 s4"} {
				for _, read := range []func() (map[store.OrganisationKey][]store.ScorePoint, error){
					func() (map[store.OrganisationKey][]store.ScorePoint, error) {
						return st.RecentScores(context.Background(), nsO, n)
					},
				} {
					got, err := read()
					if err != nil {
						t.Fatal(err)
					}
					names := make([]string, 0, len(got[key]))
					for _, p := range got[key] {
						names = append(names, strings.TrimPrefix(p.Scan, "ns/"))
					}
					if strings.Join(names, " ") != want {
						t.Errorf("newest %d: %v, want %s", n, names, want)
					}
				}
			}
		})
	}
}

// TestGeneration: recording a scan and pruning one each change the
// generation of their namespace, and only of theirs; reading changes
// nothing.
func TestGeneration(t *testing.T) {
	for _, e := range storetest.Engines() {
		t.Run(e.Name, func(t *testing.T) {
			ctx := context.Background()
			st := e.Open(t)
			gen := func(ns string) store.Generation {
				t.Helper()
				g, err := st.Generation(ctx, []string{ns})
				if err != nil {
					t.Fatal(err)
				}
				return g
			}
			empty := gen("ns")
			if empty != (store.Generation{}) {
				t.Errorf("an empty store: %+v", empty)
			}
			known := map[string]int64{}
			writeScan(t, st, known, scanSpec{uid: "s1", at: 1000, show: map[string]string{"a1": "https://o/"}})
			one := gen("ns")
			writeScan(t, st, known, scanSpec{uid: "t1", namespace: "team", at: 1500, show: map[string]string{"b1": "https://o/"}})
			if gen("ns") != one {
				t.Errorf("another namespace's scan changed ns's generation")
			}
			writeScan(t, st, known, scanSpec{uid: "s2", at: 2000, show: map[string]string{"a1": "https://o/"}})
			two := gen("ns")
			if two == one || two.Scans != 2 {
				t.Errorf("a recorded scan: %+v then %+v", one, two)
			}
			if _, err := st.Organisations(ctx, []string{"ns"}); err != nil || gen("ns") != two {
				t.Errorf("a read changed the generation: %v", err)
			}
			store.SetClock(st, func() time.Time { return at(3000) })
			if res, err := st.Prune(ctx, store.Retention{MaxScans: 1}); err != nil || res.Scans != 1 {
				t.Fatalf("prune: %+v %v", res, err)
			}
			if pruned := gen("ns"); pruned == two || pruned.Pruned != 1 || pruned.Scans != 2 {
				t.Errorf("a pruned scan: %+v then %+v", two, pruned)
			}
			if _, err := st.Generation(ctx, nil); !errors.Is(err, store.ErrNoNamespace) {
				t.Errorf("no namespace: %v", err)
			}
		})
	}
}
