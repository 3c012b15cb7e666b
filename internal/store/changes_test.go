package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
)

// changesScan writes one scan of the Ministry of Health (weekly-n) that
// changes issues as change says (the first adds the pages): it returns
// what change returns.
func changesScan(t *testing.T, st *store.Store, n int, change func(ctx context.Context, w *store.ScanWriter, org int64, pages []int64) []int64) []int64 {
	t.Helper()
	ctx := context.Background()
	w, err := st.BeginScan(ctx, store.Scan{UID: fmt.Sprintf("uid-%d", n), Namespace: "ns", Name: fmt.Sprintf("weekly-%d", n),
		Schedule: storetest.Schedule, FinishedAt: time.Unix(int64(1000*n), 0), Phase: "Complete"}, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Rollback()
	org, err := w.Organisation(ctx, "Ministry of Health", "Health")
	if err != nil {
		t.Fatal(err)
	}
	var pages []int64
	if n == 1 {
		if pages, err = w.AddPages(ctx, org, []string{"https://health.example/", "https://health.example/forms"}); err != nil {
			t.Fatal(err)
		}
	}
	ids := change(ctx, w, org, pages)
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	return ids
}

// changesOf reads every change of a scan, two a page.
func changesOf(t *testing.T, st *store.Store, uid string) map[string]string {
	t.Helper()
	got := map[string]string{}
	var after int64
	for pages := 0; ; pages++ {
		page, err := st.ScanChanges(context.Background(), store.ChangesFilter{Namespaces: []string{"ns"}, UID: uid, After: after, Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Changes) > 2 || pages > 10 {
			t.Fatalf("page %d of %d changes", pages, len(page.Changes))
		}
		for _, c := range page.Changes {
			got[c.Issue.Fingerprint] = c.Change + " (" + c.Issue.State + ")"
		}
		if len(page.Changes) < 2 {
			return got
		}
		after = page.LastID()
	}
}

// TestScanChanges: each scan's changes to issues — opened, fixed, found on
// no page scanned, reopened — are read back by the scan, in pages, each
// issue as it stands now; a scan that changed nothing has none; retention
// prunes a scan's changes with its presences.
func TestScanChanges(t *testing.T) {
	for _, e := range storetest.Engines() {
		t.Run(e.Name, func(t *testing.T) {
			st := e.Open(t)
			ctx := context.Background()
			ids := changesScan(t, st, 1, func(ctx context.Context, w *store.ScanWriter, org int64, pages []int64) []int64 {
				first := w.IssueIDs(3)
				ids := []int64{first, first + 1, first + 2}
				issues := make([]store.NewIssue, 0, len(ids))
				for i, name := range []string{"a", "b", "c"} {
					issues = append(issues, store.NewIssue{Fingerprint: name, OrgID: org, PageID: pages[i%2], Width: 320,
						Audit: "axe_core_audit", Rule: "image-alt", Impact: "critical", ElementHTML: "<img>"})
				}
				if err := w.AddIssues(ctx, ids, issues); err != nil {
					t.Fatal(err)
				}
				return ids
			})
			changesScan(t, st, 2, func(ctx context.Context, w *store.ScanWriter, _ int64, _ []int64) []int64 {
				if err := w.Fix(ctx, ids[:1], store.ReasonFixed); err != nil {
					t.Fatal(err)
				}
				if err := w.Fix(ctx, ids[1:2], store.ReasonPageNotScanned); err != nil {
					t.Fatal(err)
				}
				return nil
			})
			changesScan(t, st, 3, func(ctx context.Context, w *store.ScanWriter, _ int64, _ []int64) []int64 {
				if err := w.Reopen(ctx, ids[:1]); err != nil {
					t.Fatal(err)
				}
				return nil
			})
			changesScan(t, st, 4, func(context.Context, *store.ScanWriter, int64, []int64) []int64 { return nil })
			for uid, want := range map[string]map[string]string{
				"uid-1": {"a": "opened (open)", "b": "opened (fixed)", "c": "opened (open)"},
				"uid-2": {"a": "fixed (open)", "b": "page not scanned (fixed)"},
				"uid-3": {"a": "reopened (open)"},
				"uid-4": {},
			} {
				if diff := cmp.Diff(want, changesOf(t, st, uid)); diff != "" {
					t.Errorf("%s's changes (-want +got):\n%s", uid, diff)
				}
			}
			byName, err := st.ScanChanges(ctx, store.ChangesFilter{Namespaces: []string{"ns"}, Name: "weekly-3", Limit: 10})
			if err != nil || len(byName.Changes) != 1 || byName.Changes[0].Change != store.ChangeReopened {
				t.Errorf("weekly-3's changes by its name: %+v, %v", byName, err)
			}
			for _, f := range []store.ChangesFilter{
				{Namespaces: []string{"ns"}, Name: "weekly-9", Limit: 10}, // never recorded
				{Namespaces: []string{"ns"}, UID: "uid-9", Limit: 10},     // never recorded
				{Namespaces: []string{"other"}, UID: "uid-1", Limit: 10},  // another namespace's
			} {
				if _, err := st.ScanChanges(ctx, f); !errors.Is(err, store.ErrNotFound) {
					t.Errorf("%+v: %v, want ErrNotFound", f, err)
				}
			}
			for _, f := range []store.ChangesFilter{
				{Namespaces: []string{"ns"}, UID: "uid-1", Limit: 0},
				{Namespaces: []string{"ns"}, UID: "uid-1", Limit: store.MaxLimit + 1},
				{UID: "uid-1", Limit: 10},
			} {
				if _, err := st.ScanChanges(ctx, f); err == nil || errors.Is(err, store.ErrNotFound) {
					t.Errorf("%+v: %v, want it refused", f, err)
				}
			}
			for _, tc := range []struct {
				within *store.Within
				want   int
			}{
				{&store.Within{Organisations: []string{"Ministry of Health"}}, 3},
				{&store.Within{Sectors: []string{"Health"}}, 3},
				{&store.Within{Organisations: []string{"Ministry of Education"}}, 0},
				{&store.Within{}, 0},
			} {
				page, err := st.ScanChanges(ctx, store.ChangesFilter{Namespaces: []string{"ns"}, UID: "uid-1", Limit: 10, Within: tc.within})
				if err != nil || len(page.Changes) != tc.want {
					t.Errorf("within %+v: %d changes (%v), want %d", tc.within, len(page.Changes), err, tc.want)
				}
			}
			if _, err := st.Prune(ctx, store.Retention{MaxScans: 3}); err != nil {
				t.Fatal(err)
			}
			if got := changesOf(t, st, "uid-1"); len(got) != 0 {
				t.Errorf("a pruned scan's changes are still there: %v", got)
			}
			if got := changesOf(t, st, "uid-3"); len(got) != 1 {
				t.Errorf("a kept scan's changes went with the pruned one's: %v", got)
			}
		})
	}
}

// TestIssueChangesMigration: 0011 goes down (issue_changes gone, the rest
// of the store at 0010) and up again on each engine, and the store then
// records a scan's changes.
func TestIssueChangesMigration(t *testing.T) {
	for _, e := range storetest.Engines() {
		t.Run(e.Name, func(t *testing.T) {
			dsn, driver, source := migrationDB(t, e.Name)
			_ = storetest.Open(t, dsn).Close()
			db := migratedTo(t, driver, source, 10)
			if _, err := db.Exec(`SELECT change FROM issue_changes`); err == nil {
				t.Error("issue_changes is still there after 0011 down")
			}
			if _, err := db.Exec(`SELECT decided_issues FROM organisation_scans`); err != nil {
				t.Errorf("0010's column went with 0011: %v", err)
			}
			_ = db.Close()
			st := storetest.Open(t, dsn) // Open applies 0011 again
			changesScan(t, st, 1, func(ctx context.Context, w *store.ScanWriter, org int64, pages []int64) []int64 {
				if err := w.AddIssues(ctx, []int64{w.IssueIDs(1)}, []store.NewIssue{{Fingerprint: "a", OrgID: org, PageID: pages[0],
					Width: 320, Audit: "axe_core_audit", Rule: "image-alt"}}); err != nil {
					t.Fatal(err)
				}
				return nil
			})
			if got := changesOf(t, st, "uid-1"); got["a"] != "opened (open)" {
				t.Errorf("after 0011 up again: %v", got)
			}
		})
	}
}

// TestWritesInManyChunks: a scan that opens more issues than one statement
// holds, and one that fixes them all, store every row (the statements of
// full chunks are prepared once and run again; the last, short one is not).
func TestWritesInManyChunks(t *testing.T) {
	const n = 8500 // issue rows: 22 full chunks and a short one; fixes: one full chunk and a short one
	for _, e := range storetest.Engines() {
		t.Run(e.Name, func(t *testing.T) {
			st := e.Open(t)
			ids := changesScan(t, st, 1, func(ctx context.Context, w *store.ScanWriter, org int64, pages []int64) []int64 {
				first := w.IssueIDs(n)
				ids := make([]int64, n)
				issues := make([]store.NewIssue, n)
				for i := range ids {
					ids[i] = first + int64(i)
					issues[i] = store.NewIssue{Fingerprint: fmt.Sprintf("fp-%d", i), OrgID: org, PageID: pages[i%2], Width: 320,
						Audit: "axe_core_audit", Rule: "image-alt", Impact: "critical", ElementHTML: fmt.Sprintf("<img id=%d>", i)}
				}
				if err := w.AddIssues(ctx, ids, issues); err != nil {
					t.Fatal(err)
				}
				return ids
			})
			changesScan(t, st, 2, func(ctx context.Context, w *store.ScanWriter, _ int64, _ []int64) []int64 {
				if err := w.Fix(ctx, ids, store.ReasonFixed); err != nil {
					t.Fatal(err)
				}
				return nil
			})
			for _, c := range []struct {
				table, cond string
				want        int
			}{
				{"issues", "state = 'open'", 0},
				{"issues", "state = 'fixed' AND fixed_reason = 'fixed'", n},
				{"issues", fmt.Sprintf("fingerprint = 'fp-%d' AND element_html = '<img id=%d>'", n-1, n-1), 1},
				{"issue_changes", "change = 'opened'", n},
				{"issue_changes", "change = 'fixed'", n},
			} {
				if got, err := store.CountRowsWhere(st, c.table, c.cond); err != nil || got != c.want {
					t.Errorf("%s where %s: %d (%v), want %d", c.table, c.cond, got, err, c.want)
				}
			}
		})
	}
}
