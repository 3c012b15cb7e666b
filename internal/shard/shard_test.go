package shard

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/a11y-dev/cwac-operator/internal/cwacconfig"
)

// sitesOf makes sites from "org:n" groups, in that order: n sites of org
// each, named org1, org2, … (numbered on across repeated groups).
func sitesOf(groups ...string) []cwacconfig.Site {
	sites := make([]cwacconfig.Site, 0, len(groups))
	count := map[string]int{}
	for _, g := range groups {
		org, n, _ := strings.Cut(g, ":")
		var k int
		_, _ = fmt.Sscan(n, &k)
		for range k {
			count[org]++
			sites = append(sites, cwacconfig.Site{Organisation: org, URL: fmt.Sprintf("https://%s%d.example/", org, count[org])})
		}
	}
	return sites
}

// names renders a split as its sites' host names, shard by shard.
func names(split [][]cwacconfig.Site) [][]string {
	out := make([][]string, len(split))
	for i, part := range split {
		for _, s := range part {
			out[i] = append(out[i], strings.TrimSuffix(strings.TrimPrefix(s.URL, "https://"), ".example/"))
		}
	}
	return out
}

func TestSplit(t *testing.T) {
	tests := []struct {
		name  string
		sites []cwacconfig.Site
		n     int
		want  [][]string
	}{
		{name: "no sites", sites: nil, n: 3, want: [][]string{}},
		{name: "one shard takes every site in order", sites: sitesOf("a:2", "b:1", "a:1"), n: 1, want: [][]string{{"a1", "a2", "b1", "a3"}}},
		{name: "n below 1 is one shard", sites: sitesOf("a:1", "b:1"), n: 0, want: [][]string{{"a1", "b1"}}},
		{
			name:  "organisations kept together, largest first to the emptiest shard",
			sites: sitesOf("a:1", "b:2", "c:1", "d:2"), n: 2, // share 3
			want: [][]string{{"a1", "b1", "b2"}, {"c1", "d1", "d2"}},
		},
		{
			name:  "an organisation's sites found apart in the list stay together",
			sites: sitesOf("a:1", "b:1", "a:1", "c:1"), n: 2,
			want: [][]string{{"a1", "a2"}, {"b1", "c1"}},
		},
		{
			name:  "an organisation larger than the share is cut into share-sized pieces",
			sites: sitesOf("big:7", "x:1"), n: 2, // share 4: big in 4 + 3
			want: [][]string{{"big1", "big2", "big3", "big4"}, {"big5", "big6", "big7", "x1"}},
		},
		{
			name:  "fewer pieces than shards: fewer shards",
			sites: sitesOf("a:2", "b:2"), n: 3, // share 2
			want: [][]string{{"a1", "a2"}, {"b1", "b2"}},
		},
		{
			name:  "more shards than sites: a site each",
			sites: sitesOf("a:1", "b:1", "c:1"), n: 10,
			want: [][]string{{"a1"}, {"b1"}, {"c1"}},
		},
		{
			name:  "one organisation alone is cut to fill every shard",
			sites: sitesOf("a:6"), n: 3,
			want: [][]string{{"a1", "a2"}, {"a3", "a4"}, {"a5", "a6"}},
		},
		{
			name:  "within a shard sites keep the list's order, not the pieces'",
			sites: sitesOf("s:1", "big:2", "t:1"), n: 2, // share 2: big first, then s and t to shard 1
			want: [][]string{{"big1", "big2"}, {"s1", "t1"}},
		},
		{
			name:  "ties go to the lowest index",
			sites: sitesOf("a:1", "b:1", "c:1", "d:1"), n: 2,
			want: [][]string{{"a1", "c1"}, {"b1", "d1"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := names(Split(tt.sites, tt.n))
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("Split (-want +got):\n%s", d)
			}
			if again := names(Split(slices.Clone(tt.sites), tt.n)); !cmp.Equal(got, again) {
				t.Errorf("a second Split differs: %v then %v", got, again)
			}
		})
	}
}

// FuzzSplit checks Split's promises on any site list: every site in
// exactly one shard, in the list's order within it; no empty shard; as
// many shards as n allows and the pieces fill; an organisation whole
// unless it alone has more sites than a share; the same split every time.
func FuzzSplit(f *testing.F) {
	f.Add([]byte{0, 1, 1, 2, 0, 3}, uint8(2))
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 1}, uint8(3))
	f.Add([]byte{5}, uint8(64))
	f.Add([]byte{}, uint8(1))
	f.Fuzz(func(t *testing.T, orgs []byte, n8 uint8) {
		n := int(n8%70) - 2 // below 1 too
		sites := make([]cwacconfig.Site, len(orgs))
		orgSize := map[string]int{}
		for i, o := range orgs {
			org := fmt.Sprint("org", o%16)
			sites[i] = cwacconfig.Site{Organisation: org, URL: fmt.Sprintf("https://s%d.example/", i)}
			orgSize[org]++
		}
		split := Split(sites, n)
		if !cmp.Equal(split, Split(sites, n)) {
			t.Fatal("two splits of the same sites differ")
		}
		if len(sites) == 0 {
			if len(split) != 0 {
				t.Fatalf("%d shards of no sites", len(split))
			}
			return
		}
		nn := max(n, 1)
		share := (len(sites) + nn - 1) / nn
		pieces := 0
		for _, size := range orgSize {
			pieces += (size + share - 1) / share
		}
		if len(split) != min(nn, pieces) {
			t.Fatalf("%d shards; want min(n=%d, pieces=%d)", len(split), nn, pieces)
		}
		position := map[string]int{}
		for i, s := range sites {
			position[s.URL] = i
		}
		seen := map[string]int{}
		shardsOf := map[string]map[int]bool{}
		for i, part := range split {
			if len(part) == 0 {
				t.Fatalf("shard %d is empty", i)
			}
			for j, s := range part {
				seen[s.URL]++
				if j > 0 && position[part[j-1].URL] > position[s.URL] {
					t.Fatalf("shard %d is out of the list's order at %d", i, j)
				}
				if shardsOf[s.Organisation] == nil {
					shardsOf[s.Organisation] = map[int]bool{}
				}
				shardsOf[s.Organisation][i] = true
			}
		}
		for _, s := range sites {
			if seen[s.URL] != 1 {
				t.Fatalf("site %s is in %d shards", s.URL, seen[s.URL])
			}
		}
		for org, in := range shardsOf {
			if orgSize[org] <= share && len(in) != 1 {
				t.Fatalf("%s (%d sites, share %d) is split over %d shards", org, orgSize[org], share, len(in))
			}
			if maxShards := (orgSize[org] + share - 1) / share; len(in) > maxShards {
				t.Fatalf("%s (%d sites, share %d) is in %d shards, more than its %d pieces", org, orgSize[org], share, len(in), maxShards)
			}
		}
	})
}
