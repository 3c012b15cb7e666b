// Package shard splits a sharded scan's sites between its pods. The operator
// (to name a failed shard's sites), each scan pod (to pick its own sites) and
// the merge pod (to know which sites each shard had) call Split with the same
// sites and count, so they agree without the split being stored anywhere.
package shard

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/a11y-dev/cwac-operator/internal/cwacconfig"
)

// Split divides sites into at most n shards of about equal size. An
// organisation's sites stay in one shard unless the organisation alone has
// more than a shard's share (len(sites)/n, rounded up); then it is cut into
// pieces of that size. Whole organisations are handed out largest first,
// each to the shard with the fewest sites so far (the lowest index on a
// tie), so no shard is empty and none exceeds the share by more than the
// largest organisation that had to stay whole. There are fewer than n
// shards only when there are fewer pieces than n (two organisations of two
// sites each cannot fill three shards). Within a shard, sites keep their
// order in sites. The result depends only on sites and n.
func Split(sites []cwacconfig.Site, n int) [][]cwacconfig.Site {
	if len(sites) == 0 {
		return nil
	}
	if n < 1 {
		n = 1
	}
	share := (len(sites) + n - 1) / n
	pieces := piecesOf(sites, share)
	// Largest first; the sort is stable, so equal pieces keep their order.
	slices.SortStableFunc(pieces, func(a, b []int) int { return cmp.Compare(len(b), len(a)) })

	shards := make([][]int, min(n, len(pieces)))
	for _, p := range pieces {
		smallest := 0
		for i := range shards {
			if len(shards[i]) < len(shards[smallest]) {
				smallest = i
			}
		}
		shards[smallest] = append(shards[smallest], p...)
	}
	out := make([][]cwacconfig.Site, len(shards))
	for i, idx := range shards {
		slices.Sort(idx)
		out[i] = make([]cwacconfig.Site, len(idx))
		for j, k := range idx {
			out[i][j] = sites[k]
		}
	}
	return out
}

// piecesOf groups the indexes of sites by organisation, in order of first
// appearance, and cuts a group longer than share into pieces of share.
func piecesOf(sites []cwacconfig.Site, share int) [][]int {
	groupOf := map[string]int{}
	var groups [][]int
	for i, s := range sites {
		g, ok := groupOf[s.Organisation]
		if !ok {
			g = len(groups)
			groupOf[s.Organisation] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], i)
	}
	var pieces [][]int
	for _, g := range groups {
		for len(g) > share {
			pieces = append(pieces, g[:share:share])
			g = g[share:]
		}
		pieces = append(pieces, g)
	}
	return pieces
}

// ParseIndexes reads a set of shard indexes as an Indexed Job's status
// writes them ("1,3-5"), ascending; "" is none.
func ParseIndexes(s string) ([]int, error) {
	var out []int
	if s == "" {
		return nil, nil
	}
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		first, err := strconv.Atoi(lo)
		if err != nil || first < 0 {
			return nil, fmt.Errorf("index set %q: %q is not an index or a range of them", s, part)
		}
		last := first
		if isRange {
			if last, err = strconv.Atoi(hi); err != nil || last < first {
				return nil, fmt.Errorf("index set %q: %q is not an index or a range of them", s, part)
			}
		}
		if len(out)+last-first >= maxIndexes {
			return nil, fmt.Errorf("index set %q: more than %d indexes", s, maxIndexes)
		}
		for i := first; i <= last; i++ {
			out = append(out, i)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// maxIndexes bounds what ParseIndexes expands: far more than any scan's
// shards, far less than a hostile range could ask for.
const maxIndexes = 1024
