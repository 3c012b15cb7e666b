package report

import (
	"container/heap"
	"slices"
)

// shownPages are the pages the per-page table lists: the MaxPagesShown
// first in its order (pageBefore) of the pages whose run of elements has
// ended, kept as a heap with the last of them on top. A page's counts
// change only while its elements are read, so a page placed when its run
// ends is placed for good until its rows come again, and then it is
// placed again. Only these pages and the one being read keep their
// texts: a scan has up to lim.Pages pages ranked, and their addresses and
// titles were over a third of what the report held.
type shownPages []*page

// pageBefore says whether page a comes before page c in the per-page
// table: more elements weighted as the leaderboard weighs issues, then
// the address.
func pageBefore(a, c *page) bool {
	if wa, wc := weighted(a.Elements.byImpact()), weighted(c.Elements.byImpact()); wa != wc {
		return wa > wc
	}
	return a.texts.URL < c.texts.URL
}

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
	slices.SortFunc(out, func(a, c *page) int {
		switch {
		case pageBefore(a, c):
			return -1
		case pageBefore(c, a):
			return 1
		}
		return 0
	})
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

// Pop takes the last page off (heap.Pop).
func (s *shownPages) Pop() any {
	old := *s
	p := old[len(old)-1]
	*s = old[:len(old)-1]
	p.texts.at = -1
	return p
}
