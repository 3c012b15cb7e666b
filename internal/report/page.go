package report

import (
	"math"
	"slices"
)

// A compile error if the rules outgrow ruleIndex (page.found holds an
// index plus one).
const _ ruleIndex = MaxTrackedRules + 1

// pageFoundHere is how many of a page's found rules its record holds
// itself: a few to a page is the usual, and a slice of them took 24 bytes
// in the record and an allocation of its own.
const pageFoundHere = 4

// page aggregates the issues found on one page. A scan has a page for
// every few issue rows (every one is kept up to lim.Pages, to rank them
// at the end), so it holds no more than it must: its texts only while
// its rows are read or while it is among the pages shown (shownPages),
// and the rules past found's bounds apart.
type page struct {
	Elements pageCounts
	// found are the rules with an element on the page, in order of first
	// sight (at most maxPageRules), and criteria the criteria (a bit per
	// criterion.bit): whether an element is its rule's or criterion's
	// first on the page is asked of every element, and the rows of a page
	// come together, so the page answers it rather than a set of pairs
	// the size of the scan. The page's row names its first rules from them
	// (Builder.named). The record holds the first pageFoundHere, each as
	// its index plus one (0: none), and aside the rest (eachFound).
	found    [pageFoundHere]ruleIndex
	criteria [maxPageCriteria / 64]uint64
	// aside are the found rules past the record's, and the rules found
	// past found's bounds (nil: none).
	aside *pageAside
	// texts are the page's address, title and organisation (nil: let go,
	// until its rows come again, which carry them).
	texts *pageTexts
}

// pageAside is what a page's record has no room for: its found rules
// past the record's (found), and its rules past found's bounds (told
// apart as pairs), named after found's (rules) or counted past the named
// (more).
type pageAside struct {
	found []ruleIndex
	rules []string
	more  int
}

// pageCounts are a page's elements by impact class (as byImpact), in 32
// bits: a count stays at the largest rather than wrap, which takes more
// rows of one page than a results directory holds.
type pageCounts [5]uint32

// add counts an element of impact class imp.
func (c *pageCounts) add(imp int) {
	if c[imp] < math.MaxUint32 {
		c[imp]++
	}
}

// byImpact is the counts as the report's other counts are.
func (c *pageCounts) byImpact() byImpact {
	var out byImpact
	for i, n := range c {
		out[i] = int64(n)
	}
	return out
}

// hasFound reports whether the page found rule i (found).
func (p *page) hasFound(i ruleIndex) bool {
	for _, f := range p.found {
		if f == 0 {
			return false
		}
		if f == i+1 {
			return true
		}
	}
	return p.aside != nil && slices.Contains(p.aside.found, i)
}

// foundCount is how many rules the page found (found).
func (p *page) foundCount() int {
	n := 0
	if p.aside != nil {
		n = len(p.aside.found)
	}
	for _, f := range p.found {
		if f != 0 {
			n++
		}
	}
	return n
}

// addFound adds rule i to the page's found rules, in the record while
// it has room (found).
func (p *page) addFound(i ruleIndex) {
	for k, f := range p.found {
		if f == 0 {
			p.found[k] = i + 1
			return
		}
	}
	if p.aside == nil {
		p.aside = &pageAside{}
	}
	p.aside.found = append(p.aside.found, i)
}

// eachFound is the page's found rules in order of first sight.
func (p *page) eachFound(yield func(ruleIndex) bool) {
	for _, f := range p.found {
		if f == 0 {
			return
		}
		if !yield(f - 1) {
			return
		}
	}
	if p.aside != nil {
		for _, i := range p.aside.found {
			if !yield(i) {
				return
			}
		}
	}
}

// pageTexts are what the per-page table shows of a page besides its
// counts, kept while it might be shown (page.texts).
type pageTexts struct {
	URL, Title, Organisation string
	// linked says the URL is linked: an http(s) address kept within
	// lim.KeptText.
	linked bool
	// kept is what the texts count against lim.KeptText, given back when
	// they are let go.
	kept int64
	// at is the page's place among the pages shown (-1: not among them).
	at int
}

// Link is the page's link (Builder.link), or "" when it has none.
func (t *pageTexts) Link() string {
	if !t.linked {
		return ""
	}
	return httpLink(t.URL)
}
