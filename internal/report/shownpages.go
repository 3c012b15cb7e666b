package report

import (
	"cmp"
	"container/heap"
	"slices"
	"strings"
)

// shownPages are the pages the per-page table lists: the MaxPagesShown
// first in its order (pageOrder) of the pages whose run of elements has
// ended, kept as a heap with the last of them on top. A page's counts
// change only while its elements are read, so a page placed when its run
// ends is placed for good until its rows come again, and then it is
// placed again. Only these pages and the one being read keep their
// texts: a scan has up to lim.Pages pages ranked, and their addresses and
// titles were over a third of what the report held.
type shownPages []*page

// pageOrder is the per-page table's order of pages a and c: more
// elements weighted as the leaderboard weighs issues first, then by
// address.
func pageOrder(a, c *page) int {
	if n := cmp.Compare(weighted(c.Elements.byImpact()), weighted(a.Elements.byImpact())); n != 0 {
		return n
	}
	return strings.Compare(a.texts.URL, c.texts.URL)
}

// pageBefore says whether page a comes before page c in the table.
func pageBefore(a, c *page) bool { return pageOrder(a, c) < 0 }

// place places page p, whose run of elements has ended, among the pages
// shown, and returns the page that is not among them afterwards (p
// itself, or the page p put out), if any, whose texts can go.
func (s *shownPages) place(p *page) (let *page) {
	switch {
	case p.texts.at >= 0:
		heap.Fix(s, p.texts.at)
	case len(*s) < MaxPagesShown:
		heap.Push(s, p)
	case pageBefore(p, (*s)[0]):
		let = heap.Pop(s).(*page)
		heap.Push(s, p)
	default:
		let = p
	}
	return let
}

// inOrder is the pages shown in the table's order.
func (s shownPages) inOrder() []*page {
	out := slices.Clone(s)
	slices.SortFunc(out, pageOrder)
	return out
}

// The heap's methods (container/heap): the last page shown on top.

func (s shownPages) Len() int           { return len(s) }
func (s shownPages) Less(i, j int) bool { return pageBefore(s[j], s[i]) }
func (s shownPages) Swap(i, j int) {
	s[i], s[j] = s[j], s[i]
	s[i].texts.at, s[j].texts.at = i, j
}

// Push adds a page (heap.Push).
func (s *shownPages) Push(x any) {
	p := x.(*page)
	p.texts.at = len(*s)
	*s = append(*s, p)
}

// Pop takes the last page off (heap.Pop). Its place is not kept: the
// page taken off lets its texts go (place).
func (s *shownPages) Pop() any {
	old := *s
	p := old[len(old)-1]
	*s = old[:len(old)-1]
	return p
}
