package store_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
)

// pageVisits records scans that visit the pages of one organisation.
type pageVisits struct {
	t     *testing.T
	st    *store.Store
	pages []int64 // https://o/, https://o/b, https://o/c
}

// visit records a scan visiting the pages of these indexes, keeping those
// of kept as they were, and returns what the store held before it.
func (v *pageVisits) visit(uid string, at int64, visited, kept []int, seen map[store.ObservationKey]store.Observed) store.Observations {
	t := v.t
	t.Helper()
	ctx := t.Context()
	w, err := v.st.BeginScan(ctx, store.Scan{UID: uid, Namespace: "ns", Name: uid, Phase: "Complete", FinishedAt: time.Unix(at, 0)}, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Rollback()
	org, err := w.Organisation(ctx, "O", "")
	if err != nil {
		t.Fatal(err)
	}
	if v.pages == nil {
		if v.pages, err = w.AddPages(ctx, org, []string{"https://o/", "https://o/b", "https://o/c"}); err != nil {
			t.Fatal(err)
		}
	}
	before, err := w.Observations(ctx, v.pages)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]int64, 0, len(visited))
	for _, i := range visited {
		ids = append(ids, v.pages[i])
	}
	keep := make([]int64, 0, len(kept))
	for _, i := range kept {
		keep = append(keep, v.pages[i])
	}
	sightings := make([]store.Sighting, 0, len(seen))
	for k, o := range seen {
		sightings = append(sightings, store.Sighting{ObservationKey: k, Observed: o})
	}
	if err := w.Observe(ctx, ids, sightings, keep); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	return before
}

// key is the observation key of the page of index page.
func (v *pageVisits) key(page, width int, audit string) store.ObservationKey {
	return store.ObservationKey{PageID: v.pages[page], Width: width, Audit: audit}
}

// TestObservations: a visit replaces what the page's last visit saw; a
// page not visited keeps its own; a page never visited since observations
// were kept is not among the visited.
func TestObservations(t *testing.T) {
	for _, e := range storetest.Engines() {
		t.Run(e.Name, func(t *testing.T) {
			v := &pageVisits{t: t, st: e.Open(t)}
			visit, key := v.visit, v.key
			pages := func() []int64 { return v.pages }
			first := visit("s1", 100, []int{0, 1}, nil, nil)
			if len(first.Visited) != 0 || len(first.Seen) != 0 {
				t.Fatalf("a new history: %+v", first)
			}
			pages2 := func() map[store.ObservationKey]store.Observed {
				return map[store.ObservationKey]store.Observed{
					key(0, 320, "focus_indicator_audit"): {Animating: true},
					key(0, 320, "axe_core_audit"):        {},
					key(1, 1280, "axe_core_audit"):       {Replaced: true},
				}
			}
			second := visit("s2", 200, []int{0, 1}, nil, pages2())
			if len(second.Visited) != 2 || !second.Visited[pages()[0]] || !second.Visited[pages()[1]] || len(second.Seen) != 0 {
				t.Errorf("after a visit that saw nothing: %+v", second)
			}
			// Page 0 visited again, seeing only axe; page 1 not visited.
			third := visit("s3", 300, []int{0}, nil, map[store.ObservationKey]store.Observed{key(0, 320, "axe_core_audit"): {}})
			if len(third.Seen) != 3 || third.Seen[key(0, 320, "focus_indicator_audit")] != (store.Observed{Animating: true}) ||
				third.Seen[key(1, 1280, "axe_core_audit")] != (store.Observed{Replaced: true}) {
				t.Errorf("after the second visit: %+v", third.Seen)
			}
			fourth := visit("s4", 400, nil, nil, nil)
			want := map[store.ObservationKey]store.Observed{key(0, 320, "axe_core_audit"): {}, key(1, 1280, "axe_core_audit"): {Replaced: true}}
			if len(fourth.Seen) != len(want) || fourth.Seen[key(0, 320, "axe_core_audit")] != want[key(0, 320, "axe_core_audit")] ||
				fourth.Seen[key(1, 1280, "axe_core_audit")] != want[key(1, 1280, "axe_core_audit")] || fourth.Visited[pages()[2]] {
				t.Errorf("after the third visit: %+v, want %+v and page c unvisited", fourth, want)
			}
			// More sightings than one statement holds (maxParams values
			// of five columns each): every one is written.
			many := map[store.ObservationKey]store.Observed{}
			for width := range 2500 {
				many[key(2, width, "axe_core_audit")] = store.Observed{Replaced: width%2 == 1}
			}
			visit("s5", 500, []int{2}, nil, many)
			fifth := visit("s6", 600, nil, nil, nil)
			for k, o := range many {
				if got, ok := fifth.Seen[k]; !ok || got != o {
					t.Fatalf("sighting %+v: %+v, %v; want %+v", k, got, ok, o)
				}
			}
			if len(fifth.Seen) != len(want)+len(many) {
				t.Errorf("after 2,500 sightings on page c: %d seen, want %d", len(fifth.Seen), len(want)+len(many))
			}
		})
	}
}

// TestObservationsKept: a visited page kept as its last visit left it
// keeps its observations and is visited; another page visited is replaced.
func TestObservationsKept(t *testing.T) {
	for _, e := range storetest.Engines() {
		t.Run(e.Name, func(t *testing.T) {
			v := &pageVisits{t: t, st: e.Open(t)}
			key := v.key
			v.visit("s1", 100, []int{0, 1, 2}, nil, nil)
			first := map[store.ObservationKey]store.Observed{
				key(0, 320, "axe_core_audit"):  {},
				key(1, 1280, "axe_core_audit"): {Replaced: true},
				key(2, 320, "axe_core_audit"):  {Animating: true},
				key(2, 1280, "axe_core_audit"): {},
			}
			v.visit("s2", 200, []int{0, 1, 2}, nil, first)
			// Pages a and c visited again, c as its last visit left it
			// (kept), a seeing something else; b not visited.
			again := map[store.ObservationKey]store.Observed{key(0, 1280, "axe_core_audit"): {Animating: true}}
			v.visit("s3", 300, []int{0, 2}, []int{2}, again)
			got := v.visit("s4", 400, nil, nil, nil).Seen
			want := map[store.ObservationKey]store.Observed{
				key(0, 1280, "axe_core_audit"): {Animating: true},
				key(1, 1280, "axe_core_audit"): {Replaced: true},
				key(2, 320, "axe_core_audit"):  {Animating: true},
				key(2, 1280, "axe_core_audit"): {},
			}
			if !maps.Equal(got, want) {
				t.Errorf("after page c was kept:\n%v\nwant\n%v", got, want)
			}
			var visits int
			const q = `SELECT COUNT(*) FROM page_visits v JOIN scans s ON s.id = v.scan_id WHERE s.uid = 's3'`
			if err := v.st.DB().QueryRowContext(t.Context(), q).Scan(&visits); err != nil || visits != 2 {
				t.Errorf("the visits of the scan that kept page c: %d, %v; want 2", visits, err)
			}
		})
	}
}

// TestReadsOfManyPages: the reads a scan's ingest makes of a set of pages
// (their issues, their last observations) and of the pages it did not
// visit take more pages than one statement holds.
func TestReadsOfManyPages(t *testing.T) {
	for _, e := range storetest.Engines() {
		t.Run(e.Name, func(t *testing.T) {
			ctx := context.Background()
			st := e.Open(t)
			begin := func(uid string, at int64) *store.ScanWriter {
				t.Helper()
				w, err := st.BeginScan(ctx, store.Scan{UID: uid, Namespace: "ns", Name: uid, Phase: "Complete", FinishedAt: time.Unix(at, 0)}, "test")
				if err != nil {
					t.Fatal(err)
				}
				return w
			}
			w := begin("s1", 100)
			defer w.Rollback()
			org, err := w.Organisation(ctx, "O", "")
			if err != nil {
				t.Fatal(err)
			}
			urls := make([]string, 8100) // more than maxParams
			for i := range urls {
				urls[i] = fmt.Sprintf("https://o/%d", i)
			}
			pages, err := w.AddPages(ctx, org, urls)
			if err != nil {
				t.Fatal(err)
			}
			first, last := pages[0], pages[len(pages)-1]
			ids := []int64{w.IssueIDs(1), w.IssueIDs(1)}
			issues := make([]store.NewIssue, 0, len(ids))
			for i, page := range []int64{last, first} {
				issues = append(issues, store.NewIssue{Fingerprint: fmt.Sprint("f", i), OrgID: org, PageID: page, Width: 320,
					Audit: "axe_core_audit", Rule: "image-alt", ElementHash: 1, TargetHash: 2})
			}
			if err := w.AddIssues(ctx, ids, issues); err != nil {
				t.Fatal(err)
			}
			sighting := store.Sighting{ObservationKey: store.ObservationKey{PageID: pages[8050], Width: 320, Audit: "a"}}
			if err := w.Observe(ctx, pages[:len(pages)-1], []store.Sighting{sighting}, nil); err != nil {
				t.Fatal(err)
			}
			var got []int64
			err = w.EachIssueOn(ctx, pages, func(is *store.StoredIssue) error { got = append(got, is.ID); return nil })
			if slices.Sort(got); err != nil || !slices.Equal(got, ids) {
				t.Errorf("issues on %d pages: %v %v, want %v", len(pages), got, err, ids)
			}
			if gone, err := w.OpenIssuesNotVisited(ctx, org); err != nil || !slices.Equal(gone, ids[:1]) {
				t.Errorf("open issues of pages not visited: %v %v, want the last page's %v", gone, err, ids[:1])
			}
			if err := w.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			w2 := begin("s2", 200)
			defer w2.Rollback()
			obs, err := w2.Observations(ctx, pages)
			if err != nil || len(obs.Visited) != len(pages)-1 || obs.Visited[last] || len(obs.Seen) != 1 {
				t.Errorf("observations of %d pages: %d visited (the last %v), %d seen, %v", len(pages), len(obs.Visited), obs.Visited[last], len(obs.Seen), err)
			}
		})
	}
}

// TestOpenIssuesNotVisitedOldestFirst: the open issues of pages a scan did
// not visit come oldest first, whichever pages they are on, when the pages
// left take more than one statement; an open issue of a visited page and a
// fixed one of a page not visited are not among them.
func TestOpenIssuesNotVisitedOldestFirst(t *testing.T) {
	for _, e := range storetest.Engines() {
		t.Run(e.Name, func(t *testing.T) {
			ctx := context.Background()
			w := beginScan(ctx, t, e.Open(t), "s1", 100)
			org, err := w.Organisation(ctx, "O", "")
			if err != nil {
				t.Fatal(err)
			}
			urls := make([]string, 8100) // pages left: more than maxParams
			for i := range urls {
				urls[i] = fmt.Sprintf("https://o/%d", i)
			}
			pages, err := w.AddPages(ctx, org, urls)
			if err != nil {
				t.Fatal(err)
			}
			// The oldest issue is on the last page, the next on an early
			// one, then one on a visited page and one fixed.
			on := []int64{pages[8099], pages[90], pages[10], pages[8098]}
			ids := make([]int64, len(on))
			issues := make([]store.NewIssue, len(on))
			for i, page := range on {
				ids[i] = w.IssueIDs(1)
				issues[i] = store.NewIssue{Fingerprint: fmt.Sprint("f", i), OrgID: org, PageID: page, Width: 320,
					Audit: "axe_core_audit", Rule: "image-alt", ElementHash: uint64(i), TargetHash: 2}
			}
			if err := w.AddIssues(ctx, ids, issues); err != nil {
				t.Fatal(err)
			}
			if err := w.Fix(ctx, ids[3:], store.ReasonFixed); err != nil {
				t.Fatal(err)
			}
			if err := w.Observe(ctx, pages[:50], nil, nil); err != nil {
				t.Fatal(err)
			}
			if gone, err := w.OpenIssuesNotVisited(ctx, org); err != nil || !slices.Equal(gone, ids[:2]) {
				t.Errorf("open issues of pages not visited: %v %v, want %v", gone, err, ids[:2])
			}
		})
	}
}

// TestEachIssueOnGivesEachPageOldestFirst: the stored issues of a page
// come oldest first, fixed and open alike, as the ingest's matching pairs
// them; pages may take turns. The issues' page index orders a page's
// issues by state before id, so a read in the index's order would give
// the fixed one first.
func TestEachIssueOnGivesEachPageOldestFirst(t *testing.T) {
	for _, e := range storetest.Engines() {
		t.Run(e.Name, func(t *testing.T) {
			ctx := context.Background()
			st := e.Open(t)
			w := beginScan(ctx, t, st, "s1", 100)
			org, err := w.Organisation(ctx, "O", "")
			if err != nil {
				t.Fatal(err)
			}
			pages, err := w.AddPages(ctx, org, []string{"https://o/p", "https://o/q"})
			if err != nil {
				t.Fatal(err)
			}
			first := w.IssueIDs(5)
			onPage := []int64{pages[0], pages[1], pages[0], pages[0], pages[1]}
			issues := make([]store.NewIssue, len(onPage))
			ids := make([]int64, len(onPage))
			for i, page := range onPage {
				ids[i] = first + int64(i)
				issues[i] = store.NewIssue{Fingerprint: fmt.Sprint("f", i), OrgID: org, PageID: page, Width: 320,
					Audit: "axe_core_audit", Rule: "image-alt"}
			}
			if err := w.AddIssues(ctx, ids, issues); err != nil {
				t.Fatal(err)
			}
			if err := w.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			// The third issue (page p's second) and the last (page q's
			// second) are fixed: each page then holds a fixed issue
			// between open ones, or after one.
			w = beginScan(ctx, t, st, "s2", 200)
			if err := w.Fix(ctx, []int64{ids[2], ids[4]}, store.ReasonFixed); err != nil {
				t.Fatal(err)
			}
			if err := w.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			w = beginScan(ctx, t, st, "s3", 300)
			got := map[int64][]int64{}
			open := map[int64]bool{}
			err = w.EachIssueOn(ctx, pages, func(is *store.StoredIssue) error {
				got[is.PageID] = append(got[is.PageID], is.ID)
				open[is.ID] = is.Open
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			want := map[int64][]int64{pages[0]: {ids[0], ids[2], ids[3]}, pages[1]: {ids[1], ids[4]}}
			if !maps.EqualFunc(got, want, slices.Equal) {
				t.Errorf("issues by page: %v, want %v (each page's oldest first)", got, want)
			}
			if !open[ids[0]] || open[ids[2]] || !open[ids[3]] || open[ids[4]] {
				t.Errorf("open: %v, want the third and fifth fixed", open)
			}
		})
	}
}
