package cireport

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/diff"
	"github.com/a11y-dev/cwac-operator/internal/pageruns"
)

// rowsOn makes rows of one organisation's page: one per rule named, in
// order; a rule named twice is a row alike in every part.
func rowsOn(org, page string, rules ...string) []diff.IssueParts {
	out := make([]diff.IssueParts, 0, len(rules))
	for _, r := range rules {
		out = append(out, diff.IssueParts{Namespace: "ns", Organisation: org, PageKey: page, Rule: r, Width: 320, HTML: 7, Target: 9})
	}
	return out
}

// The page namer names every row as one diff.IssueNamer for the whole scan
// does: rows alike in every part take the next ordinals, whether their
// page's rows come together or come back after other pages', with its ids
// kept in memory or in a spool.
func TestPageNamerNamesAsTheScansNamer(t *testing.T) {
	cases := map[string][][]diff.IssueParts{
		"pages in turn":             {rowsOn("o", "a", "r1", "r2"), rowsOn("o", "b", "r1")},
		"rows alike on one page":    {rowsOn("o", "a", "r1", "r1", "r2", "r1")},
		"a page that comes back":    {rowsOn("o", "a", "r1", "r2"), rowsOn("o", "b", "r1", "r1"), rowsOn("o", "a", "r1", "r2", "r3")},
		"back more than once":       {rowsOn("o", "a", "r1"), rowsOn("o", "b", "r1"), rowsOn("o", "a", "r1"), rowsOn("o", "c", "r1"), rowsOn("o", "a", "r1", "r1")},
		"same page, another org":    {rowsOn("o", "a", "r1"), rowsOn("p", "a", "r1"), rowsOn("o", "b", "r1"), rowsOn("p", "a", "r1"), rowsOn("o", "a", "r1")},
		"org and page run together": {rowsOn("o", "ab", "r1"), rowsOn("oa", "b", "r1"), rowsOn("o", "ab", "r1")},
	}
	// Pages past those the ids' log holds in memory, then the first ones
	// back, from the segment the log wrote them to.
	past := make([][]diff.IssueParts, 0, pageruns.RecentPages+8)
	for i := range pageruns.RecentPages + 5 {
		past = append(past, rowsOn("o", fmt.Sprint("q", i), "r1"))
	}
	cases["back past a segment"] = append(past, rowsOn("o", "q0", "r1", "r1"), rowsOn("o", "q1", "r2"), rowsOn("o", "q0", "r1"))
	// Pages of two alike rows each, past the rows one shared namer of first
	// runs names, then the first of them again (its namer made anew since).
	pages := make([][]diff.IssueParts, 0, maxFreshRows/2+3)
	for i := range maxFreshRows/2 + 3 {
		pages = append(pages, rowsOn("o", fmt.Sprint("p", i), "r1", "r1"))
	}
	cases["past a shared namer's rows"] = append(pages, rowsOn("o", "p0", "r1", "r2"), rowsOn("o", "p1", "r1"))
	for name, runs := range cases {
		var rows []diff.IssueParts
		for _, r := range runs {
			rows = append(rows, r...)
		}
		whole := diff.NewIssueNamer(nil)
		want := make([]diff.IssueID, len(rows))
		for i, p := range rows {
			want[i] = whole.Name(p)
		}
		for store, spool := range map[string]Spool{"in memory": nil, "spooled": tempSpool(t)} {
			pn := newPageNamer(spool)
			for i, p := range rows {
				got, err := pn.name(p)
				if err != nil {
					t.Fatalf("%s, %s: row %d: %v", name, store, i, err)
				}
				if got != want[i] {
					t.Errorf("%s, %s: row %d (%s %s %s): %s, want %s", name, store, i, p.Organisation, p.PageKey, p.Rule, got, want[i])
				}
			}
		}
	}
}

// The namer keeps the ids given in its log by page: a page whose rows
// come back finds its earlier runs' ids there. Pages met for the first
// time share one namer; a page that comes back has its own.
func TestPageNamerKeepsRuns(t *testing.T) {
	pn := newPageNamer(nil)
	for i, page := range []string{"a", "b", "a", "c", "a"} {
		for _, p := range rowsOn("o", page, "r1", "r2", "r3") {
			if _, err := pn.name(p); err != nil {
				t.Fatal(err)
			}
		}
		if first := i == 0 || i == 1 || i == 3; (pn.namer == pn.fresh) != first {
			t.Errorf("run %d (page %s): named by the shared namer %v, want %v", i, page, pn.namer == pn.fresh, first)
		}
	}
	if pn.freshRows != 9 {
		t.Errorf("the shared namer named %d rows, want 9", pn.freshRows)
	}
	// The last run (a's third) is still being named: a's ids are those of
	// its first two runs, the latest first.
	var a []diff.IssueID
	if err := pn.given.Each(pageHash("o", "a"), func(id diff.IssueID) { a = append(a, id) }); err != nil {
		t.Fatal(err)
	}
	whole := diff.NewIssueNamer(nil)
	var want []diff.IssueID // a's second run, then its first
	for range 2 {
		run := make([]diff.IssueID, 0, 3)
		for _, p := range rowsOn("o", "a", "r1", "r2", "r3") {
			run = append(run, whole.Name(p))
		}
		want = append(run, want...)
	}
	if !reflect.DeepEqual(a, want) || pn.given.Len() != 15 {
		t.Errorf("page a's ids: %v, want %v; %d ids given, want 15", a, want, pn.given.Len())
	}
}

// tempSpool is a file the test removes.
func tempSpool(t *testing.T) Spool {
	t.Helper()
	f, err := os.Create(filepath.Join(t.TempDir(), "spool"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	return f
}

// brokenSpool takes every write and reads nothing back.
type brokenSpool struct{ readErr error }

func (brokenSpool) Write(b []byte) (int, error)         { return len(b), nil }
func (s brokenSpool) ReadAt([]byte, int64) (int, error) { return 0, s.readErr }

// A spool that cannot give back what was written stops the naming with an
// error saying so; a row is never named without the ids its page was given.
func TestPageNamerSpoolFailing(t *testing.T) {
	for readErr, want := range map[error]string{errors.New("disk gone"): "disk gone", io.EOF: "unexpected EOF"} {
		pn := newPageNamer(brokenSpool{readErr: readErr})
		var err error
		for _, p := range append(append(rowsOn("o", "a", "r1"), rowsOn("o", "b", "r1")...), rowsOn("o", "a", "r1")...) {
			if _, err = pn.name(p); err != nil {
				break
			}
		}
		if err == nil || !strings.Contains(err.Error(), "reading the ids given to a page again: "+want) {
			t.Errorf("read error %v: %v", readErr, err)
		}
	}
}

// The shared namer of first runs is emptied once it has named
// maxFreshRows rows, at the next page met for the first time: it never
// holds much more than that.
func TestPageNamerEmptiesSharedNamer(t *testing.T) {
	pn := newPageNamer(nil)
	first := rowsOn("o", "p0", "r1")[0]
	for i := range maxFreshRows + 1 {
		if _, err := pn.name(rowsOn("o", fmt.Sprint("p", i), "r1")[0]); err != nil {
			t.Fatal(err)
		}
		switch {
		case i < maxFreshRows && pn.freshRows != i+1:
			t.Fatalf("emptied at row %d, before it named %d", i, maxFreshRows)
		case i == maxFreshRows && pn.freshRows != 1:
			t.Fatalf("after %d rows: %d rows named since it was emptied, want 1", i, pn.freshRows)
		}
	}
	// Emptied, it holds nothing of the first page's row: its parts are
	// named the first ordinal's id again, where a namer that still held
	// the row would name them the next.
	if got := pn.fresh.Name(first); got != diff.NewIssueID(first, 0) {
		t.Errorf("the shared namer still holds a row named before it was emptied: %s, want %s", got, diff.NewIssueID(first, 0))
	}
}
