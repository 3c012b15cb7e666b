package report

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"unsafe"

	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/wcag"
)

// TestPagesOfRulesAndCriteria: each rule's and criterion's page count is
// the number of pages with one of its elements, and each page's row names
// its first rules and counts the rest, however the pages' rows interleave,
// past a page's own bound on rules (maxPageRules), for pages past
// lim.Pages and once the pages' rules have spent lim.Elements (both told
// apart as pairs instead), all checked against a count from the rows.
func TestPagesOfRulesAndCriteria(t *testing.T) {
	tags := []string{"['wcag2a', 'wcag111']", "['wcag2aa', 'wcag143', 'wcag412']", "['best-practice']"}
	const pages, rules = 5, maxPageRules + 6
	var rows []axeRow
	add := func(page, rule int) {
		rows = append(rows, axeRow{url: fmt.Sprintf("https://a/%d", page), id: fmt.Sprintf("r%02d", rule),
			target: fmt.Sprintf("/t[%d]", len(rows)), impact: "serious", tags: tags[rule%len(tags)]})
	}
	for round := range 3 { // the pages' rows interleaved, each rule on three pages
		for r := range rules {
			add((r+round)%pages, r)
		}
	}
	for r := rules - 1; r >= 0; r-- { // every rule on the last page, past its bound
		add(pages-1, r)
	}
	add(pages-1, 0) // a rule the page has had

	rulePages, critPages, pageRules := pagesOf(t, rows)
	if len(pageRules["https://a/4"]) <= maxPageRules || len(critPages) < 3 {
		t.Fatalf("the rows do not reach past a page's bound: %d rules, %d criteria", len(pageRules["https://a/4"]), len(critPages))
	}

	var body strings.Builder
	body.WriteString(axeHead)
	for _, r := range rows {
		body.WriteString(r.line())
	}
	fsys := fstest.MapFS{"axe_core_audit.csv": csvFile(body.String())}
	pairs := 0 // every page's rules, told apart as pairs
	for _, rs := range pageRules {
		pairs += len(rs)
	}
	for _, tt := range []struct {
		name    string
		lim     Limits
		spent   bool // the pages' rules have spent lim.Elements
		tracked int
		pairs   int // pairs kept (-1: not counted here)
	}{
		{name: "default limits", tracked: pages, pairs: len(pageRules["https://a/4"]) - maxPageRules},
		{name: "two pages tracked", lim: Limits{Pages: 2}, tracked: 2, pairs: -1},
		{name: "pages' rules spent", spent: true, tracked: pages, pairs: pairs},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBuilderWithLimits(tt.lim)
			if tt.spent {
				b.pageRules = b.lim.Elements
			}
			if err := results.Walk(context.Background(), fsys, b); err != nil {
				t.Fatal(err)
			}
			for id, want := range rulePages {
				if ru := b.rules["axe_core_audit\x00"+id]; ru == nil || ru.Pages != int64(len(want)) {
					t.Errorf("rule %s: %+v, want %d pages", id, ru, len(want))
				}
			}
			for n, want := range critPages {
				if c := b.criteria[n]; c == nil || c.Pages != int64(len(want)) {
					t.Errorf("criterion %s: %+v, want %d pages", n, c, len(want))
				}
			}
			if len(b.pages) != tt.tracked {
				t.Fatalf("%d pages tracked, want %d", len(b.pages), tt.tracked)
			}
			if tt.pairs >= 0 && b.pairsTold != tt.pairs {
				t.Errorf("%d pairs kept, want %d (the tracked pages tell their criteria apart)", b.pairsTold, tt.pairs)
			}
			checkPageRows(t, b, pageRules, tt.spent)
		})
	}
}

// pagesOf is what rows say: the pages of each rule and criterion, and each
// page's rules in order of first sight.
func pagesOf(t *testing.T, rows []axeRow) (rulePages, critPages map[string]map[string]bool, pageRules map[string][]string) {
	t.Helper()
	rulePages, critPages, pageRules = map[string]map[string]bool{}, map[string]map[string]bool{}, map[string][]string{}
	add := func(m map[string]map[string]bool, k, url string) {
		if m[k] == nil {
			m[k] = map[string]bool{}
		}
		m[k][url] = true
	}
	for _, r := range rows {
		add(rulePages, r.id, r.url)
		ts, err := results.ParseTags(r.tags)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range wcag.Criteria(ts) {
			add(critPages, c.Number, r.url)
		}
		if !slices.Contains(pageRules[r.url], r.id) {
			pageRules[r.url] = append(pageRules[r.url], r.id)
		}
	}
	return rulePages, critPages, pageRules
}

// checkPageRows checks each tracked page's named rules and found rules
// against pageRules (spent: the pages' rules had spent lim.Elements).
func checkPageRows(t *testing.T, b *Builder, pageRules map[string][]string, spent bool) {
	t.Helper()
	found, tracked := 0, 0
	for url, want := range pageRules {
		p := b.pages[b.hash(url)]
		if p == nil {
			continue
		}
		tracked++
		named := want[:min(len(want), maxRulesPerPage)]
		if got, more := b.named(p); !slices.Equal(got, named) || more != len(want)-len(named) {
			t.Errorf("page %s names %v and %d more, want %v and %d more", url, got, more, named, len(want)-len(named))
		}
		wantFound := min(len(want), maxPageRules)
		if spent {
			wantFound = 0
		}
		if p.foundCount() != wantFound {
			t.Errorf("page %s found %d rules itself, want %d", url, p.foundCount(), wantFound)
		}
		found += p.foundCount()
	}
	if tracked != len(b.pages) {
		t.Errorf("%d pages tracked, %d of them the rows' pages", len(b.pages), tracked)
	}
	if !spent && b.pageRules != found {
		t.Errorf("%d page rules counted, %d found", b.pageRules, found)
	}
}

// TestEveryCriterionHasItsBit: a page tells every WCAG criterion apart
// with a bit of its own (page.criteria), and only WCAG criteria are
// counted, so the bits are enough.
func TestEveryCriterionHasItsBit(t *testing.T) {
	if n := len(wcag.All()); n >= maxPageCriteria {
		t.Fatalf("%d WCAG criteria, and a page has bits for %d", n, maxPageCriteria)
	}
}

// TestPageWithoutAddress: a first element with no page address is on a
// page of its own, as any other.
func TestPageWithoutAddress(t *testing.T) {
	b := walkAxe(t, []axeRow{{url: "", target: "/x", id: "r", impact: "minor"}, {url: "https://a/", target: "/x", id: "r", impact: "minor"}})
	if len(b.pages) != 2 || b.rules["axe_core_audit\x00r"].Pages != 2 {
		t.Errorf("%d pages tracked, rule on %d; want 2 and 2", len(b.pages), b.rules["axe_core_audit\x00r"].Pages)
	}
}

// TestPageKeepsTextsOnce: a page's link is its kept URL and its
// organisation its organisation's name, not copies of them (a scan can
// have a hundred thousand pages), while a link that differs from the
// address kept (spaces around it) is made from it.
func TestPageKeepsTextsOnce(t *testing.T) {
	b := walkAxe(t, []axeRow{
		{org: "Org", url: "https://a/1", target: "/x", id: "r", impact: "minor"},
		{org: "Org", url: " https://a/2 ", target: "/x", id: "r", impact: "minor"},
	})
	o := b.orgs[b.hash("Org")]
	if o == nil {
		t.Fatal("no organisation Org")
	}
	for _, p := range b.pages {
		if p.texts.Organisation != "Org" || unsafe.StringData(p.texts.Organisation) != unsafe.StringData(o.Name) {
			t.Errorf("page %q: organisation %q is not its organisation's name", p.texts.URL, p.texts.Organisation)
		}
		switch p.texts.URL {
		case "https://a/1":
			if p.texts.Link() != p.texts.URL || unsafe.StringData(p.texts.Link()) != unsafe.StringData(p.texts.URL) {
				t.Errorf("page %q: link %q is not its URL", p.texts.URL, p.texts.Link())
			}
		case " https://a/2 ":
			if p.texts.Link() != "https://a/2" {
				t.Errorf("page %q: link %q, want https://a/2", p.texts.URL, p.texts.Link())
			}
		default:
			t.Errorf("page %q", p.texts.URL)
		}
	}
}

// TestPageRecordSize: a page's record fits 64 bytes, the allocator's
// size class under 80: a scan keeps one for each of up to lim.Pages
// pages (MaxTrackedPages).
func TestPageRecordSize(t *testing.T) {
	if n := unsafe.Sizeof(page{}); n > 64 {
		t.Errorf("a page's record is %d bytes, want at most 64", n)
	}
}

// TestPageCountsHoldAtTheLargest: a page's count past 32 bits stays at
// the largest rather than wrap to few.
func TestPageCountsHoldAtTheLargest(t *testing.T) {
	c := pageCounts{1: math.MaxUint32 - 1, 3: 7}
	c.add(1)
	c.add(1)
	c.add(3)
	if want := (byImpact{1: math.MaxUint32, 3: 8}); c.byImpact() != want {
		t.Errorf("counts %v, want %v", c.byImpact(), want)
	}
}
