package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/diff"
	"github.com/a11y-dev/cwac-operator/internal/store"
)

// OneIssue writes a second scan (weekly-2, after TwoAgencies' weekly-1) of
// one issue of the Ministry of Health with a real id, on a page of its
// own, and returns the id and its element's hash: what a decision about
// one issue names.
func OneIssue(t *testing.T, st *store.Store, ns string) (string, uint64) {
	t.Helper()
	ctx := context.Background()
	w, err := st.BeginScan(ctx, store.Scan{UID: ns + "-2", Namespace: ns, Name: "weekly-2", Schedule: Schedule,
		FinishedAt: time.Unix(2000, 0), Phase: "Complete"}, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Rollback()
	org, err := w.Organisation(ctx, "Ministry of Health", "Health")
	if err != nil {
		t.Fatal(err)
	}
	pages, err := w.AddPages(ctx, org, []string{"https://health.example/forms"})
	if err != nil {
		t.Fatal(err)
	}
	html, target := `<input name="q">`, "/html/body/input"
	id := diff.NewIssueID(diff.PartsOf(ns, "Ministry of Health", "https://health.example/forms", 320, "axe_core_audit\x00label",
		diff.ElementHash(html), diff.ElementHash(target)), 0).String()
	if err := w.AddIssues(ctx, []int64{w.IssueIDs(1)}, []store.NewIssue{{Fingerprint: id, OrgID: org, PageID: pages[0], Width: 320,
		Audit: "axe_core_audit", Rule: "label", Impact: "critical", ElementHTML: html, ElementHash: diff.ElementHash(html),
		Target: target, TargetHash: diff.ElementHash(target), HelpURL: "https://help", WCAG: "1.3.1"}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	return id, diff.ElementHash(html)
}
