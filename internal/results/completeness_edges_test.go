package results

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// Headers of the CWAC files these tests write, as CWAC writes them.
const (
	auditLogHeader   = "\ufefforganisation,base_url,url,sector\r\n"
	unexpectedHeader = "\ufeffbase_url,parent_url,url,status_code\r\n"
	antiBotHeader    = "\ufefforganisation,domain,url,anti_bot_check,viewport_size\r\n"
)

// judged walks files (name: content) with a builder for the sites given.
func judged(t *testing.T, sites []ExpectedSite, files map[string]string) *CompletenessBuilder {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, data := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(data)}
	}
	b := NewCompletenessBuilder(sites, 0)
	if err := Walk(context.Background(), fsys, b); err != nil {
		t.Fatal(err)
	}
	return b
}

func judgedSite(t *testing.T, c *Completeness, base string) SiteCompleteness {
	t.Helper()
	if c == nil {
		t.Fatal("no completeness")
	}
	s, ok := siteNamed(c, base)
	if !ok {
		t.Fatalf("%s not listed in %+v", base, c.Sites)
	}
	return s
}

func baseURLs(c *Completeness) []string {
	out := make([]string, 0, len(c.Sites))
	for _, s := range c.Sites {
		out = append(out, s.BaseURL)
	}
	return out
}

// Sites are listed worst first; within a verdict, the sites given in the
// scan's order (a site given twice where it was first given), then those
// only the files name, in the order they named them.
func TestCompletenessSiteOrder(t *testing.T) {
	sites := []ExpectedSite{
		{Organisation: "O", URL: "https://c.example/"},
		{Organisation: "O", URL: "https://a.example/"},
		{Organisation: "O", URL: "https://ok.example/"},
		{Organisation: "O", URL: "https://b.example/"},
		{Organisation: "O", URL: "https://c.example/"},
		{Organisation: "O", URL: "https://waf.example/"},
	}
	b := judged(t, sites, map[string]string{
		PagesScannedFile:   pagesHeader + "O,https://z.example/,0,S\r\nO,https://y.example/,0,S\r\nO,https://ok.example/,2,S\r\n",
		UnexpectedCodeFile: unexpectedHeader + "https://waf.example/,https://waf.example/,https://waf.example/,403\r\n",
	})
	want := []string{
		"https://waf.example/",                                                                                       // blocked
		"https://c.example/", "https://a.example/", "https://b.example/", "https://z.example/", "https://y.example/", // unreachable
		"https://ok.example/", // complete
	}
	if got := baseURLs(b.Completeness()); !slices.Equal(got, want) {
		t.Errorf("sites listed %q, want %q", got, want)
	}
}

// A site made without an organisation takes the first one a later row
// names; one it has is kept whatever later rows say.
func TestCompletenessOrganisationFilledIn(t *testing.T) {
	for _, tc := range []struct {
		name  string
		sites []ExpectedSite
		files map[string]string
		want  string
	}{
		{
			name:  "given without one",
			sites: []ExpectedSite{{URL: "https://a.example/"}},
			files: map[string]string{PagesScannedFile: pagesHeader + "Later Org,https://a.example/,1,S\r\n"},
			want:  "Later Org",
		},
		{
			name: "first named by a row without one",
			files: map[string]string{
				AuditLogFile:     auditLogHeader + ",https://a.example/,https://a.example/,S\r\n",
				PagesScannedFile: pagesHeader + "Later Org,https://a.example/,1,S\r\nOther Org,https://a.example/,0,S\r\n",
			},
			want: "Later Org",
		},
		{
			name:  "given with one",
			sites: []ExpectedSite{{Organisation: "Given Org", URL: "https://a.example/"}},
			files: map[string]string{PagesScannedFile: pagesHeader + "Other Org,https://a.example/,1,S\r\n"},
			want:  "Given Org",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := judged(t, tc.sites, tc.files).Completeness()
			if s := judgedSite(t, c, "https://a.example/"); s.Organisation != tc.want {
				t.Errorf("organisation %q, want %q", s.Organisation, tc.want)
			}
			if len(c.Organisations) != 1 || c.Organisations[0].Organisation != tc.want {
				t.Errorf("organisations %+v", c.Organisations)
			}
		})
	}
}

// An audit CSV is read for its pages and titles wherever its base_url and
// url columns are, the first column included; without either it is not.
func TestCompletenessAuditColumns(t *testing.T) {
	for _, tc := range []struct {
		header, row string
		audit       bool
	}{
		{"base_url,url,page_title,organisation", "https://a.example/,https://a.example/x,Just a moment...,O", true},
		{"url,base_url,page_title,organisation", "https://a.example/x,https://a.example/,Just a moment...,O", true},
		{"organisation,page_title,base_url,url", "O,Just a moment...,https://a.example/,https://a.example/x", true},
		{"organisation,page_title,url", "O,Just a moment...,https://a.example/x", false},
		{"organisation,page_title,base_url", "O,Just a moment...,https://a.example/", false},
	} {
		t.Run(tc.header, func(t *testing.T) {
			c := judged(t, []ExpectedSite{{Organisation: "O", URL: "https://a.example/"}}, map[string]string{
				"title_audit.csv": "\ufeff" + tc.header + "\r\n" + tc.row + "\r\n",
			}).Completeness()
			s := judgedSite(t, c, "https://a.example/")
			if tc.audit && (s.Verdict != VerdictBlocked || s.Pages != 1 || s.ChallengePages != 1 ||
				len(s.Reasons) != 1 || !strings.Contains(s.Reasons[0], "Cloudflare challenge")) {
				t.Errorf("read as an audit: %+v", s)
			}
			if !tc.audit && (s.Verdict != VerdictUnreachable || s.Pages != 0 || s.ChallengePages != 0) {
				t.Errorf("not an audit: %+v", s)
			}
		})
	}
}

// A site's pages in pages_scanned.csv add up and stop at the largest int32.
func TestCompletenessPagesSaturate(t *testing.T) {
	for _, tc := range []struct {
		rows []string
		want int
	}{
		{[]string{"2147483646", "1"}, 1<<31 - 1},
		{[]string{"2147483647", "1"}, 1<<31 - 1},
		{[]string{"2147483647", "2147483647"}, 1<<31 - 1},
		{[]string{"4294967296"}, 1<<31 - 1},
		{[]string{"3", "4"}, 7},
	} {
		var csv strings.Builder
		csv.WriteString(pagesHeader)
		for _, n := range tc.rows {
			fmt.Fprintf(&csv, "O,https://a.example/,%s,S\r\n", n)
		}
		c := judged(t, nil, map[string]string{PagesScannedFile: csv.String()}).Completeness()
		if s := judgedSite(t, c, "https://a.example/"); s.Pages != tc.want || s.Verdict != VerdictComplete {
			t.Errorf("%v: %+v, want %d pages", tc.rows, s, tc.want)
		}
		if o := c.Organisations[0]; o.Pages != tc.want {
			t.Errorf("%v: organisation %+v", tc.rows, o)
		}
	}
}

// A status written as a float (pandas) is read as the whole number it is,
// from -1 (no answer) to 999; past those it is refused.
func TestCompletenessStatusFloats(t *testing.T) {
	for _, tc := range []struct {
		status  string
		want    Responses
		wantErr bool
	}{
		{status: "-1.0", want: Responses{NoAnswer: 1}},
		{status: "999.0", want: Responses{ServerErrors: 1}},
		{status: "0.0"},
		{status: "404.0"},
		{status: "-2.0", wantErr: true},
		{status: "-1.5", wantErr: true},
		{status: "1000.0", wantErr: true},
		{status: "999.5", wantErr: true},
	} {
		fsys := fstest.MapFS{
			PagesScannedFile:   {Data: []byte(pagesHeader + "O,https://a.example/,2,S\r\n")},
			UnexpectedCodeFile: {Data: []byte(unexpectedHeader + "https://a.example/,https://a.example/,https://a.example/x," + tc.status + "\r\n")},
		}
		b := NewCompletenessBuilder(nil, 0)
		err := Walk(context.Background(), fsys, b)
		if tc.wantErr {
			if err == nil || !strings.Contains(err.Error(), "is not an HTTP status") || !strings.Contains(err.Error(), tc.status) {
				t.Errorf("%s: %v, want it refused", tc.status, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.status, err)
			continue
		}
		if s := judgedSite(t, b.Completeness(), "https://a.example/"); s.Responses != tc.want {
			t.Errorf("%s: responses %+v, want %+v", tc.status, s.Responses, tc.want)
		}
	}
}

// A site that loaded no page is judged by its base URL's status, else by
// the first status on its other pages that cost it pages (no answer, 401,
// 403, 429, 5xx); other statuses are broken links, which say nothing.
func TestCompletenessFirstStatus(t *testing.T) {
	for _, tc := range []struct {
		statuses []string // of https://a.example/x, in order
		base     string   // of the base URL itself, "" for none
		want     int
		verdict  Verdict
		resp     Responses
	}{
		{statuses: []string{"-1"}, want: -1, verdict: VerdictUnreachable, resp: Responses{NoAnswer: 1}},
		{statuses: []string{"400"}, verdict: VerdictUnreachable},
		{statuses: []string{"401"}, want: 401, verdict: VerdictBlocked, resp: Responses{Refused: 1}},
		{statuses: []string{"402"}, verdict: VerdictUnreachable},
		{statuses: []string{"403"}, want: 403, verdict: VerdictBlocked, resp: Responses{Refused: 1}},
		{statuses: []string{"404"}, verdict: VerdictUnreachable},
		{statuses: []string{"428"}, verdict: VerdictUnreachable},
		{statuses: []string{"429"}, want: 429, verdict: VerdictBlocked, resp: Responses{RateLimited: 1}},
		{statuses: []string{"430"}, verdict: VerdictUnreachable},
		{statuses: []string{"499"}, verdict: VerdictUnreachable},
		{statuses: []string{"500"}, want: 500, verdict: VerdictUnreachable, resp: Responses{ServerErrors: 1}},
		{statuses: []string{"501"}, want: 501, verdict: VerdictUnreachable, resp: Responses{ServerErrors: 1}},
		{statuses: []string{"0"}, verdict: VerdictUnreachable},
		{statuses: []string{"1"}, verdict: VerdictUnreachable},
		{statuses: []string{"404", "403"}, want: 403, verdict: VerdictBlocked, resp: Responses{Refused: 1}},
		{statuses: []string{"503", "403"}, want: 503, verdict: VerdictUnreachable, resp: Responses{Refused: 1, ServerErrors: 1}},
		{statuses: []string{"403", "503"}, want: 403, verdict: VerdictBlocked, resp: Responses{Refused: 1, ServerErrors: 1}},
		{statuses: []string{"403"}, base: "404", want: 404, verdict: VerdictUnreachable, resp: Responses{Refused: 1}},
		{statuses: []string{"404"}, base: "429", want: 429, verdict: VerdictBlocked, resp: Responses{RateLimited: 1}},
	} {
		rows := unexpectedHeader
		if tc.base != "" {
			// The base URL as CWAC may write it, without its trailing slash.
			rows += "https://a.example/,https://a.example/,https://a.example," + tc.base + "\r\n"
		}
		for _, st := range tc.statuses {
			rows += "https://a.example/,https://a.example/,https://a.example/x," + st + "\r\n"
		}
		c := judged(t, nil, map[string]string{
			PagesScannedFile:   pagesHeader + "O,https://a.example/,0,S\r\n",
			UnexpectedCodeFile: rows,
		}).Completeness()
		s := judgedSite(t, c, "https://a.example/")
		if s.BaseURLStatus != tc.want || s.Verdict != tc.verdict || s.Responses != tc.resp {
			t.Errorf("%v, base %q: status %d, %s, %+v; want %d, %s, %+v", tc.statuses, tc.base,
				s.BaseURLStatus, s.Verdict, s.Responses, tc.want, tc.verdict, tc.resp)
		}
		if tc.want != 0 && (len(s.Reasons) != 1 || !strings.Contains(s.Reasons[0], fmt.Sprintf("base URL %s", statusWords(tc.want)))) {
			t.Errorf("%v: reasons %q", tc.statuses, s.Reasons)
		}
	}
}

// An anti_bot.csv row goes to the site of its organisation whose base URL
// is the longest start of its URL (the first of equal ones), else to the
// first of its organisation's sites on the same host, and only then to
// another organisation's site by the same rules.
func TestCompletenessAntiBotSite(t *testing.T) {
	for _, tc := range []struct {
		name  string
		sites []ExpectedSite
		org   string
		url   string
		want  string // "": no site
	}{
		{
			name:  "longest start",
			sites: []ExpectedSite{{"O", "https://a.example/", ""}, {"O", "https://a.example/sub/", ""}},
			org:   "O", url: "https://a.example/sub/x", want: "https://a.example/sub/",
		},
		{
			name:  "longest start given first",
			sites: []ExpectedSite{{"O", "https://a.example/sub/", ""}, {"O", "https://a.example/", ""}},
			org:   "O", url: "https://a.example/sub/x", want: "https://a.example/sub/",
		},
		{
			name:  "a shorter start",
			sites: []ExpectedSite{{"O", "https://a.example/sub/", ""}, {"O", "https://a.example/", ""}},
			org:   "O", url: "https://a.example/other", want: "https://a.example/",
		},
		{
			name:  "equal starts: the first",
			sites: []ExpectedSite{{"O", "https://a.example/", ""}, {"O", "https://a.example", ""}},
			org:   "O", url: "https://a.example/x", want: "https://a.example/",
		},
		{
			name:  "own organisation before a longer start",
			sites: []ExpectedSite{{"A", "https://a.example/", ""}, {"B", "https://a.example/sub/", ""}},
			org:   "A", url: "https://a.example/sub/x", want: "https://a.example/",
		},
		{
			name:  "own organisation before a longer start, no host to match",
			sites: []ExpectedSite{{"A", "a.example/", ""}, {"B", "a.example/sub/", ""}},
			org:   "A", url: "a.example/sub/x", want: "a.example/",
		},
		{
			name:  "own organisation's host before another's start",
			sites: []ExpectedSite{{"A", "https://a.example/one/", ""}, {"B", "https://a.example/two/", ""}},
			org:   "A", url: "https://a.example/two/x", want: "https://a.example/one/",
		},
		{
			name:  "a start before an earlier site on the host",
			sites: []ExpectedSite{{"O", "https://a.example/one/", ""}, {"O", "https://a.example/two/", ""}},
			org:   "O", url: "https://a.example/two/x", want: "https://a.example/two/",
		},
		{
			name:  "the host: the first site on it",
			sites: []ExpectedSite{{"O", "https://a.example/one/", ""}, {"O", "https://A.example/two/", ""}},
			org:   "O", url: "https://a.EXAMPLE/three/x", want: "https://a.example/one/",
		},
		{
			name:  "another organisation's site",
			sites: []ExpectedSite{{"A", "https://b.example/", ""}, {"B", "https://a.example/", ""}},
			org:   "A", url: "https://a.example/x", want: "https://a.example/",
		},
		{
			name:  "another organisation's host",
			sites: []ExpectedSite{{"A", "https://b.example/", ""}, {"B", "https://a.example/one/", ""}},
			org:   "A", url: "https://a.example/two", want: "https://a.example/one/",
		},
		{
			name:  "a base URL without a scheme",
			sites: []ExpectedSite{{"O", "a.example/", ""}, {"O", "https://b.example/", ""}},
			org:   "O", url: "a.example/x", want: "a.example/",
		},
		{
			name:  "no site",
			sites: []ExpectedSite{{"O", "https://a.example/", ""}, {"P", "https://b.example/", ""}},
			org:   "O", url: "https://c.example/x",
		},
		{
			name:  "no site for a URL that does not parse",
			sites: []ExpectedSite{{"O", "https://a.example/", ""}},
			org:   "O", url: "%zz",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := judged(t, tc.sites, map[string]string{
				AntiBotFile: antiBotHeader + tc.org + ",x," + tc.url + ",Cloudflare,v\r\n",
			}).Completeness()
			for _, given := range tc.sites {
				s := judgedSite(t, c, given.URL)
				if want := given.URL == tc.want; (s.ChallengePages == 1) != want || (s.Verdict == VerdictBlocked) != want {
					t.Errorf("%s: %+v, want the row %v", given.URL, s, want)
				}
			}
			if want := tc.want == ""; (c.PagesNotJudged == 1) != want {
				t.Errorf("%d pages not judged", c.PagesNotJudged)
			}
		})
	}
}

// OrganisationVerdicts names every organisation, past the bound on those
// listed too; none for results that name no site.
func TestOrganisationVerdicts(t *testing.T) {
	if v := NewCompletenessBuilder(nil, 0).OrganisationVerdicts(); v == nil || len(v) != 0 {
		t.Errorf("no sites: %v", v)
	}
	for _, n := range []int{1, 2, MaxCompletenessListed + 1} {
		b := judged(t, nil, map[string]string{PagesScannedFile: pagesCSV(n, 1)})
		v := b.OrganisationVerdicts()
		if len(v) != n {
			t.Errorf("%d organisations: %d verdicts", n, len(v))
		}
		last := fmt.Sprintf("Org %05d", n-1)
		if o := v[last]; o.Organisation != last || o.Verdict != VerdictComplete || o.Sites != 1 || o.Pages != 1 {
			t.Errorf("%d organisations: %s is %+v", n, last, o)
		}
	}
}

// A completeness read back from summary.json is judged by what it holds:
// none complete is not all complete; an organisation without reasons is
// named with its verdict; "and N more" only when some are left out.
func TestCompletenessReadBack(t *testing.T) {
	var empty Completeness
	if err := json.Unmarshal([]byte(`{"organisations_by_verdict":{},"sites_by_verdict":{},"organisations":[],"sites":[]}`), &empty); err != nil {
		t.Fatal(err)
	}
	if empty.AllComplete() || empty.Incomplete() != 0 || empty.Describe(3, 100) != "" {
		t.Errorf("no organisations: all complete %v, %d incomplete", empty.AllComplete(), empty.Incomplete())
	}
	var c Completeness
	if err := json.Unmarshal([]byte(`{"organisations_by_verdict":{"blocked":1,"unreachable":1,"complete":1},
		"organisations":[{"organisation":"A","verdict":"blocked"},{"organisation":"","verdict":"unreachable","reasons":["gone"]},
		{"organisation":"C","verdict":"complete"}]}`), &c); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		n    int
		want string
	}{
		{1, "A (blocked); and 1 more"},
		{2, "A (blocked); (no organisation) (unreachable: gone)"},
		{3, "A (blocked); (no organisation) (unreachable: gone)"},
	} {
		if got := c.Describe(tc.n, 1000); got != tc.want {
			t.Errorf("Describe(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

// A site reached max_links_per_domain when CWAC listed it with at least
// that many pages; never when the limit is not known or CWAC did not list it.
func TestCompletenessLimitReached(t *testing.T) {
	for _, tc := range []struct {
		maxPages int
		rows     string
		want     bool
	}{
		{maxPages: 0, rows: pagesHeader + "O,https://a.example/,5,S\r\n"},
		{maxPages: 3, rows: pagesHeader + "O,https://a.example/,2,S\r\n"},
		{maxPages: 3, rows: pagesHeader + "O,https://a.example/,3,S\r\n", want: true},
		{maxPages: 3, rows: pagesHeader + "O,https://a.example/,4,S\r\n", want: true},
	} {
		fsys := fstest.MapFS{PagesScannedFile: {Data: []byte(tc.rows)}}
		b := NewCompletenessBuilder(nil, tc.maxPages)
		if err := Walk(context.Background(), fsys, b); err != nil {
			t.Fatal(err)
		}
		c := b.Completeness()
		if s := judgedSite(t, c, "https://a.example/"); s.LimitReached != tc.want || s.MaxPages != tc.maxPages || s.Verdict != VerdictComplete {
			t.Errorf("max %d, %q: %+v, want limit reached %v", tc.maxPages, tc.rows, s, tc.want)
		}
	}
	var audit strings.Builder
	audit.WriteString("\ufefforganisation,page_title,base_url,url\r\n")
	for i := range 4 {
		fmt.Fprintf(&audit, "O,Home,https://a.example/,https://a.example/%d\r\n", i)
	}
	b := NewCompletenessBuilder(nil, 3)
	if err := Walk(context.Background(), fstest.MapFS{"title_audit.csv": {Data: []byte(audit.String())}}, b); err != nil {
		t.Fatal(err)
	}
	if s := judgedSite(t, b.Completeness(), "https://a.example/"); s.LimitReached || s.Pages != 4 || s.Verdict != VerdictPartial {
		t.Errorf("not listed: %+v", s)
	}
}

// config.json is read up to maxConfigBytes, a byte more and it is not.
func TestMaxLinksOfSize(t *testing.T) {
	const doc = `{"max_links_per_domain": 50`
	for _, tc := range []struct {
		size int
		want int
	}{
		{maxConfigBytes - 1, 50},
		{maxConfigBytes, 50},
		{maxConfigBytes + 1, 0},
	} {
		data := doc + strings.Repeat(" ", tc.size-len(doc)-1) + "}"
		if got := MaxLinksOf(fstest.MapFS{ConfigFile: {Data: []byte(data)}}); got != tc.want || len(data) != tc.size {
			t.Errorf("%d bytes: %d, want %d", len(data), got, tc.want)
		}
	}
	if got := MaxLinksOf(fstest.MapFS{}); got != 0 {
		t.Errorf("no config.json: %d", got)
	}
}

// The builder remembers the last title's match: a row whose title differs
// from the last one's is matched afresh, whatever came before.
func TestChallengeMatchRemembersOnlyTheSameTitle(t *testing.T) {
	b := &CompletenessBuilder{}
	for _, title := range []string{
		"", "Home", "Just a moment...", "Just a moment...", "Home", "", "Access Denied", "Access Denied page", "ACCESS DENIED", "Home",
	} {
		wantM, wantOK := MatchChallenge(title)
		if m, ok := b.challenge(title); m != wantM || ok != wantOK {
			t.Errorf("challenge(%q) = %+v, %v; want %+v, %v", title, m, ok, wantM, wantOK)
		}
	}
}
