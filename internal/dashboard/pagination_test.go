package dashboard

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/store"
)

// TestParsePaging: page and per_page at and around their limits, and
// values that are not numbers, each refused with the parameter named.
func TestParsePaging(t *testing.T) {
	for _, tc := range []struct {
		query         string
		page, perPage int
		err           string
	}{
		{"", 1, 50, ""},
		{"page=1", 1, 50, ""},
		{"page=2&per_page=1", 2, 1, ""},
		{"page=" + strconv.Itoa(maxPageNumber), maxPageNumber, 50, ""},
		{"per_page=" + strconv.Itoa(maxPerPage), 1, maxPerPage, ""},
		{"page=0", 0, 0, `page "0" is not a page number (a whole number from 1)`},
		{"page=-1", 0, 0, `page "-1" is not a page number`},
		{"page=" + strconv.Itoa(maxPageNumber+1), 0, 0, `page "1000001" is not a page number`},
		{"page=two", 0, 0, `page "two" is not a page number`},
		{"page=1.5", 0, 0, `page "1.5" is not a page number`},
		{"page=", 0, 0, `page "" is not a page number`},
		{"page=99999999999999999999999", 0, 0, `page "99999999999999999999999" is not a page number`},
		{"per_page=0", 0, 0, `per_page "0" is not a number of rows from 1 to 200`},
		{"per_page=" + strconv.Itoa(maxPerPage+1), 0, 0, `per_page "201" is not a number of rows from 1 to 200`},
		{"per_page=all", 0, 0, `per_page "all" is not a number of rows`},
	} {
		q, err := url.ParseQuery(tc.query)
		if err != nil {
			t.Fatal(err)
		}
		p, err := parsePaging(q, 50)
		switch {
		case tc.err == "" && (err != nil || p.Page != tc.page || p.PerPage != tc.perPage || p.DefaultPerPage != 50):
			t.Errorf("%q: %+v %v, want page %d per page %d", tc.query, p, err, tc.page, tc.perPage)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%q: %v, want an error with %q", tc.query, err, tc.err)
		}
	}
}

// TestPager: the rows a page holds, its previous and next links, the page
// numbers shown around it and elsewhere a gap, the list's own parameters
// kept and a default per_page left out.
func TestPager(t *testing.T) {
	q := url.Values{"schedule": {"weekly"}, fieldPage: {"x"}}
	for _, tc := range []struct {
		page, perPage, total int
		first, last, pages   int
		prev, next           string
		links                string
	}{
		{1, 10, 0, 0, 0, 1, "", "", "[1]"},
		{1, 10, 10, 1, 10, 1, "", "", "[1]"},
		{1, 10, 11, 1, 10, 2, "", "/l?page=2&schedule=weekly", "[1] 2"},
		{2, 10, 11, 11, 11, 2, "/l?schedule=weekly", "", "1 [2]"},
		{5, 10, 100, 41, 50, 10, "/l?page=4&schedule=weekly", "/l?page=6&schedule=weekly", "1 … 3 4 [5] 6 7 … 10"},
		{1, 10, 100, 1, 10, 10, "", "/l?page=2&schedule=weekly", "[1] 2 3 … 10"},
		{4, 10, 100, 31, 40, 10, "/l?page=3&schedule=weekly", "/l?page=5&schedule=weekly", "1 2 3 [4] 5 6 … 10"},
		{10, 10, 100, 91, 100, 10, "/l?page=9&schedule=weekly", "", "1 … 8 9 [10]"},
		{2, 3, 7, 4, 6, 3, "/l?per_page=3&schedule=weekly", "/l?page=3&per_page=3&schedule=weekly", "1 [2] 3"},
	} {
		p := paging{Page: tc.page, PerPage: tc.perPage, DefaultPerPage: 10}
		pg, err := newPager("Pages of things", "things", "/l", q, p, tc.total)
		if err != nil {
			t.Errorf("%+v: %v", tc, err)
			continue
		}
		var links []string
		for _, l := range pg.Links {
			switch {
			case l.Gap:
				links = append(links, "…")
			case l.Current:
				links = append(links, "["+strconv.Itoa(l.Number)+"]")
			default:
				links = append(links, strconv.Itoa(l.Number))
			}
		}
		if pg.First != tc.first || pg.Last != tc.last || pg.Pages != tc.pages || pg.Prev != tc.prev || pg.Next != tc.next ||
			strings.Join(links, " ") != tc.links {
			t.Errorf("page %d of %d rows by %d: %+v, links %q", tc.page, tc.total, tc.perPage, pg, links)
		}
	}
	for _, tc := range []struct{ page, total int }{{2, 0}, {2, 10}, {11, 100}} {
		_, err := newPager("Pages of things", "things", "/l", q, paging{Page: tc.page, PerPage: 10, DefaultPerPage: 10}, tc.total)
		if err == nil || !strings.Contains(err.Error(), "is past the last page of things") {
			t.Errorf("page %d of %d rows: %v", tc.page, tc.total, err)
		}
	}
}

// TestLeaderboardSlices: every slice of the leaderboard, at every offset
// and size, holds exactly Leaderboard's rows there, figures, ranks and
// trends included: the page at / and the exports cannot disagree.
func TestLeaderboardSlices(t *testing.T) {
	_, st := newTestHandler(t, Options{})
	ctx := context.Background()
	for _, ns := range [][]string{{testNS}, {testNS, otherNS}} {
		all, err := Leaderboard(ctx, st, ns)
		if err != nil {
			t.Fatal(err)
		}
		var rows []LeaderboardRow
		for _, s := range all.Sectors {
			rows = append(rows, s.Rows...)
		}
		rows = append(rows, all.Unranked...)
		for limit := 1; limit <= len(rows)+1; limit++ {
			for offset := 0; offset <= len(rows); offset++ {
				slice := sliceLeaderboard(all, offset, limit)
				got := []LeaderboardRow{}
				for _, s := range slice.Figures.Sectors {
					if slice.SectorFrom[s.Name] < 1 || slice.SectorFrom[s.Name]+len(s.Rows)-1 > slice.SectorSizes[s.Name] {
						t.Errorf("%v %d+%d: sector %s numbered from %d of %d", ns, offset, limit, s.Name, slice.SectorFrom[s.Name], slice.SectorSizes[s.Name])
					}
					got = append(got, s.Rows...)
				}
				got = append(got, slice.Figures.Unranked...)
				want := rows[offset:min(offset+limit, len(rows))]
				gb, _ := json.Marshal(got)
				wb, _ := json.Marshal(want)
				if len(got) != len(want) || string(gb) != string(wb) || slice.Total != len(rows) {
					t.Errorf("%v rows %d+%d: got\n%s\nwant\n%s", ns, offset, limit, gb, wb)
				}
			}
		}
	}
}

// TestOrganisationsPages: the home page two organisations at a time: each
// page holds its rows in the leaderboard's order with their figures, a
// labelled navigation links the pages (the current one marked), and page
// parameters out of range are refused with 400.
func TestOrganisationsPages(t *testing.T) {
	h, st := newTestHandler(t, Options{})
	all, err := Leaderboard(context.Background(), st, []string{testNS})
	if err != nil {
		t.Fatal(err)
	}
	// Health: Alpha, Beta; Local government: Gamma; not ranked: Delta, Epsilon.
	pages := [][]string{{orgAlpha, orgBeta}, {orgGamma, orgDelta}, {orgEps}}
	for i, want := range pages {
		n := i + 1
		res, body := get(t, h, "reader", "/?per_page=2&page="+strconv.Itoa(n))
		if res.StatusCode != http.StatusOK {
			t.Fatalf("page %d: %d %s", n, res.StatusCode, body)
		}
		for _, org := range []string{orgAlpha, orgBeta, orgGamma, orgDelta, orgEps} {
			shown := strings.Contains(body, `">`+org+`</a>`)
			if shown != containsString(want, org) {
				t.Errorf("page %d shows %s: %v", n, org, shown)
			}
		}
		for _, w := range []string{
			`<nav class="pager" aria-label="Pages of organisations">`,
			`<a href="/?page=` + strconv.Itoa(n) + `&amp;per_page=2" aria-current="page"><span class="visually-hidden">Page </span>` + strconv.Itoa(n) + `</a>`,
			"Page " + strconv.Itoa(n) + " of 3: organisations " + strconv.Itoa(2*i+1) + " to " + strconv.Itoa(2*i+len(want)) + " of 5.",
		} {
			if n == 1 {
				w = strings.Replace(w, `/?page=1&amp;per_page=2`, `/?per_page=2`, 1)
			}
			if !strings.Contains(body, w) {
				t.Errorf("page %d lacks %q", n, w)
			}
		}
		if hasPrev := strings.Contains(body, `rel="prev"`); hasPrev != (n > 1) {
			t.Errorf("page %d: previous link %v", n, hasPrev)
		}
		if hasNext := strings.Contains(body, `rel="next"`); hasNext != (n < 3) {
			t.Errorf("page %d: next link %v", n, hasNext)
		}
		if strings.Count(body, `aria-current="page"`) != 2 { // the main navigation's and the pager's
			t.Errorf("page %d: %d aria-current", n, strings.Count(body, `aria-current="page"`))
		}
	}
	// Page 1 cuts no sector: captions count the whole sector.
	_, body := get(t, h, "reader", "/?per_page=2")
	if !strings.Contains(body, sectorA+": 2 organisations, best score first") {
		t.Error("page 1's caption")
	}
	// Page 2 holds Local government whole and the first of the unranked.
	_, body = get(t, h, "reader", "/?per_page=2&page=2")
	if !strings.Contains(body, sectorB+": 1 organisation, best score first") || !strings.Contains(body, "Organisations not ranked, and why: 1 of 2") {
		t.Errorf("page 2's captions:\n%s", body)
	}
	// Rank and score on a later page are the whole leaderboard's.
	gamma := all.Sectors[1].Rows[0]
	if i := strings.Index(body, ">"+orgGamma+"</a>"); i < 0 || !strings.Contains(body[i:], FormatScore(gamma.Score)) {
		t.Error("Gamma's score on page 2")
	}
	// One page of everything has no pager.
	if _, body := get(t, h, "reader", "/"); strings.Contains(body, `class="pager"`) {
		t.Error("a pager with one page")
	}
	for _, tc := range []struct{ query, want string }{
		{"?page=4&per_page=2", "page 4 is past the last page of organisations, 3 (2 per page)"},
		{"?page=2", "page 2 is past the last page of organisations, 1 (50 per page)"},
		{"?page=0", `page &#34;0&#34; is not a page number`},
		{"?per_page=500", `per_page &#34;500&#34; is not a number of rows from 1 to 200`},
		{"?page=1&page=2", `query parameter &#34;page&#34; is given 2 times`},
	} {
		res, body := get(t, h, "reader", "/"+tc.query)
		if res.StatusCode != http.StatusBadRequest || !strings.Contains(body, tc.want) {
			t.Errorf("%s: %d, want 400 with %q", tc.query, res.StatusCode, tc.want)
		}
	}
}

// TestScanAndScansPages: a scan's organisations and the scan list, a page
// at a time.
func TestScanAndScansPages(t *testing.T) {
	h, _ := newTestHandler(t, Options{Scans: testScans(t)})
	// weekly-2 recorded five organisations, by name.
	for n, want := range map[int][]string{1: {orgAlpha, orgBeta}, 2: {orgDelta, orgEps}, 3: {orgGamma}} {
		res, body := get(t, h, "reader", "/scans/cwac/weekly-2?per_page=2&page="+strconv.Itoa(n))
		if res.StatusCode != http.StatusOK {
			t.Fatalf("scan page %d: %d", n, res.StatusCode)
		}
		for _, org := range []string{orgAlpha, orgBeta, orgGamma, orgDelta, orgEps} {
			if shown := strings.Contains(body, `">`+org+`</a></th>`); shown != containsString(want, org) {
				t.Errorf("scan page %d shows %s: %v", n, org, shown)
			}
		}
		if !strings.Contains(body, `<nav class="pager" aria-label="Pages of this scan&#39;s organisations">`) {
			t.Errorf("scan page %d has no pager", n)
		}
	}
	if res, body := get(t, h, "reader", "/scans/cwac/weekly-2?page=9&per_page=2"); res.StatusCode != http.StatusBadRequest ||
		!strings.Contains(body, "page 9 is past the last page of organisations, 3") {
		t.Errorf("scan page 9: %d", res.StatusCode)
	}
	if res, _ := get(t, h, "reader", "/scans/cwac/weekly-2/files/report.html?page=2"); res.StatusCode != http.StatusBadRequest {
		t.Errorf("a file download with a page: %d", res.StatusCode)
	}
	// Five scans, two to a page: the filters kept in the links.
	res, body := get(t, h, "reader", "/scans?schedule=weekly&per_page=2&page=2")
	if res.StatusCode != http.StatusOK || !strings.Contains(body, "Scans 3 to 3 of 3, newest first") ||
		!strings.Contains(body, `href="/scans?per_page=2&amp;schedule=weekly" rel="prev"`) {
		t.Errorf("scans page 2: %d\n%s", res.StatusCode, body)
	}
	res, body = get(t, h, "reader", "/scans?per_page=0")
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(body, `per_page &#34;0&#34; is not a number of rows`) {
		t.Errorf("scans per_page=0: %d", res.StatusCode)
	}
	res, body = get(t, h, "reader", "/scans?page=7")
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(body, "page 7 is past the last page of scans, 1") {
		t.Errorf("scans page 7: %d", res.StatusCode)
	}
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// TestLeaderboardKept: the kept ranking is Leaderboard's, and a scan
// recorded or pruned after it was kept shows on the next request.
func TestLeaderboardKept(t *testing.T) {
	h, st := newTestHandler(t, Options{})
	ctx := context.Background()
	ns := []string{testNS}
	kept, err := cachedLeaderboard(ctx, st, ns)
	if err != nil {
		t.Fatal(err)
	}
	fresh, _ := Leaderboard(ctx, st, ns)
	kb, _ := json.Marshal(kept)
	fb, _ := json.Marshal(fresh)
	if string(kb) != string(fb) {
		t.Fatalf("the kept ranking differs from Leaderboard:\n%s\n%s", kb, fb)
	}
	if _, body := get(t, h, "reader", "/"); !strings.Contains(body, "2026-10-19") || strings.Contains(body, "2026-10-26") {
		t.Fatal("before the fourth week: the latest scan should be 2026-10-19")
	}
	// A fourth week: Gamma alone, its page now refused (partial).
	files := realFiles(t)
	ingestRun(t, st, buildRun(t, files, []orgRun{{name: orgGamma, sector: sectorB, host: "https://gamma.example", refused: []string{"/x/"}}}),
		weekScan(testNS, 3))
	_, body := get(t, h, "reader", "/")
	if !strings.Contains(body, "2026-10-26") {
		t.Error("the page kept the ranking from before the fourth week")
	}
	if i := strings.Index(body, `<h2 id="unranked">`); i < 0 || !strings.Contains(body[i:], ">"+orgGamma+"</a>") {
		t.Error("Gamma's partial fourth week does not set it apart")
	}
	res, csvBody := get(t, h, "reader", "/export/leaderboard.csv")
	if res.StatusCode != http.StatusOK || !strings.Contains(csvBody, "cwac/weekly-3") {
		t.Errorf("the export kept the ranking from before the fourth week: %d", res.StatusCode)
	}
	// Pruning all but the newest scan per schedule changes the figures again.
	before, _ := cachedLeaderboard(ctx, st, ns)
	if _, err := st.Prune(ctx, store.Retention{MaxScans: 1}); err != nil {
		t.Fatal(err)
	}
	after, _ := cachedLeaderboard(ctx, st, ns)
	fresh, _ = Leaderboard(ctx, st, ns)
	ab, _ := json.Marshal(after)
	bb, _ := json.Marshal(before)
	fb, _ = json.Marshal(fresh)
	if string(ab) != string(fb) || string(ab) == string(bb) {
		t.Error("after pruning, the kept ranking is not the store's")
	}
}
