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
				{"issue_changes", "change = 'opened'", 0}, // the scan's range of new issues says them
				{"issue_changes", "change = 'fixed'", n},
			} {
				if got, err := store.CountRowsWhere(st, c.table, c.cond); err != nil || got != c.want {
					t.Errorf("%s where %s: %d (%v), want %d", c.table, c.cond, got, err, c.want)
				}
			}
			var opened int
			for after := int64(0); ; {
				page, err := st.ScanChanges(context.Background(), store.ChangesFilter{Namespaces: []string{"ns"}, UID: "uid-1",
					After: after, Limit: store.MaxLimit})
				if err != nil {
					t.Fatal(err)
				}
				for _, c := range page.Changes {
					if c.Change == store.ChangeOpened {
						opened++
					}
				}
				if len(page.Changes) < store.MaxLimit {
					break
				}
				after = page.LastID()
			}
			if opened != n {
				t.Errorf("the first scan's openings read back: %d, want %d", opened, n)
			}
		})
	}
}

// TestOpeningsImplied: a scan writes no row for the issues it opened; its
// range of new issues says them, read in pages with its other changes
// (one page holds a fix and an opening), each confirmed by the issue's
// first scan; a scan recorded before, with rows of openings and no range,
// reads the same; a pruned scan has none.
func TestOpeningsImplied(t *testing.T) {
	add := func(ctx context.Context, t *testing.T, w *store.ScanWriter, org int64, pages []int64, names ...string) []int64 {
		t.Helper()
		first := w.IssueIDs(len(names))
		ids := make([]int64, len(names))
		issues := make([]store.NewIssue, len(names))
		for i, name := range names {
			ids[i] = first + int64(i)
			issues[i] = store.NewIssue{Fingerprint: name, OrgID: org, PageID: pages[i%len(pages)], Width: 320,
				Audit: "axe_core_audit", Rule: "image-alt", Impact: "critical", ElementHTML: "<img>"}
		}
		if err := w.AddIssues(ctx, ids, issues); err != nil {
			t.Fatal(err)
		}
		return ids
	}
	for _, e := range storetest.Engines() {
		t.Run(e.Name, func(t *testing.T) {
			st := e.Open(t)
			ctx := context.Background()
			var pages []int64
			ids := changesScan(t, st, 1, func(ctx context.Context, w *store.ScanWriter, org int64, p []int64) []int64 {
				pages = p
				return add(ctx, t, w, org, p, "a", "b", "c")
			})
			changesScan(t, st, 2, func(ctx context.Context, w *store.ScanWriter, org int64, _ []int64) []int64 {
				if err := w.Fix(ctx, ids[:1], store.ReasonFixed); err != nil {
					t.Fatal(err)
				}
				return add(ctx, t, w, org, pages, "d", "e", "f")
			})
			changesScan(t, st, 3, func(ctx context.Context, w *store.ScanWriter, _ int64, _ []int64) []int64 { return nil })
			if n, err := store.CountRowsWhere(st, "issue_changes", "change = 'opened'"); err != nil || n != 0 {
				t.Errorf("rows of openings: %d (%v), want 0", n, err)
			}
			want := map[string]map[string]string{
				"uid-1": {"a": "opened (fixed)", "b": "opened (open)", "c": "opened (open)"},
				"uid-2": {"a": "fixed (fixed)", "d": "opened (open)", "e": "opened (open)", "f": "opened (open)"},
				"uid-3": {},
			}
			check := func(when string) {
				t.Helper()
				for uid, w := range want {
					if diff := cmp.Diff(w, changesOf(t, st, uid)); diff != "" {
						t.Errorf("%s: %s's changes (-want +got):\n%s", when, uid, diff)
					}
				}
			}
			check("recorded")
			page, err := st.ScanChanges(ctx, store.ChangesFilter{Namespaces: []string{"ns"}, UID: "uid-2", Limit: 2})
			if err != nil || len(page.Changes) != 2 || page.Changes[0].Change != store.ReasonFixed || page.Changes[1].Change != store.ChangeOpened ||
				page.Changes[1].Issue.Fingerprint != "d" {
				t.Errorf("uid-2's first page of two: %+v (%v), want a fixed then d opened", page.Changes, err)
			}
			within, err := st.ScanChanges(ctx, store.ChangesFilter{Namespaces: []string{"ns"}, UID: "uid-2", Limit: 10,
				Within: &store.Within{Organisations: []string{"Ministry of Education"}}})
			if err != nil || len(within.Changes) != 0 {
				t.Errorf("uid-2's changes within another organisation: %+v (%v), want none", within.Changes, err)
			}
			// A range that reaches over a later scan's issues (as an id of
			// an issue retention deleted can be given again) still reads
			// only the scan's own: each issue's first scan confirms it.
			if _, err := st.DB().ExecContext(ctx, `UPDATE scans SET new_issues_last = new_issues_last + 10 WHERE uid = 'uid-1'`); err != nil {
				t.Fatal(err)
			}
			check("with uid-1's range over uid-2's issues")
			// A scan recorded before its range was kept: rows of openings.
			for _, stmt := range []string{
				`INSERT INTO issue_changes (scan_id, issue_id, change) SELECT first_seen_scan_id, id, 'opened' FROM issues
					WHERE first_seen_scan_id = (SELECT id FROM scans WHERE uid = 'uid-2')`,
				`UPDATE scans SET new_issues_after = NULL, new_issues_last = NULL WHERE uid = 'uid-2'`,
			} {
				if _, err := st.DB().ExecContext(ctx, stmt); err != nil {
					t.Fatal(err)
				}
			}
			check("uid-2 as recorded before")
			if _, err := st.Prune(ctx, store.Retention{MaxScans: 2}); err != nil {
				t.Fatal(err)
			}
			want["uid-1"] = map[string]string{}
			check("uid-1 pruned")
		})
	}
}

// TestScanNewIssuesMigration: 0016 down writes the openings of the scans
// recorded with a range back as rows of issue_changes (none for a pruned
// scan) and drops the range; a store back at 0015 reads the same
// openings, and up again it records scans with ranges.
func TestScanNewIssuesMigration(t *testing.T) {
	for _, e := range storetest.Engines() {
		t.Run(e.Name, func(t *testing.T) {
			dsn, driver, source := migrationDB(t, e.Name)
			st := storetest.Open(t, dsn)
			for n, names := range [][]string{{"a", "b"}, {"c"}, {"d", "e", "f"}} {
				changesScan(t, st, n+1, func(ctx context.Context, w *store.ScanWriter, org int64, pages []int64) []int64 {
					if pages == nil {
						pages = []int64{1}
					}
					first := w.IssueIDs(len(names))
					ids := make([]int64, len(names))
					issues := make([]store.NewIssue, len(names))
					for i, name := range names {
						ids[i] = first + int64(i)
						issues[i] = store.NewIssue{Fingerprint: name, OrgID: org, PageID: pages[0], Width: 320, Audit: "axe_core_audit", Rule: "image-alt"}
					}
					if err := w.AddIssues(ctx, ids, issues); err != nil {
						t.Fatal(err)
					}
					return nil
				})
			}
			if _, err := st.Prune(context.Background(), store.Retention{MaxScans: 2}); err != nil {
				t.Fatal(err)
			}
			_ = st.Close()
			db := migratedTo(t, driver, source, 15)
			var got string
			err := db.QueryRow(`SELECT COUNT(*) || ' ' || COALESCE(MIN(issue_id), 0) || ' ' || COALESCE(MAX(issue_id), 0)
				FROM issue_changes WHERE change = 'opened'`).Scan(&got)
			if err != nil || got != "4 3 6" {
				t.Errorf("rows of openings at 0015: %q (%v), want 4 3 6 (the kept scans' issues c to f)", got, err)
			}
			if _, err := db.Exec(`SELECT new_issues_after FROM scans`); err == nil {
				t.Error("the scans' range is still there at 0015")
			}
			_ = db.Close()
			st = storetest.Open(t, dsn) // Open applies 0016 again
			want := map[string]map[string]string{
				"uid-1": {},
				"uid-2": {"c": "opened (open)"},
				"uid-3": {"d": "opened (open)", "e": "opened (open)", "f": "opened (open)"},
			}
			for uid, w := range want {
				if diff := cmp.Diff(w, changesOf(t, st, uid)); diff != "" {
					t.Errorf("after 0016 down and up: %s's changes (-want +got):\n%s", uid, diff)
				}
			}
			changesScan(t, st, 4, func(ctx context.Context, w *store.ScanWriter, org int64, _ []int64) []int64 {
				if err := w.AddIssues(ctx, []int64{w.IssueIDs(1)}, []store.NewIssue{{Fingerprint: "g", OrgID: org, PageID: 1,
					Width: 320, Audit: "axe_core_audit", Rule: "image-alt"}}); err != nil {
					t.Fatal(err)
				}
				return nil
			})
			if got := changesOf(t, st, "uid-4"); got["g"] != "opened (open)" {
				t.Errorf("a scan recorded after 0016 up again: %v", got)
			}
			if n, err := store.CountRowsWhere(st, "issue_changes", "change = 'opened'"); err != nil || n != 4 {
				t.Errorf("rows of openings after 0016 up again: %d (%v), want the 4 written back", n, err)
			}
		})
	}
}
