package report

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// pagesWithTexts counts the tracked pages that hold their texts.
func pagesWithTexts(b *Builder) int {
	n := 0
	for _, p := range b.pages {
		if p.texts != nil {
			n++
		}
	}
	return n
}

// TestPagesShownAsIfAllWereSorted: the per-page table lists the pages a
// sort of every tracked page puts first (more weight, then the address),
// and counts the rest, whatever order the rows come in: pages whose rows
// come again after other pages' move up, and pages of equal weight are
// ordered by their address. Only the pages shown, and the one being
// read, keep their texts.
func TestPagesShownAsIfAllWereSorted(t *testing.T) {
	impacts := []string{"critical", "serious", "moderate", "minor", ""}
	tests := []struct {
		name string
		rows func(rng *rand.Rand) []axeRow
	}{
		{"runs of a page come again", func(rng *rand.Rand) []axeRow {
			var rows []axeRow
			for i := 0; len(rows) < 3000; i++ {
				url := fmt.Sprintf("https://a/%03d", rng.IntN(3*MaxPagesShown))
				for j := range 1 + rng.IntN(3) {
					rows = append(rows, axeRow{url: url, target: fmt.Sprintf("/e%d-%d", i, j), id: "r", impact: impacts[rng.IntN(len(impacts))]})
				}
			}
			return rows
		}},
		{"every page weighs the same", func(rng *rand.Rand) []axeRow {
			rows := make([]axeRow, 0, 2*MaxPagesShown)
			for _, n := range rng.Perm(2 * MaxPagesShown) {
				rows = append(rows, axeRow{url: fmt.Sprintf("https://a/%03d", n), target: "/x", id: "r", impact: "serious"})
			}
			return rows
		}},
		{"the heaviest pages last", func(*rand.Rand) []axeRow {
			var rows []axeRow
			for n := range 3 * MaxPagesShown {
				for j := range 1 + n/10 {
					rows = append(rows, axeRow{url: fmt.Sprintf("https://a/%03d", n), target: fmt.Sprintf("/e%d", j), id: "r", impact: "minor"})
				}
			}
			return rows
		}},
		{"fewer pages than are shown", func(*rand.Rand) []axeRow {
			return []axeRow{
				{url: "https://a/2", target: "/x", id: "r", impact: "minor"},
				{url: "https://a/1", target: "/x", id: "r", impact: "minor"},
				{url: "https://a/2", target: "/y", id: "r", impact: "minor"},
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows := tt.rows(rand.New(rand.NewPCG(7, 11)))
			counts := map[string]*byImpact{}
			for _, r := range rows {
				if counts[r.url] == nil {
					counts[r.url] = &byImpact{}
				}
				counts[r.url][impactIndex(r.impact)]++
			}
			urls := make([]string, 0, len(counts))
			for u := range counts {
				urls = append(urls, u)
			}
			slices.SortFunc(urls, func(a, c string) int {
				if n := cmp.Compare(weighted(*counts[c]), weighted(*counts[a])); n != 0 {
					return n
				}
				return strings.Compare(a, c)
			})
			want := urls[:min(len(urls), MaxPagesShown)]
			var wantMore int64
			for _, u := range urls[len(want):] {
				wantMore += counts[u].total()
			}

			b := walkAxe(t, rows)
			if n := pagesWithTexts(b); n > MaxPagesShown+1 {
				t.Errorf("%d pages hold their texts after the rows, want at most %d", n, MaxPagesShown+1)
			}
			v := viewOf(b)
			got := make([]string, 0, len(v.Pages))
			for i, p := range v.Pages {
				got = append(got, p.URL)
				if c := counts[p.URL]; c == nil || p.ByImpact != *c || p.Elements != c.total() || p.Title != "T" || p.Organisation != "O" || p.Link() != p.URL {
					t.Errorf("row %d: %+v, want counts %v", i, p, c)
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("pages shown:\n%v\nwant\n%v", got, want)
			}
			if v.PagesMore != int64(len(urls)-len(want)) || v.PagesMoreElements != wantMore {
				t.Errorf("%d more pages with %d elements, want %d with %d", v.PagesMore, v.PagesMoreElements, len(urls)-len(want), wantMore)
			}
			if n := pagesWithTexts(b); n != len(want) {
				t.Errorf("%d pages hold their texts once shown, want %d", n, len(want))
			}
			if again := viewOf(b); !slices.EqualFunc(again.Pages, v.Pages, func(a, c pageRow) bool { return a.URL == c.URL && a.Elements == c.Elements }) {
				t.Error("a second view lists other pages")
			}
		})
	}
}

// TestPageTextsGiveBackTheirBudget: the texts of a page let go no longer
// count against lim.KeptText, so pages read after many others are still
// linked while the texts held fit the budget.
func TestPageTextsGiveBackTheirBudget(t *testing.T) {
	rows := make([]axeRow, 0, 1005)
	for n := range 1000 {
		rows = append(rows, axeRow{url: fmt.Sprintf("https://a/%04d", n), target: "/x", id: "r", impact: "minor"})
	}
	for n := range 5 {
		rows = append(rows, axeRow{url: fmt.Sprintf("https://b/%d", n), target: "/x", id: "r", impact: "critical"})
	}
	// A page keeps 30 bytes (its address twice, as address and link, the
	// title and the organisation): the 1,005 pages 30 KB, the 100 shown
	// 3 KB.
	b := walkAxeWithin(t, Limits{KeptText: 10_000}, rows)
	v := viewOf(b)
	if len(v.Pages) != MaxPagesShown || v.PagesMore != 905 {
		t.Fatalf("%d pages shown, %d more; want %d, 905", len(v.Pages), v.PagesMore, MaxPagesShown)
	}
	for i, p := range v.Pages[:5] {
		if want := fmt.Sprintf("https://b/%d", i); p.URL != want || p.Link() != want {
			t.Errorf("page %d: %q linked to %q, want %q linked", i, p.URL, p.Link(), want)
		}
	}
	// What is held at the end: the rule's id, help and link and the
	// organisation's name and sector (14 bytes), the rule's ten samples
	// (32 each: address and link 14 each, title, organisation, target),
	// and the pages shown, the five heaviest (24 each) and 95 of the
	// rest (30 each).
	if want := int64(10_000 - 14 - 10*32 - 5*24 - 95*30); b.textLeft != want {
		t.Errorf("%d bytes of the budget left, want %d", b.textLeft, want)
	}
}
