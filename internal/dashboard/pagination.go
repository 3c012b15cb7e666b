package dashboard

import (
	"fmt"
	"net/url"
	"strconv"

	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// Long lists (the organisations, a scan's organisations, the scans) are
// shown a page at a time, so a page stays small and quick with 1,000
// organisations: ?page= (from 1) and ?per_page=, plain links that work
// without JavaScript, in a navigation landmark of their own.

// The paging parameters.
const (
	fieldPage    = "page"
	fieldPerPage = "per_page"
)

// Bounds of the paging parameters: a page number past maxPageNumber is
// refused before any arithmetic, and per_page stays within what one page
// may show.
const (
	maxPageNumber = 1_000_000
	minPerPage    = 1
	maxPerPage    = 200
)

// paging is a list's page and rows per page, validated.
type paging struct {
	Page, PerPage int
	// DefaultPerPage is the list's own; links leave per_page out when
	// it is the default.
	DefaultPerPage int
}

// Offset is the first row of the page, counted from 0.
func (p paging) Offset() int { return (p.Page - 1) * p.PerPage }

// parsePaging reads page and per_page from a query (both optional).
func parsePaging(q url.Values, defaultPerPage int) (paging, error) {
	p := paging{Page: 1, PerPage: defaultPerPage, DefaultPerPage: defaultPerPage}
	if q.Has(fieldPage) {
		n, err := strconv.Atoi(q.Get(fieldPage))
		if err != nil || n < 1 || n > maxPageNumber {
			return p, fmt.Errorf("page %q is not a page number (a whole number from 1)", textcap.Head(q.Get(fieldPage), 32))
		}
		p.Page = n
	}
	if q.Has(fieldPerPage) {
		n, err := strconv.Atoi(q.Get(fieldPerPage))
		if err != nil || n < minPerPage || n > maxPerPage {
			return p, fmt.Errorf("per_page %q is not a number of rows from %d to %d", textcap.Head(q.Get(fieldPerPage), 32), minPerPage, maxPerPage)
		}
		p.PerPage = n
	}
	return p, nil
}

// pager is what the "pager" template renders: where the page is in the
// list, and links to the others.
type pager struct {
	// Label names the navigation landmark ("Pages of organisations").
	Label string
	// Noun is what the list holds ("organisations").
	Noun                            string
	Page, Pages, Total, First, Last int
	Prev, Next                      string
	Links                           []pageLink
	PerPage, DefaultPerPage         int
}

// pageLink is one page number in the pager; Gap stands for pages left out.
type pageLink struct {
	Number  int
	URL     string
	Current bool
	Gap     bool
}

// pagerNeighbours is how many page numbers are linked on each side of
// the current page (besides the first and the last).
const pagerNeighbours = 2

// newPager places a page in a list of total rows. A page past the last
// (but page 1 of an empty list) is an error naming the last page. path
// and q are the page's own, so links keep its other parameters.
func newPager(label, noun, path string, q url.Values, p paging, total int) (pager, error) {
	pages := max(1, (total+p.PerPage-1)/p.PerPage)
	if p.Page > pages {
		return pager{}, fmt.Errorf("page %d is past the last page of %s, %d (%d per page)", p.Page, noun, pages, p.PerPage)
	}
	pg := pager{Label: label, Noun: noun, Page: p.Page, Pages: pages, Total: total, PerPage: p.PerPage, DefaultPerPage: p.DefaultPerPage}
	if total > 0 {
		pg.First, pg.Last = p.Offset()+1, min(p.Offset()+p.PerPage, total)
	}
	link := func(n int) string {
		v := url.Values{}
		for k, vs := range q {
			if k != fieldPage && k != fieldPerPage {
				v[k] = vs
			}
		}
		if n > 1 {
			v.Set(fieldPage, strconv.Itoa(n))
		}
		if p.PerPage != p.DefaultPerPage {
			v.Set(fieldPerPage, strconv.Itoa(p.PerPage))
		}
		if len(v) == 0 {
			return path
		}
		return path + "?" + v.Encode()
	}
	if p.Page > 1 {
		pg.Prev = link(p.Page - 1)
	}
	if p.Page < pages {
		pg.Next = link(p.Page + 1)
	}
	for n := 1; n <= pages; n++ {
		near := n == 1 || n == pages || (n >= p.Page-pagerNeighbours && n <= p.Page+pagerNeighbours)
		switch {
		case near:
			pg.Links = append(pg.Links, pageLink{Number: n, URL: link(n), Current: n == p.Page})
		case len(pg.Links) > 0 && !pg.Links[len(pg.Links)-1].Gap:
			pg.Links = append(pg.Links, pageLink{Gap: true})
		}
	}
	return pg, nil
}
