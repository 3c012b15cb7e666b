package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
)

// TestObservations: a visit replaces what the page's last visit saw; a
// page not visited keeps its own; a page never visited since observations
// were kept is not among the visited.
func TestObservations(t *testing.T) {
	for _, e := range storetest.Engines() {
		t.Run(e.Name, func(t *testing.T) {
			ctx := context.Background()
			st := e.Open(t)
			var org int64
			var pages []int64
			visit := func(uid string, at int64, visited []int, seen map[store.ObservationKey]store.Observed) store.Observations {
				t.Helper()
				w, err := st.BeginScan(ctx, store.Scan{UID: uid, Namespace: "ns", Name: uid, Phase: "Complete", FinishedAt: time.Unix(at, 0)}, "test")
				if err != nil {
					t.Fatal(err)
				}
				defer w.Rollback()
				if org, err = w.Organisation(ctx, "O", ""); err != nil {
					t.Fatal(err)
				}
				if pages == nil {
					if pages, err = w.AddPages(ctx, org, []string{"https://o/", "https://o/b", "https://o/c"}); err != nil {
						t.Fatal(err)
					}
				}
				before, err := w.Observations(ctx, pages)
				if err != nil {
					t.Fatal(err)
				}
				ids := make([]int64, 0, len(visited))
				for _, i := range visited {
					ids = append(ids, pages[i])
				}
				sightings := make([]store.Sighting, 0, len(seen))
				for k, o := range seen {
					sightings = append(sightings, store.Sighting{ObservationKey: k, Observed: o})
				}
				if err := w.Observe(ctx, ids, sightings); err != nil {
					t.Fatal(err)
				}
				if err := w.Commit(); err != nil {
					t.Fatal(err)
				}
				return before
			}
			key := func(page, width int, audit string) store.ObservationKey {
				return store.ObservationKey{PageID: pages[page], Width: width, Audit: audit}
			}
			first := visit("s1", 100, []int{0, 1}, nil)
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
			second := visit("s2", 200, []int{0, 1}, pages2())
			if len(second.Visited) != 2 || !second.Visited[pages[0]] || !second.Visited[pages[1]] || len(second.Seen) != 0 {
				t.Errorf("after a visit that saw nothing: %+v", second)
			}
			// Page 0 visited again, seeing only axe; page 1 not visited.
			third := visit("s3", 300, []int{0}, map[store.ObservationKey]store.Observed{key(0, 320, "axe_core_audit"): {}})
			if len(third.Seen) != 3 || third.Seen[key(0, 320, "focus_indicator_audit")] != (store.Observed{Animating: true}) ||
				third.Seen[key(1, 1280, "axe_core_audit")] != (store.Observed{Replaced: true}) {
				t.Errorf("after the second visit: %+v", third.Seen)
			}
			fourth := visit("s4", 400, nil, nil)
			want := map[store.ObservationKey]store.Observed{key(0, 320, "axe_core_audit"): {}, key(1, 1280, "axe_core_audit"): {Replaced: true}}
			if len(fourth.Seen) != len(want) || fourth.Seen[key(0, 320, "axe_core_audit")] != want[key(0, 320, "axe_core_audit")] ||
				fourth.Seen[key(1, 1280, "axe_core_audit")] != want[key(1, 1280, "axe_core_audit")] || fourth.Visited[pages[2]] {
				t.Errorf("after the third visit: %+v, want %+v and page c unvisited", fourth, want)
			}
			// More sightings than one statement holds (maxParams values
			// of five columns each): every one is written.
			many := map[store.ObservationKey]store.Observed{}
			for width := range 2500 {
				many[key(2, width, "axe_core_audit")] = store.Observed{Replaced: width%2 == 1}
			}
			visit("s5", 500, []int{2}, many)
			fifth := visit("s6", 600, nil, nil)
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
