package ingest

import (
	"bytes"
	"context"
	"testing"
	"testing/fstest"

	"github.com/a11y-dev/cwac-operator/internal/diff"
	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
)

// scanPodIDs is what the scan pod's comparison names the axe issues of
// after, compared with before (whose ids a scan without a baseline named):
// change and id of each axe row of diff.json.
func scanPodIDs(t *testing.T, before, after fstest.MapFS) map[string]diff.Change {
	t.Helper()
	ctx := context.Background()
	first, err := diff.Compare(ctx, fstest.MapFS{}, before, diff.Options{Namespace: testNamespace})
	if err != nil {
		t.Fatal(err)
	}
	firstIDs, err := first.IssueIDs.All()
	if err != nil {
		t.Fatal(err)
	}
	var ids bytes.Buffer
	if err := diff.WriteIssueIDs(&ids, firstIDs); err != nil {
		t.Fatal(err)
	}
	named := fstest.MapFS{diff.IssueIDsFile: {Data: ids.Bytes()}}
	for name, f := range before {
		named[name] = f
	}
	out := map[string]diff.Change{}
	_, err = diff.Compare(ctx, named, after, diff.Options{Namespace: testNamespace, Rows: func(r *diff.Row) error {
		if r.IssueID != "" {
			out[r.IssueID] = r.Change
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestHistoryNamesIssuesAsTheScanPodDoes: over two weeks in which one
// element was edited, one moved and one fixed, the history's issue ids
// are the ids the scan pod's comparison gives the same issues (diff.json's
// issue_id, SARIF's fingerprints): its open issues are exactly the
// comparison's new and unchanged ones, its fixed issues the fixed ones.
func TestHistoryNamesIssuesAsTheScanPodDoes(t *testing.T) {
	w0 := loadReal(t)
	w1 := w0.clone()
	edited := `<p class="faint lead">This paragraph has very low colour contrast and is hard to read.</p>`
	if n := w1.set(where{"url": home, "id": "color-contrast"}, "html", edited); n != 2 {
		t.Fatalf("edited %d color-contrast rows", n)
	}
	if n := w1.set(where{"url": form, "id": "link-name"}, "target", "/html/body/main/div/p/a"); n != 2 {
		t.Fatalf("moved %d link-name rows", n)
	}
	if n := w1.drop(axeCSV, where{"url": home, "id": "image-alt"}); n != 2 {
		t.Fatalf("fixed %d image-alt rows", n)
	}
	want := scanPodIDs(t, w0.fs(), w1.fs())
	if len(want) != 12 {
		t.Fatalf("the comparison named %d axe issues, want 12 (10 still there, 2 fixed)", len(want))
	}
	for _, e := range storetest.Engines() {
		t.Run(e.Name, func(t *testing.T) {
			st := e.Open(t)
			ingestOK(t, st, w0.fs(), week(0))
			ingestOK(t, st, w1.fs(), week(1))
			page, err := st.IssueHistory(context.Background(), store.IssueFilter{Namespaces: testNamespaces, Organisation: org, Limit: store.MaxLimit})
			if err != nil {
				t.Fatal(err)
			}
			seen := 0
			for _, is := range page.Issues {
				if is.Audit != "axe_core_audit" {
					continue
				}
				seen++
				change, ok := want[is.Fingerprint]
				switch {
				case !ok:
					t.Errorf("%s %s %d: the history's id %s is not one the comparison gave", is.Page, is.Rule, is.ViewportWidth, is.Fingerprint)
				case is.State == store.StateFixed && change != diff.ChangeFixed,
					is.State != store.StateFixed && change != diff.ChangeUnchanged && change != diff.ChangeNew:
					t.Errorf("%s %s %d: %s in the history, %s in the comparison", is.Page, is.Rule, is.ViewportWidth, is.State, change)
				}
			}
			if seen != len(want) {
				t.Errorf("the history holds %d axe issues, the comparison named %d", seen, len(want))
			}
		})
	}
}

// TestHistoryNamesRepeatedRowsAsTheScanPodDoes: rows alike in every part
// of an id (CWAC writes such rows for repeated elements) take ordinals in
// file order, and a new one skips the ordinals stored issues hold: the
// history's ids of a week with one such row and of the next with three
// are the scan pod comparison's.
func TestHistoryNamesRepeatedRowsAsTheScanPodDoes(t *testing.T) {
	w0 := loadReal(t)
	twin := where{"url": home, "id": "image-alt"}
	w0.add(t, axeCSV, twin, nil)
	w1 := w0.clone()
	w1.add(t, axeCSV, twin, nil)
	w1.add(t, axeCSV, twin, nil)
	want := scanPodIDs(t, w0.fs(), w1.fs())
	for _, e := range storetest.Engines() {
		t.Run(e.Name, func(t *testing.T) {
			st := e.Open(t)
			ingestOK(t, st, w0.fs(), week(0))
			res := ingestOK(t, st, w1.fs(), week(1))
			if res.New != 2 {
				t.Errorf("week 1: %d new issues, want the 2 rows added", res.New)
			}
			page, err := st.IssueHistory(context.Background(), store.IssueFilter{Namespaces: testNamespaces, Organisation: org, Limit: store.MaxLimit})
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			for _, is := range page.Issues {
				if is.Audit != "axe_core_audit" {
					continue
				}
				seen[is.Fingerprint] = true
				if change, ok := want[is.Fingerprint]; !ok || change == diff.ChangeFixed {
					t.Errorf("%s %s %d: the history's open id %s is %q in the comparison", is.Page, is.Rule, is.ViewportWidth, is.Fingerprint, change)
				}
			}
			if len(seen) != len(want) {
				t.Errorf("the history holds %d axe issues, the comparison named %d", len(seen), len(want))
			}
		})
	}
}
