package results

import (
	"bytes"
	"cmp"
	"hash/maphash"
	"slices"
)

// Page titles (WCAG 2.4.2 Page Titled), from title_audit.csv. CWAC's title
// audit records Selenium's driver.title, the page's document.title, in the
// page_title column (the file has no audit_type and no num_issues column):
// it finds nothing itself. document.title is "" both when a page has no
// <title> and when its <title> is empty or only white space, so the two
// cannot be told apart: they are counted together as missing or empty. A
// duplicate is one title on several pages of one site (base URL): sites
// of one organisation may share a home page's title without harm. CWAC
// writes a row per page and viewport; a page is counted once.

// OrganisationTitles are one organisation's page title findings.
type OrganisationTitles struct {
	Organisation string `json:"organisation"`
	Pages        int64  `json:"pages"`
	// MissingOrEmpty are pages whose title is missing, empty or blank.
	MissingOrEmpty int64 `json:"missing_or_empty"`
	// DuplicateTitles are titles shared by several pages of one site.
	DuplicateTitles int64 `json:"duplicate_titles"`
	// PagesWithDuplicateTitle are the pages that share them.
	PagesWithDuplicateTitle int64 `json:"pages_with_duplicate_title"`
}

// PageRef is one page of a site.
type PageRef struct {
	Organisation string `json:"organisation"`
	BaseURL      string `json:"base_url"`
	URL          string `json:"url"`
}

// DuplicateTitle is one title shared by several pages of one site.
type DuplicateTitle struct {
	Organisation string `json:"organisation"`
	BaseURL      string `json:"base_url"`
	Title        string `json:"title"`
	Pages        int64  `json:"pages"`
	// URLs are the first MaxDuplicateTitleURLs of those pages.
	URLs []string `json:"urls"`
}

// MaxDuplicateTitleURLs is how many pages of a duplicate title are named.
const MaxDuplicateTitleURLs = 3

// TitleSignals are a scan's page title findings: totals, per organisation,
// and lists (duplicates with the most pages first, missing titles in the
// order CWAC wrote them).
type TitleSignals struct {
	Pages                   int64                `json:"pages"`
	MissingOrEmpty          int64                `json:"missing_or_empty"`
	DuplicateTitles         int64                `json:"duplicate_titles"`
	PagesWithDuplicateTitle int64                `json:"pages_with_duplicate_title"`
	ByOrganisation          []OrganisationTitles `json:"by_organisation"`
	Missing                 []PageRef            `json:"missing"`
	Duplicates              []DuplicateTitle     `json:"duplicates"`
	// UntrackedTitles counts pages whose title was not compared with the
	// others: past MaxSignalItems distinct titles (0 in real scans).
	UntrackedTitles int64 `json:"untracked_titles,omitempty"`
}

type titleGroup struct {
	DuplicateTitle
}

type titleBuilder struct {
	seed      maphash.Seed
	orgs      *orgNames
	seen      bool
	pages     map[uint64]struct{}
	byOrg     map[string]*OrganisationTitles
	groups    map[uint64]*titleGroup
	missing   []PageRef
	untracked int64
	col       struct{ org, baseURL, url, title int }
}

func newTitleBuilder(seed maphash.Seed, orgs *orgNames) *titleBuilder {
	return &titleBuilder{seed: seed, orgs: orgs, pages: map[uint64]struct{}{}, byOrg: map[string]*OrganisationTitles{}, groups: map[uint64]*titleGroup{}}
}

func (t *titleBuilder) begin(r *Reader) func(Row) {
	t.seen = true
	t.col.org, t.col.baseURL, t.col.url, t.col.title = r.Column("organisation"), r.Column("base_url"), r.Column("url"), r.Column("page_title")
	return t.row
}

func (t *titleBuilder) row(row Row) {
	c := &t.col
	orgCell, base := cellBytes(row, c.org), cellBytes(row, c.baseURL)
	page := hashBytes(t.seed, orgCell, base, cellBytes(row, c.url))
	if _, dup := t.pages[page]; dup {
		return // the same page at another viewport
	}
	if len(t.pages) < MaxSignalPages {
		t.pages[page] = struct{}{}
	}
	org := t.orgs.name(cellHead(row, c.org, maxRuleIDBytes))
	o := t.byOrg[org]
	if o == nil {
		o = &OrganisationTitles{Organisation: org}
		t.byOrg[org] = o
	}
	o.Pages++
	title := cellBytes(row, c.title)
	if len(bytes.TrimSpace(title)) == 0 {
		o.MissingOrEmpty++
		if len(t.missing) < MaxSignalItems {
			t.missing = append(t.missing, PageRef{Organisation: org, BaseURL: cellHead(row, c.baseURL, maxSignalURLBytes), URL: cellHead(row, c.url, maxSignalURLBytes)})
		}
		return
	}
	key := hashBytes(t.seed, orgCell, base, title)
	g := t.groups[key]
	if g == nil {
		if len(t.groups) >= MaxSignalItems {
			t.untracked++
			return
		}
		g = &titleGroup{DuplicateTitle{Organisation: org, BaseURL: cellHead(row, c.baseURL, maxSignalURLBytes), Title: cellHead(row, c.title, maxSignalTextBytes)}}
		t.groups[key] = g
	}
	g.Pages++
	if len(g.URLs) < MaxDuplicateTitleURLs {
		g.URLs = append(g.URLs, cellHead(row, c.url, maxSignalURLBytes))
	}
	switch g.Pages {
	case 1:
	case 2: // the title is now a duplicate, of both pages
		o.DuplicateTitles++
		o.PagesWithDuplicateTitle += 2
	default:
		o.PagesWithDuplicateTitle++
	}
}

func (t *titleBuilder) result(limit int) *TitleSignals {
	if !t.seen {
		return nil
	}
	s := &TitleSignals{Missing: t.missing[:min(len(t.missing), limit)], Duplicates: []DuplicateTitle{}, UntrackedTitles: t.untracked}
	s.Missing = slices.Clone(s.Missing)
	if s.Missing == nil {
		s.Missing = []PageRef{}
	}
	for _, g := range t.groups {
		if g.Pages > 1 {
			d := g.DuplicateTitle
			d.URLs = slices.Clone(d.URLs)
			s.Duplicates = append(s.Duplicates, d)
		}
	}
	slices.SortFunc(s.Duplicates, func(a, b DuplicateTitle) int {
		return cmp.Or(cmp.Compare(b.Pages, a.Pages), cmp.Compare(a.Organisation, b.Organisation), cmp.Compare(a.BaseURL, b.BaseURL), cmp.Compare(a.Title, b.Title))
	})
	s.Duplicates = s.Duplicates[:min(len(s.Duplicates), limit)]
	s.ByOrganisation = sortedOrgs(t.byOrg, func(o *OrganisationTitles) string { return o.Organisation })
	for _, o := range s.ByOrganisation {
		s.Pages += o.Pages
		s.MissingOrEmpty += o.MissingOrEmpty
		s.DuplicateTitles += o.DuplicateTitles
		s.PagesWithDuplicateTitle += o.PagesWithDuplicateTitle
	}
	return s
}
