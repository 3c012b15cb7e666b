package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/store"
)

// Schedule is the schedule the scans TwoAgencies and OneIssue write are of.
const Schedule = "weekly"

// TwoAgencies writes one scan (weekly-1) of two organisations of different
// sectors into st: the Ministry of Health (sector Health, 2 issues) and
// the Ministry of Education (Education, 3 issues), each on its own page.
func TwoAgencies(t *testing.T, st *store.Store, ns string) {
	t.Helper()
	ctx := context.Background()
	w, err := st.BeginScan(ctx, store.Scan{UID: "agencies-1", Namespace: ns, Name: "weekly-1", Schedule: Schedule,
		FinishedAt: time.Unix(1000, 0), Phase: "Complete"}, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Rollback()
	for _, o := range []struct {
		name, sector, page string
		issues             int
	}{{"Ministry of Health", "Health", "https://health.example/", 2}, {"Ministry of Education", "Education", "https://education.example/", 3}} {
		org, err := w.Organisation(ctx, o.name, o.sector)
		if err != nil {
			t.Fatal(err)
		}
		pages, err := w.AddPages(ctx, org, []string{o.page})
		if err != nil {
			t.Fatal(err)
		}
		ids := make([]int64, o.issues)
		issues := make([]store.NewIssue, 0, len(ids))
		for i := range ids {
			ids[i] = w.IssueIDs(1)
			issues = append(issues, store.NewIssue{Fingerprint: o.sector + string(rune('a'+i)), OrgID: org, PageID: pages[0], Width: 320,
				Audit: "axe_core_audit", Rule: "image-alt", Impact: "critical", ElementHTML: "<img src=" + o.sector + ">", ElementHash: uint64(i),
				Target: "/html", TargetHash: 2, HelpURL: "https://help", WCAG: "1.1.1"})
		}
		if err := w.AddIssues(ctx, ids, issues); err != nil {
			t.Fatal(err)
		}
		if err := w.Observe(ctx, pages, nil, nil); err != nil {
			t.Fatal(err)
		}
		score := 90.0
		if err := w.AddOrganisationFigures(ctx, store.OrganisationFigures{OrgID: org, Schedule: Schedule, BaseURLs: 1, Pages: 1,
			Issues: int64(o.issues), Elements: int64(o.issues), ByImpact: [5]int64{int64(o.issues)}, Score: &score, Open: int64(o.issues)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.FinishPresences(ctx); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
}
