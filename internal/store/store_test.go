package store_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
)

// nsO scopes the reads to the namespace writeScan writes in.
var nsO = []string{"ns"}

func at(sec int64) time.Time { return time.Unix(sec, 0).UTC() }

// writeScan writes one scan of organisation "O" through the ScanWriter:
// the issues given as fingerprint → page URL are shown by the scan (new
// ones added), fixed lists issues fixed in it, and its figures.
type scanSpec struct {
	uid       string
	namespace string // default "ns"
	at        int64
	schedule  string
	engine    store.EngineVersions
	show      map[string]string // fingerprint → page, shown by the scan
	fix       map[string]string // fingerprint → reason
	reopen    []string
}

func writeScan(t *testing.T, st *store.Store, known map[string]int64, spec scanSpec) {
	t.Helper()
	ctx := context.Background()
	if spec.namespace == "" {
		spec.namespace = "ns"
	}
	w, err := st.BeginScan(ctx, store.Scan{UID: spec.uid, Namespace: spec.namespace, Name: spec.uid, Schedule: spec.schedule,
		FinishedAt: at(spec.at), Phase: "Complete", Engine: spec.engine}, "test")
	if err != nil {
		t.Fatalf("BeginScan %s: %v", spec.uid, err)
	}
	defer w.Rollback()
	org, err := w.Organisation(ctx, "O", "Sector")
	if err != nil {
		t.Fatal(err)
	}
	pages, err := w.Pages(ctx, org)
	if err != nil {
		t.Fatal(err)
	}
	var shown, shownBefore []int64
	for _, fp := range slices.Sorted(maps.Keys(spec.show)) { // ids in fingerprint order
		page := spec.show[fp]
		if id, ok := known[fp]; ok {
			shown, shownBefore = append(shown, id), append(shownBefore, id)
			continue
		}
		if _, ok := pages[page]; !ok {
			ids, err := w.AddPages(ctx, org, []string{page})
			if err != nil {
				t.Fatal(err)
			}
			pages[page] = ids[0]
		}
		id := w.IssueIDs(1)
		rule := "image-alt"
		if strings.HasPrefix(fp, "c") {
			rule = "color-contrast"
		}
		if err := w.AddIssues(ctx, []int64{id}, []store.NewIssue{{Fingerprint: fp, OrgID: org, PageID: pages[page], Width: 320,
			Audit: "axe_core_audit", Rule: rule, Impact: "critical", ElementHTML: "<img>", ElementHash: 1, Target: "/html", TargetHash: 2,
			HelpURL: "https://help", WCAG: "1.1.1,4.1.2"}}); err != nil {
			t.Fatal(err)
		}
		known[fp] = id
		shown = append(shown, id)
	}
	for fp, reason := range spec.fix {
		if err := w.Fix(ctx, []int64{known[fp]}, reason); err != nil {
			t.Fatal(err)
		}
	}
	reopen := make([]int64, 0, len(spec.reopen))
	for _, fp := range spec.reopen {
		reopen = append(reopen, known[fp])
	}
	if err := w.Reopen(ctx, reopen); err != nil {
		t.Fatal(err)
	}
	visited := make([]int64, 0, len(spec.show))
	for _, page := range spec.show {
		if !slices.Contains(visited, pages[page]) {
			visited = append(visited, pages[page])
		}
	}
	if err := w.Observe(ctx, visited, nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := w.AddPresences(ctx, shownBefore); err != nil { // the commit shows the new ones
		t.Fatal(err)
	}
	if err := w.FinishPresences(ctx); err != nil {
		t.Fatal(err)
	}
	score := 90.0
	if err := w.AddOrganisationFigures(ctx, store.OrganisationFigures{OrgID: org, Schedule: spec.schedule, BaseURLs: 1, Pages: 2,
		Issues: int64(len(shown)), Elements: int64(len(shown)), ByImpact: [5]int64{int64(len(shown))}, ByAudit: map[string]int64{"axe_core_audit": int64(len(shown))},
		WeightedPerPage: 10, Score: &score, Open: int64(len(shown))}); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestStoreLifecycle writes scans through the ScanWriter and reads them
// back through every query, on every engine.
func TestStoreLifecycle(t *testing.T) {
	for _, e := range storetest.Engines() {
		t.Run(e.Name, func(t *testing.T) {
			st := e.Open(t)
			known := map[string]int64{}
			axe413 := store.EngineVersions{AxeCore: "4.13", Chrome: "156"}
			writeScan(t, st, known, scanSpec{uid: "s1", at: 100, schedule: "weekly", engine: axe413,
				show: map[string]string{"a1": "https://o/", "a2": "https://o/b", "c3": "https://o/b"}})
			writeScan(t, st, known, scanSpec{uid: "s2", at: 200, schedule: "weekly", engine: axe413,
				show: map[string]string{"a1": "https://o/"}, fix: map[string]string{"a2": store.ReasonPageNotScanned, "c3": store.ReasonFixed}})
			writeScan(t, st, known, scanSpec{uid: "s3", at: 300, schedule: "weekly", engine: store.EngineVersions{AxeCore: "4.14", Chrome: "156"},
				show: map[string]string{"a1": "https://o/", "a2": "https://o/b"}, reopen: []string{"a2"}})

			checkWriteRules(t, st)
			checkIssues(t, st)
			checkFilters(t, st)
			checkDetailAndTrend(t, st)
			checkPrune(t, st)
		})
	}
}

// checkWriteRules: the same scan again, an older scan and an incomplete one add nothing.
func checkWriteRules(t *testing.T, st *store.Store) {
	t.Helper()
	ctx := context.Background()
	// The same scan again, and an older one, add nothing.
	if _, err := st.BeginScan(ctx, store.Scan{UID: "s2", Name: "s2", FinishedAt: at(200)}, "test"); !errors.Is(err, store.ErrScanExists) {
		t.Errorf("BeginScan of a stored scan: %v, want ErrScanExists", err)
	}
	w, err := st.BeginScan(ctx, store.Scan{UID: "old", Namespace: "ns", Name: "old", FinishedAt: at(150)}, "test")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Organisation(ctx, "O", ""); !errors.Is(err, store.ErrOutOfOrder) || !strings.Contains(err.Error(), `"O"`) {
		t.Errorf("an older scan: %v, want ErrOutOfOrder naming the organisation", err)
	}
	w.Rollback()
	// The same organisation in another namespace is another history: an
	// older scan there is not out of order.
	w, err = st.BeginScan(ctx, store.Scan{UID: "other-old", Namespace: "other", Name: "old", FinishedAt: at(150)}, "test")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Organisation(ctx, "O", ""); err != nil {
		t.Errorf("organisation O in another namespace: %v", err)
	}
	w.Rollback()
	if ok, err := st.HasScan(ctx, "old"); ok || err != nil {
		t.Errorf("the rolled back scan is stored: %v %v", ok, err)
	}
	if _, err := st.BeginScan(ctx, store.Scan{UID: "x"}, "test"); err == nil {
		t.Error("a scan without a name or time was accepted")
	}
	checkNewIssuesShownByCommit(t, st)
}

// checkNewIssuesShownByCommit: a scan's new issues are shown by its
// commit, so a presence written for one is refused by name.
func checkNewIssuesShownByCommit(t *testing.T, st *store.Store) {
	t.Helper()
	ctx := context.Background()
	w, err := st.BeginScan(ctx, store.Scan{UID: "later", Namespace: "ns", Name: "later", FinishedAt: at(1000)}, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Rollback()
	org, err := w.Organisation(ctx, "O", "Sector")
	if err != nil {
		t.Fatal(err)
	}
	pages, err := w.AddPages(ctx, org, []string{"https://o/new"})
	if err != nil {
		t.Fatal(err)
	}
	id := w.IssueIDs(1)
	if err := w.AddIssues(ctx, []int64{id}, []store.NewIssue{{Fingerprint: "n1", OrgID: org, PageID: pages[0], Width: 320,
		Audit: "axe_core_audit", Rule: "image-alt", Impact: "critical", ElementHTML: "<img>", ElementHash: 1, Target: "/html", TargetHash: 2}}); err != nil {
		t.Fatal(err)
	}
	err = w.AddPresences(ctx, []int64{id - 1, id})
	if want := fmt.Sprintf("issue %d is new in this scan", id); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a presence of a new issue: %v, want an error saying %q", err, want)
	}
	if err := w.AddPresences(ctx, []int64{id - 1}); err != nil {
		t.Errorf("a presence of an issue stored before: %v", err)
	}
}

// checkIssues: each issue as IssueHistory returns it.
func checkIssues(t *testing.T, st *store.Store) {
	t.Helper()
	ctx := context.Background()
	all, err := st.IssueHistory(ctx, store.IssueFilter{Namespaces: nsO})
	if err != nil {
		t.Fatal(err)
	}
	if all.Total != 3 || len(all.Issues) != 3 || all.Issues[0].Fingerprint != "a1" || all.Issues[2].Fingerprint != "c3" {
		t.Fatalf("all issues: %+v", all)
	}
	a1, a2, c3 := all.Issues[0], all.Issues[1], all.Issues[2]
	if a1.State != "open" || a1.FirstSeenScan != "ns/s1" || a1.LastSeenScan != "ns/s3" || a1.ScansPresent != 3 || a1.Reopened != 0 ||
		a1.FixedInScan != "" || a1.FixedAt != nil || a1.Page != "https://o/" || a1.Organisation != "O" ||
		strings.Join(a1.WCAG, " ") != "1.1.1 4.1.2" || !a1.FirstSeenAt.Equal(at(100)) || !a1.LastSeenAt.Equal(at(300)) {
		t.Errorf("a1: %+v", a1)
	}
	if a2.State != "open" || a2.Reopened != 1 || a2.ScansPresent != 2 || a2.LastSeenScan != "ns/s3" || a2.FixedReason != "" {
		t.Errorf("a2 (fixed as not scanned, then back): %+v", a2)
	}
	if c3.State != "fixed" || c3.FixedInScan != "ns/s2" || c3.FixedReason != store.ReasonFixed || c3.FixedAt == nil ||
		!c3.FixedAt.Equal(at(200)) || c3.LastSeenScan != "ns/s1" || c3.ScansPresent != 1 {
		t.Errorf("c3: %+v", c3)
	}

}

// checkFilters: IssueHistory's filters, paging and its refusals.
func checkFilters(t *testing.T, st *store.Store) {
	t.Helper()
	ctx := context.Background()
	filters := []struct {
		f    store.IssueFilter
		want []string
	}{
		{store.IssueFilter{State: "open"}, []string{"a1", "a2"}},
		{store.IssueFilter{State: "fixed"}, []string{"c3"}},
		{store.IssueFilter{ReopenedOnly: true}, []string{"a2"}},
		{store.IssueFilter{ReopenedOnly: true, State: "open"}, []string{"a2"}},
		{store.IssueFilter{ReopenedOnly: true, State: "fixed"}, []string{}},
		{store.IssueFilter{Organisation: "O"}, []string{"a1", "a2", "c3"}},
		{store.IssueFilter{Organisation: "O", State: "fixed"}, []string{"c3"}},
		{store.IssueFilter{Organisation: "O", ReopenedOnly: true}, []string{"a2"}},
		{store.IssueFilter{Rule: "color-contrast"}, []string{"c3"}},
		{store.IssueFilter{Page: "HTTPS://O/b"}, []string{"a2", "c3"}},
		{store.IssueFilter{Organisation: "O", State: "open", Page: "https://o/"}, []string{"a1"}},
		{store.IssueFilter{Limit: 1, Offset: 1}, []string{"a2"}},
		{store.IssueFilter{Offset: 3}, []string{}},
		// Within keeps organisations by name or by sector, either one.
		{store.IssueFilter{Within: &store.Within{Organisations: []string{"O"}}}, []string{"a1", "a2", "c3"}},
		{store.IssueFilter{Within: &store.Within{Sectors: []string{"Sector"}}}, []string{"a1", "a2", "c3"}},
		{store.IssueFilter{Within: &store.Within{Organisations: []string{"P"}, Sectors: []string{"Sector"}}}, []string{"a1", "a2", "c3"}},
		{store.IssueFilter{Within: &store.Within{Organisations: []string{"O"}, Sectors: []string{"Other"}}, State: "fixed"}, []string{"c3"}},
		{store.IssueFilter{Within: &store.Within{Organisations: []string{"P"}, Sectors: []string{"Other"}}}, []string{}},
		{store.IssueFilter{Within: &store.Within{Organisations: []string{"o"}}, Rule: "color-contrast"}, []string{}},
		{store.IssueFilter{Within: &store.Within{}}, []string{}},
		{store.IssueFilter{Within: &store.Within{Sectors: []string{"Sector"}}, Organisation: "O", Rule: "color-contrast"}, []string{"c3"}},
	}
	for _, tc := range filters {
		tc.f.Namespaces = nsO
		page, err := st.IssueHistory(ctx, tc.f)
		if err != nil {
			t.Fatalf("%+v: %v", tc.f, err)
		}
		var got []string
		for _, is := range page.Issues {
			got = append(got, is.Fingerprint)
		}
		wantTotal := int64(len(tc.want))
		if tc.f.Limit == 1 || tc.f.Offset == 3 {
			wantTotal = 3
		}
		if strings.Join(got, ",") != strings.Join(tc.want, ",") || page.Total != wantTotal {
			t.Errorf("%+v: %v (total %d), want %v (total %d)", tc.f, got, page.Total, tc.want, wantTotal)
		}
	}
	for _, f := range []store.IssueFilter{{State: "closed"}, {Limit: -1}, {Limit: store.MaxLimit + 1}, {Offset: -1}, {Offset: store.MaxOffset + 1}} {
		f.Namespaces = nsO
		if _, err := st.IssueHistory(ctx, f); err == nil {
			t.Errorf("%+v was accepted", f)
		}
	}
	if _, err := st.IssueHistory(ctx, store.IssueFilter{Namespaces: nsO, Organisation: "nobody"}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown organisation: %v", err)
	}
	// A walk by AfterID meets every issue once, in order, each page's total
	// counting every match.
	var walked []string
	var a1ID int64
	f := store.IssueFilter{Namespaces: nsO, Limit: 1}
	for {
		page, err := st.IssueHistory(ctx, f)
		if err != nil || page.Total != 3 {
			t.Fatalf("walk after %d: total %d, %v", f.AfterID, page.Total, err)
		}
		if len(page.Issues) == 0 {
			if page.LastID != 0 {
				t.Errorf("an empty page's LastID is %d", page.LastID)
			}
			break
		}
		walked = append(walked, page.Issues[0].Fingerprint)
		if a1ID == 0 {
			a1ID = page.LastID
		}
		if page.LastID <= f.AfterID {
			t.Fatalf("LastID %d does not move past %d", page.LastID, f.AfterID)
		}
		f.AfterID = page.LastID
	}
	if strings.Join(walked, ",") != "a1,a2,c3" {
		t.Errorf("walk by AfterID: %v", walked)
	}
	if page, err := st.IssueHistory(ctx, store.IssueFilter{Namespaces: nsO, State: "open", Rule: "image-alt", Limit: 1, AfterID: a1ID}); err != nil ||
		page.Total != 2 || len(page.Issues) != 1 || page.Issues[0].Fingerprint != "a2" {
		t.Errorf("AfterID with filters (the total not narrowed): %+v %v", page, err)
	}
	// An organisation Within does not keep is not found, as one that does not exist.
	if _, err := st.IssueHistory(ctx, store.IssueFilter{Namespaces: nsO, Organisation: "O",
		Within: &store.Within{Organisations: []string{"P"}}}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("organisation outside Within: %v", err)
	}
	if _, err := st.IssueHistory(ctx, store.IssueFilter{Namespaces: nsO,
		Within: &store.Within{Organisations: make([]string, store.MaxWithinNames+1)}}); err == nil {
		t.Error("a Within of more than MaxWithinNames names was accepted")
	}

}

// checkDetailAndTrend: one issue's scans, the trend and the organisations.
func checkDetailAndTrend(t *testing.T, st *store.Store) {
	t.Helper()
	ctx := context.Background()
	d, err := st.Issue(ctx, nsO, "a2")
	if err != nil {
		t.Fatal(err)
	}
	presence := make([]string, 0, len(d.Scans))
	for _, s := range d.Scans {
		presence = append(presence, s.Scan+map[bool]string{true: "+", false: "-"}[s.Present])
	}
	if strings.Join(presence, " ") != "ns/s1+ ns/s2- ns/s3+" {
		t.Errorf("a2's scans: %v", presence)
	}
	if _, err := st.Issue(ctx, nsO, "zz"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown issue: %v", err)
	}

	trend, err := st.OrganisationTrend(ctx, nsO, "O", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(trend) != 3 || trend[0].Scan != "ns/s1" || trend[2].Scan != "ns/s3" || trend[1].EngineChanged || !trend[2].EngineChanged ||
		trend[0].Issues != 3 || trend[0].ByImpact["critical"] != 3 || trend[0].ByAudit["axe_core_audit"] != 3 || *trend[0].Score != 90 ||
		trend[0].Pages != 2 || trend[0].Schedule != "weekly" {
		t.Errorf("trend: %+v", trend)
	}
	if other, err := st.OrganisationTrend(ctx, nsO, "O", "daily"); err != nil || len(other) != 0 {
		t.Errorf("another schedule's trend: %v %v", other, err)
	}
	orgs, err := st.Organisations(ctx, nsO)
	if err != nil || len(orgs) != 1 || orgs[0].Name != "O" || orgs[0].Sector != "Sector" || orgs[0].Scans != 3 || orgs[0].Latest.Scan != "ns/s3" {
		t.Errorf("organisations: %+v %v", orgs, err)
	}

}

// checkPrune: retention by count.
func checkPrune(t *testing.T, st *store.Store) {
	t.Helper()
	ctx := context.Background()
	// Keep one scan: s1 and s2 lose their data; c3 (fixed, last
	// seen in s1) goes; a2's presence in s1 goes, its count stays. One
	// row of presences is deleted, s2's of a1: s1 first saw its three
	// issues, which their first scan says, not a row.
	res, err := st.Prune(ctx, store.Retention{MaxScans: 1})
	if err != nil || res.Scans != 2 || res.Presences != 1 || res.Issues != 1 {
		t.Fatalf("prune: %+v %v", res, err)
	}
	trend, _ := st.OrganisationTrend(ctx, nsO, "O", "")
	if len(trend) != 1 || trend[0].Scan != "ns/s3" {
		t.Errorf("trend after pruning: %+v", trend)
	}
	d, _ := st.Issue(ctx, nsO, "a2")
	if d.ScansPresent != 2 || len(d.Scans) != 1 || d.FirstSeenScan != "ns/s1" {
		t.Errorf("a2 after pruning: %+v", d)
	}
	// The totals the first page reads count c3 no more.
	for _, f := range []store.IssueFilter{{Namespaces: nsO}, {Namespaces: nsO, State: "fixed"}, {Namespaces: nsO, Organisation: "O", State: "open"}} {
		want := map[string]int64{"": 2, "fixed": 0, "open": 2}[f.State]
		if page, err := st.IssueHistory(ctx, f); err != nil || page.Total != want || int64(len(page.Issues)) != want {
			t.Errorf("%+v after pruning: total %d, %d issues, %v; want %d", f, page.Total, len(page.Issues), err, want)
		}
	}
	if ok, _ := st.HasScan(ctx, "s1"); !ok {
		t.Error("a pruned scan is no longer known: it would be ingested again")
	}
	if res, err := st.Prune(ctx, store.Retention{MaxScans: 1}); err != nil || res != (store.PruneResult{}) {
		t.Errorf("pruning again: %+v %v", res, err)
	}
	if _, err := st.Prune(ctx, store.Retention{MaxAge: -1}); err == nil {
		t.Error("a negative age was accepted")
	}
}

// TestNamespacesScopeReads: an organisation scanned from two namespaces has
// a history in each, and every read sees only the namespaces it names,
// totals included.
func TestNamespacesScopeReads(t *testing.T) {
	for _, e := range storetest.Engines() {
		t.Run(e.Name, func(t *testing.T) {
			st := e.Open(t)
			ctx := context.Background()
			known, other := map[string]int64{}, map[string]int64{}
			writeScan(t, st, known, scanSpec{uid: "s1", at: 100, show: map[string]string{"a1": "https://o/", "a2": "https://o/b"}})
			// Older than s1, but in another namespace: not out of order.
			writeScan(t, st, other, scanSpec{uid: "t1", namespace: "team", at: 50, show: map[string]string{"b1": "https://o/"}})

			for _, tc := range []struct {
				namespaces []string
				want       int64
			}{{nsO, 2}, {[]string{"team"}, 1}, {[]string{"ns", "team"}, 3}, {[]string{"nobody"}, 0}} {
				page, err := st.IssueHistory(ctx, store.IssueFilter{Namespaces: tc.namespaces})
				if err != nil || page.Total != tc.want || int64(len(page.Issues)) != tc.want {
					t.Errorf("%v: %d issues (total %d), %v; want %d", tc.namespaces, len(page.Issues), page.Total, err, tc.want)
				}
				byOrg, err := st.IssueHistory(ctx, store.IssueFilter{Namespaces: tc.namespaces, Organisation: "O"})
				if tc.want == 0 {
					if !errors.Is(err, store.ErrNotFound) {
						t.Errorf("%v: organisation O: %v, want ErrNotFound", tc.namespaces, err)
					}
				} else if err != nil || byOrg.Total != tc.want {
					t.Errorf("%v: organisation O: total %d, %v; want %d", tc.namespaces, byOrg.Total, err, tc.want)
				}
			}
			if _, err := st.Issue(ctx, []string{"team"}, "a1"); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("another namespace's issue: %v, want ErrNotFound", err)
			}
			trend, err := st.OrganisationTrend(ctx, []string{"ns", "team"}, "O", "")
			if err != nil || len(trend) != 2 || trend[0].Scan != "team/t1" || trend[1].Scan != "ns/s1" {
				t.Errorf("both namespaces' trend: %+v %v", trend, err)
			}
			if trend, err := st.OrganisationTrend(ctx, []string{"team"}, "O", ""); err != nil || len(trend) != 1 || trend[0].Scan != "team/t1" {
				t.Errorf("one namespace's trend: %+v %v", trend, err)
			}
			orgs, err := st.Organisations(ctx, []string{"team", "ns"})
			if err != nil || len(orgs) != 2 || orgs[0].Namespace != "ns" || orgs[1].Namespace != "team" {
				t.Errorf("organisations: %+v %v", orgs, err)
			}
			if _, err := st.Templates(ctx, "nobody", "O", 10); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("templates in a namespace without the organisation: %v", err)
			}

			// No namespace is an error, never "everything".
			if _, err := st.IssueHistory(ctx, store.IssueFilter{}); !errors.Is(err, store.ErrNoNamespace) {
				t.Errorf("IssueHistory without namespaces: %v", err)
			}
			if _, err := st.OrganisationTrend(ctx, nil, "O", ""); !errors.Is(err, store.ErrNoNamespace) {
				t.Errorf("OrganisationTrend without namespaces: %v", err)
			}
			if _, err := st.Organisations(ctx, nil); !errors.Is(err, store.ErrNoNamespace) {
				t.Errorf("Organisations without namespaces: %v", err)
			}
			if _, err := st.Issue(ctx, nil, "a1"); !errors.Is(err, store.ErrNoNamespace) {
				t.Errorf("Issue without namespaces: %v", err)
			}
			if _, err := st.IssueHistory(ctx, store.IssueFilter{Namespaces: make([]string, store.MaxNamespaces+1)}); err == nil {
				t.Error("more namespaces than MaxNamespaces were accepted")
			}
		})
	}
}

// TestScansGiveBackTheirConnections: a write the database refuses fails
// the scan by name and keeps nothing of it, and each scan, committed or
// rolled back, gives its connection back: more scans than the pool holds
// still begin.
func TestScansGiveBackTheirConnections(t *testing.T) {
	for _, e := range storetest.Engines() {
		t.Run(e.Name, func(t *testing.T) {
			st := e.Open(t)
			for n := range 12 {
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				uid := fmt.Sprintf("scan-%d", n)
				w, err := st.BeginScan(ctx, store.Scan{UID: uid, Namespace: "ns", Name: uid, FinishedAt: at(int64(100 + n))}, "test")
				if err != nil {
					t.Fatalf("scan %d: %v (a scan before it kept its connection?)", n, err)
				}
				org, err := w.Organisation(ctx, "O", "Sector")
				if err != nil {
					t.Fatal(err)
				}
				if n%2 == 1 {
					if err := w.Commit(ctx); err != nil {
						t.Fatalf("scan %d: %v", n, err)
					}
					continue
				}
				pages, err := w.AddPages(ctx, org, []string{fmt.Sprintf("https://o/%d", n)})
				if err != nil {
					t.Fatal(err)
				}
				twice := store.NewIssue{Fingerprint: "same", OrgID: org, PageID: pages[0], Width: 320,
					Audit: "axe_core_audit", Rule: "image-alt", Impact: "critical", ElementHTML: "<img>", Target: "/html"}
				err = w.AddIssues(ctx, []int64{w.IssueIDs(1), w.IssueIDs(1)}, []store.NewIssue{twice, twice})
				if err == nil || !strings.Contains(err.Error(), "store: writing issues:") {
					t.Errorf("scan %d: two issues with one fingerprint: %v, want an error writing issues", n, err)
				}
				w.Rollback()
				if ok, err := st.HasScan(ctx, uid); ok || err != nil {
					t.Errorf("scan %d: the refused scan is stored: %v %v", n, ok, err)
				}
			}
		})
	}
}

// TestAddedOrganisation: an organisation is the scan's own when the scan
// added it, not when an earlier scan or another namespace's did.
func TestAddedOrganisation(t *testing.T) {
	for _, e := range storetest.Engines() {
		t.Run(e.Name, func(t *testing.T) {
			st := e.Open(t)
			ctx := t.Context()
			added := func(uid, namespace string, at int64, orgs ...string) []bool {
				t.Helper()
				w, err := st.BeginScan(ctx, store.Scan{UID: uid, Namespace: namespace, Name: uid, Phase: "Complete", FinishedAt: time.Unix(at, 0)}, "test")
				if err != nil {
					t.Fatal(err)
				}
				defer w.Rollback()
				out := make([]bool, 0, len(orgs))
				for _, name := range orgs {
					id, err := w.Organisation(ctx, name, "")
					if err != nil {
						t.Fatal(err)
					}
					out = append(out, w.AddedOrganisation(id))
				}
				if err := w.Commit(ctx); err != nil {
					t.Fatal(err)
				}
				return out
			}
			if got := added("s1", "ns", 100, "A", "B", "A"); !slices.Equal(got, []bool{true, true, true}) {
				t.Errorf("the first scan's organisations added: %v, want all", got)
			}
			if got := added("s2", "ns", 200, "B", "C", "A"); !slices.Equal(got, []bool{false, true, false}) {
				t.Errorf("the next scan's organisations added: %v, want only C", got)
			}
			if got := added("s3", "other", 300, "A"); !slices.Equal(got, []bool{true}) {
				t.Errorf("another namespace's A added: %v, want it added", got)
			}
		})
	}
}

// TestFirstScanPresenceImplied: the scan that first sees an issue writes
// no row of presences (the issue's first scan says it shows it), a later
// scan does, and a store written before, which holds that first row too,
// reads the same.
func TestFirstScanPresenceImplied(t *testing.T) {
	for _, e := range storetest.Engines() {
		t.Run(e.Name, func(t *testing.T) {
			ctx := context.Background()
			st := e.Open(t)
			known := map[string]int64{}
			scansOf := func() string {
				t.Helper()
				d, err := st.Issue(ctx, nsO, "a1")
				if err != nil {
					t.Fatal(err)
				}
				var out []string
				for _, s := range d.Scans {
					out = append(out, s.Scan+map[bool]string{true: "+", false: "-"}[s.Present])
				}
				return strings.Join(out, " ")
			}
			rows := func() int {
				t.Helper()
				n, err := store.CountRows(st, "presences")
				if err != nil {
					t.Fatal(err)
				}
				return n
			}
			writeScan(t, st, known, scanSpec{uid: "s1", at: 100, show: map[string]string{"a1": "https://o/"}})
			if n, got := rows(), scansOf(); n != 0 || got != "ns/s1+" {
				t.Errorf("after the first scan: %d rows of presences, scans %q; want 0 and ns/s1+", n, got)
			}
			writeScan(t, st, known, scanSpec{uid: "s2", at: 200, show: map[string]string{"a1": "https://o/"}})
			writeScan(t, st, known, scanSpec{uid: "s3", at: 300, show: map[string]string{"b1": "https://o/"}})
			if n, got := rows(), scansOf(); n != 1 || got != "ns/s1+ ns/s2+ ns/s3-" {
				t.Errorf("after three scans: %d rows of presences, scans %q; want 1 and ns/s1+ ns/s2+ ns/s3-", n, got)
			}
			// A store written before this change holds the first scan's row too.
			if _, err := st.DB().ExecContext(ctx, `INSERT INTO presences (scan_id, issue_id)
				SELECT first_seen_scan_id, id FROM issues WHERE fingerprint = 'a1'`); err != nil {
				t.Fatal(err)
			}
			if got := scansOf(); got != "ns/s1+ ns/s2+ ns/s3-" {
				t.Errorf("with the first scan's row written as before: scans %q", got)
			}
		})
	}
}
