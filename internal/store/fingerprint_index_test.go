package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
)

// addIssues adds issues of the given fingerprints to one page of
// organisation "O" in the scan w writes.
func addIssues(ctx context.Context, t *testing.T, w *store.ScanWriter, fps []string) error {
	t.Helper()
	org, err := w.Organisation(ctx, "O", "")
	if err != nil {
		t.Fatal(err)
	}
	pages, err := w.AddPages(ctx, org, []string{fmt.Sprintf("https://o.example/%d", len(fps))})
	if err != nil {
		t.Fatal(err)
	}
	first := w.IssueIDs(len(fps))
	ids := make([]int64, len(fps))
	issues := make([]store.NewIssue, len(fps))
	for i, fp := range fps {
		ids[i] = first + int64(i)
		issues[i] = store.NewIssue{Fingerprint: fp, OrgID: org, PageID: pages[0], Width: 320, Audit: "axe_core_audit", Rule: "image-alt",
			Impact: "critical", ElementHTML: "<img>", ElementHash: uint64(i), Target: "img", TargetHash: uint64(i), HelpURL: "https://help", WCAG: "1.1.1"}
	}
	return w.AddIssues(ctx, ids, issues)
}

// beginScan starts writing scan name of namespace "ns", finished at
// second at; the test's end rolls back what it did not commit.
func beginScan(ctx context.Context, t *testing.T, st *store.Store, name string, sec int64) *store.ScanWriter {
	t.Helper()
	w, err := st.BeginScan(ctx, store.Scan{UID: "uid-" + name, Namespace: "ns", Name: name, FinishedAt: at(sec), Phase: "Complete"}, "test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Rollback)
	return w
}

// fingerprints are n fingerprints starting with prefix.
func fingerprints(prefix string, n int) []string {
	fps := make([]string, n)
	for i := range fps {
		fps[i] = fmt.Sprintf("%s%08d", prefix, i)
	}
	return fps
}

func indexStands(ctx context.Context, t *testing.T, st *store.Store, w *store.ScanWriter) bool {
	t.Helper()
	ok, err := store.FingerprintIndexStands(ctx, st, w)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// TestLargeScanSetsFingerprintIndexAside: on SQLite, a scan adding many
// issues drops the fingerprint index within its transaction and builds it
// again at commit; PostgreSQL keeps it. Either way the committed store
// finds issues by fingerprint and refuses a fingerprint twice.
func TestLargeScanSetsFingerprintIndexAside(t *testing.T) {
	for _, e := range storetest.Engines() {
		t.Run(e.Name, func(t *testing.T) {
			ctx := context.Background()
			st := e.Open(t)
			w := beginScan(ctx, t, st, "s1", 100)
			if err := addIssues(ctx, t, w, fingerprints("small-", 10)); err != nil {
				t.Fatal(err)
			}
			if !indexStands(ctx, t, st, w) {
				t.Fatal("a scan of 10 issues set the fingerprint index aside")
			}
			if err := addIssues(ctx, t, w, fingerprints("large-", store.SetAsideMinIssues)); err != nil {
				t.Fatal(err)
			}
			if stands, want := indexStands(ctx, t, st, w), e.Name != "sqlite"; stands != want {
				t.Fatalf("during a scan of %d issues the fingerprint index stands: %v, want %v", store.SetAsideMinIssues+10, stands, want)
			}
			if err := w.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			if !indexStands(ctx, t, st, nil) {
				t.Fatal("the fingerprint index is missing after the commit")
			}
			for _, fp := range []string{"small-00000003", fmt.Sprintf("large-%08d", store.SetAsideMinIssues-1)} {
				if _, err := st.Issue(ctx, nsO, fp); err != nil {
					t.Errorf("Issue(%s): %v", fp, err)
				}
			}
			// The index is unique again: a later scan cannot add a known
			// fingerprint.
			w2 := beginScan(ctx, t, st, "s2", 200)
			if err := addIssues(ctx, t, w2, []string{"large-00000007"}); err == nil {
				t.Fatal("a second issue of a known fingerprint was added")
			}
		})
	}
}

// TestLargeScanWithATwiceFingerprintRecordsNothing: a large scan whose
// issues share a fingerprint fails (on SQLite at its commit, when the
// index is built again; on PostgreSQL at the insert) and leaves nothing of
// itself, the index standing.
func TestLargeScanWithATwiceFingerprintRecordsNothing(t *testing.T) {
	for _, e := range storetest.Engines() {
		t.Run(e.Name, func(t *testing.T) {
			ctx := context.Background()
			st := e.Open(t)
			w := beginScan(ctx, t, st, "s1", 100)
			fps := fingerprints("f-", store.SetAsideMinIssues)
			fps[len(fps)-1] = fps[0]
			err := addIssues(ctx, t, w, fps)
			if err == nil {
				err = w.Commit(ctx)
				if err == nil || !strings.Contains(err.Error(), "fingerprint index") {
					t.Fatalf("committing a scan with a fingerprint twice: %v, want the fingerprint index's error", err)
				}
			}
			w.Rollback()
			for _, table := range []string{"scans", "issues"} {
				if n, err := store.CountRows(st, table); err != nil || n != 0 {
					t.Errorf("%s: %d rows (%v) after the failed scan, want 0", table, n, err)
				}
			}
			if !indexStands(ctx, t, st, nil) {
				t.Fatal("the fingerprint index is missing after the failed scan")
			}
		})
	}
}
