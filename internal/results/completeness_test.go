package results

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const completenessMixed = "testdata/completeness/mixed"

// mixedSites are the sites the mixed scan gave CWAC, Missing Org's among them.
var mixedSites = []ExpectedSite{
	{Organisation: "CWAC Test Org", URL: "http://127.0.0.1:8765/"},
	{Organisation: "Firewall Org", URL: "https://waf.example.govt.nz/"},
	{Organisation: "Challenge Org", URL: "https://challenge.example.govt.nz/"},
	{Organisation: "Rate Limited Org", URL: "https://busy.example.govt.nz/"},
	{Organisation: "Half Org", URL: "https://half-a.example.govt.nz/"},
	{Organisation: "Half Org", URL: "https://half-b.example.govt.nz/"},
	{Organisation: "Patchy Org", URL: "https://patchy.example.govt.nz/"},
	{Organisation: "Big Org", URL: "https://big.example.govt.nz/"},
	{Organisation: "Bot Org", URL: "https://bot.example.govt.nz/"},
	{Organisation: "Down Org", URL: "http://127.0.0.1:59999/"},
	{Organisation: "Stopped Org", URL: "https://stopped.example.govt.nz/"},
	{Organisation: "Missing Org", URL: "https://missing.example.govt.nz/"},
}

func mixedCompleteness(t *testing.T) *Completeness {
	t.Helper()
	s, err := SummarizeFS(os.DirFS(completenessMixed), Options{Sites: mixedSites})
	if err != nil {
		t.Fatal(err)
	}
	if s.Completeness == nil {
		t.Fatal("no completeness")
	}
	return s.Completeness
}

func siteNamed(c *Completeness, base string) (SiteCompleteness, bool) {
	for _, s := range c.Sites {
		if s.BaseURL == base {
			return s, true
		}
	}
	return SiteCompleteness{}, false
}

func orgNamed(c *Completeness, name string) (OrganisationCompleteness, bool) {
	for _, o := range c.Organisations {
		if o.Organisation == name {
			return o, true
		}
	}
	return OrganisationCompleteness{}, false
}

// Each site of a scan in CWAC's real format gets the verdict, figures and
// first reason CWAC's records support.
func TestCompletenessSites(t *testing.T) {
	c := mixedCompleteness(t)
	if c.MaxPagesPerSite != 50 {
		t.Errorf("max pages %d, want config.json's 50", c.MaxPagesPerSite)
	}
	for _, tc := range []struct {
		base       string
		verdict    Verdict
		pages      int
		challenge  int
		failed     int
		status     int
		limit      bool
		resp       Responses
		reasonHas  string
		reasonsLen int
	}{
		{base: "http://127.0.0.1:8765/", verdict: VerdictComplete, pages: 4},
		{base: "https://waf.example.govt.nz/", verdict: VerdictBlocked, status: 403, resp: Responses{Refused: 1},
			reasonHas: "base URL answered 403 (refused)", reasonsLen: 1},
		{base: "https://busy.example.govt.nz/", verdict: VerdictBlocked, status: 429, resp: Responses{RateLimited: 1},
			reasonHas: "answered 429 (rate-limited)", reasonsLen: 1},
		{base: "https://challenge.example.govt.nz/", verdict: VerdictBlocked, pages: 2, challenge: 2,
			reasonHas: "every page loaded was a challenge page (2, Cloudflare challenge)", reasonsLen: 1},
		{base: "https://half-a.example.govt.nz/", verdict: VerdictComplete, pages: 2},
		{base: "https://half-b.example.govt.nz/", verdict: VerdictUnreachable, status: 503, resp: Responses{ServerErrors: 1},
			reasonHas: "base URL answered 503 (server error)", reasonsLen: 1},
		{base: "https://patchy.example.govt.nz/", verdict: VerdictPartial, pages: 3, challenge: 1, resp: Responses{RateLimited: 2},
			reasonHas: "1 of 3 pages scanned were challenge pages (Cloudflare block)", reasonsLen: 2},
		{base: "https://big.example.govt.nz/", verdict: VerdictComplete, pages: 50, limit: true},
		{base: "https://bot.example.govt.nz/", verdict: VerdictBlocked, challenge: 1,
			reasonHas: "CWAC's anti-bot check: Cloudflare", reasonsLen: 1},
		{base: "http://127.0.0.1:59999/", verdict: VerdictUnreachable, status: -1, resp: Responses{NoAnswer: 1},
			reasonHas: "did not answer", reasonsLen: 1},
		{base: "https://stopped.example.govt.nz/", verdict: VerdictPartial, pages: 2, failed: 1,
			reasonHas: "1 page could not be loaded", reasonsLen: 2},
		{base: "https://missing.example.govt.nz/", verdict: VerdictUnreachable,
			reasonHas: "appears in no CWAC output", reasonsLen: 1},
	} {
		t.Run(tc.base, func(t *testing.T) {
			s, ok := siteNamed(c, tc.base)
			if !ok {
				t.Fatalf("not listed in %+v", c.Sites)
			}
			if s.Verdict != tc.verdict || s.Pages != tc.pages || s.ChallengePages != tc.challenge || s.FailedPages != tc.failed ||
				s.BaseURLStatus != tc.status || s.LimitReached != tc.limit || s.Responses != tc.resp {
				t.Errorf("got %+v", s)
			}
			if len(s.Reasons) != tc.reasonsLen || tc.reasonHas != "" && !strings.Contains(s.Reasons[0], tc.reasonHas) {
				t.Errorf("reasons %q, want %d starting with one holding %q", s.Reasons, tc.reasonsLen, tc.reasonHas)
			}
			if s.MaxPages != 50 {
				t.Errorf("max pages %d", s.MaxPages)
			}
		})
	}
	if c.SitesNotListed != 0 || len(c.Sites) != len(mixedSites) {
		t.Errorf("%d sites listed, %d not", len(c.Sites), c.SitesNotListed)
	}
}

// Organisations take their sites' verdicts; lists put the worst first.
func TestCompletenessOrganisations(t *testing.T) {
	c := mixedCompleteness(t)
	want := map[string]Verdict{
		"CWAC Test Org": VerdictComplete, "Big Org": VerdictComplete,
		"Firewall Org": VerdictBlocked, "Rate Limited Org": VerdictBlocked, "Challenge Org": VerdictBlocked, "Bot Org": VerdictBlocked,
		"Half Org": VerdictPartial, "Patchy Org": VerdictPartial, "Stopped Org": VerdictPartial,
		"Down Org": VerdictUnreachable, "Missing Org": VerdictUnreachable,
	}
	for name, v := range want {
		o, ok := orgNamed(c, name)
		if !ok || o.Verdict != v {
			t.Errorf("%s: %+v, want %s", name, o, v)
		}
		if (v == VerdictComplete) != (o.Reason() == "") {
			t.Errorf("%s: reason %q for %s", name, o.Reason(), v)
		}
	}
	half, _ := orgNamed(c, "Half Org")
	if half.Sites != 2 || half.SitesComplete != 1 || half.Pages != 2 ||
		!slices.Equal(half.Reasons, []string{"https://half-b.example.govt.nz/ unreachable: the base URL answered 503 (server error)"}) {
		t.Errorf("Half Org: %+v", half)
	}
	wantCounts := map[Verdict]int{VerdictComplete: 2, VerdictBlocked: 4, VerdictPartial: 3, VerdictUnreachable: 2}
	if diff := cmp.Diff(wantCounts, c.OrganisationsByVerdict); diff != "" {
		t.Errorf("organisations by verdict (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[Verdict]int{VerdictComplete: 3, VerdictBlocked: 4, VerdictPartial: 2, VerdictUnreachable: 3}, c.SitesByVerdict); diff != "" {
		t.Errorf("sites by verdict (-want +got):\n%s", diff)
	}
	ranks := make([]int, 0, len(c.Organisations))
	for _, o := range c.Organisations {
		ranks = append(ranks, o.Verdict.Rank())
	}
	if !slices.IsSorted(ranks) {
		t.Errorf("organisations not worst first: %v", ranks)
	}
	if c.AllComplete() || c.Incomplete() != 9 {
		t.Errorf("all complete %v, incomplete %d", c.AllComplete(), c.Incomplete())
	}
	d := c.Describe(2, 1024)
	if !strings.HasPrefix(d, "Bot Org (blocked: https://bot.example.govt.nz/ blocked:") || !strings.HasSuffix(d, "; and 7 more") {
		t.Errorf("Describe: %q", d)
	}
}

// CWAC's real output: a scan that exhausted its one site is complete; a
// closed port is unreachable; an http:// URL refused by only_allow_https
// leaves no CSV at all, and the site given is unreachable under its
// organisation.
func TestCompletenessRealOutput(t *testing.T) {
	for _, tc := range []struct {
		dir    string
		sites  []ExpectedSite
		want   Verdict
		reason string
	}{
		{dir: realScan, want: VerdictComplete},
		{dir: "../../testdata/cwac-results/failures/2026-11-21_23-19-36_fail-closed-port", want: VerdictUnreachable, reason: "did not answer"},
		{dir: "../../testdata/cwac-results/failures/2026-11-21_23-19-44_fail-https-only", want: VerdictUnreachable, reason: "appears in no CWAC output",
			sites: []ExpectedSite{{Organisation: "HTTP Org", URL: "http://127.0.0.1:8765/"}}},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			s, err := SummarizeFS(os.DirFS(tc.dir), Options{Sites: tc.sites})
			if err != nil {
				t.Fatal(err)
			}
			c := s.Completeness
			if len(c.Organisations) != 1 || c.Organisations[0].Verdict != tc.want || !strings.Contains(c.Organisations[0].Reason(), tc.reason) {
				t.Fatalf("%+v", c.Organisations)
			}
			if tc.sites != nil && c.Organisations[0].Organisation != tc.sites[0].Organisation {
				t.Errorf("organisation %q", c.Organisations[0].Organisation)
			}
			if c.AllComplete() != (tc.want == VerdictComplete) {
				t.Errorf("AllComplete %v", c.AllComplete())
			}
		})
	}
}

func TestMatchChallenge(t *testing.T) {
	for _, tc := range []struct {
		title string
		want  string
	}{
		{"Just a moment...", "Cloudflare challenge"},
		{"  just a MOMENT...  ", "Cloudflare challenge"},
		{"Attention Required! | Cloudflare", "Cloudflare block"},
		{"Access Denied", "Akamai or firewall refusal"},
		{"Request unsuccessful. Incapsula incident ID: 123", "Imperva refusal"},
		{"Pardon Our Interruption", "Imperva bot protection"},
		{"reCAPTCHA", "reCAPTCHA challenge"},
		{"hCaptcha", "hCaptcha challenge"},
		{"429 Too Many Requests", "rate limit page (429)"},
		{"403 Forbidden", "refusal page (403)"},
		{"Sucuri WebSite Firewall - Access Denied", "Sucuri firewall"},
		// Generic words only as the whole title.
		{"Access Denied: how to appeal a decision", ""},
		{"Forbidden fruit - a history", ""},
		{"Just a moment... of reflection", ""},
		{"", ""},
		{"Home - CWAC test site", ""},
		// A title past the bound is looked at in its start only.
		{"Attention Required! | Cloudflare" + strings.Repeat("x", 1000), "Cloudflare block"},
		{strings.Repeat("x", maxTitleMatchBytes) + "Attention Required! | Cloudflare", ""},
	} {
		m, ok := MatchChallenge(tc.title)
		if ok != (tc.want != "") || m.Name != tc.want {
			t.Errorf("%.60q: %q %v, want %q", tc.title, m.Name, ok, tc.want)
		}
	}
}

func TestMaxLinksIn(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"\ufeff{\"max_links_per_domain\": 50}", 50},
		{`{"max_links_per_domain": 1}`, 1},
		{`{"max_links_per_domain": 0}`, 0},
		{`{"max_links_per_domain": -3}`, 0},
		{`{"max_links_per_domain": 2.5}`, 0},
		{`{"max_links_per_domain": "50"}`, 0},
		{`{"max_links_per_domain": 2147483648}`, 0},
		{`{"max_links_per_domain": 2147483647}`, 1<<31 - 1},
		{`{}`, 0},
		{`not json`, 0},
	} {
		if got := maxLinksIn([]byte(tc.in)); got != tc.want {
			t.Errorf("%q: %d, want %d", tc.in, got, tc.want)
		}
	}
}

// TestCompletenessRowsInTurn: rows in a row that differ only in their page,
// their site or their organisation are each marked: a site's second page,
// the organisation's other site's page of the same URL, and an
// organisation a site's first row left empty; so is a row of the page
// marked last that finds more of it (a challenge page's title).
func TestCompletenessRowsInTurn(t *testing.T) {
	const a, b = "https://a.example.govt.nz/", "https://b.example.govt.nz/"
	dir := t.TempDir()
	files := map[string]string{
		"audit_log.csv": "organisation,base_url,url,sector\n" +
			"A Org," + a + "," + a + "p1,S\nA Org," + a + "," + a + "p2,S\n" +
			"A Org," + b + "," + a + "p2,S\n,https://c.example.govt.nz/,https://c.example.govt.nz/,S\n",
		"title_audit.csv": "organisation,sector,page_title,base_url,url,viewport_size,audit_id,page_id\n" +
			"A Org,S,One," + a + "," + a + "p1,\"{'width': 320, 'height': 450}\",1_small,1\n" +
			"A Org,S,Two," + a + "," + a + "p2,\"{'width': 320, 'height': 450}\",2_small,2\n" +
			"A Org,S,Just a moment...," + a + "," + a + "p2,\"{'width': 1280, 'height': 800}\",2_large,2\n" +
			"A Org,S,Two," + b + "," + a + "p2,\"{'width': 320, 'height': 450}\",3_small,3\n" +
			",S,C,https://c.example.govt.nz/,https://c.example.govt.nz/,\"{'width': 320, 'height': 450}\",4_small,4\n" +
			"C Org,S,C,https://c.example.govt.nz/,https://c.example.govt.nz/,\"{'width': 320, 'height': 450}\",4_small,4\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s, err := SummarizeFS(os.DirFS(dir), Options{})
	if err != nil {
		t.Fatal(err)
	}
	// No pages_scanned.csv: a site's pages are those the audits found.
	for base, want := range map[string]int{a: 2, b: 1, "https://c.example.govt.nz/": 1} {
		site, ok := siteNamed(s.Completeness, base)
		if !ok || site.Pages != want {
			t.Errorf("site %s: %d pages audited (found %v), want %d", base, site.Pages, ok, want)
		}
	}
	if site, _ := siteNamed(s.Completeness, a); site.ChallengePages != 1 {
		t.Errorf("site a: %d challenge pages, want its second page's", site.ChallengePages)
	}
	if c, _ := siteNamed(s.Completeness, "https://c.example.govt.nz/"); c.Organisation != "C Org" {
		t.Errorf("site c's organisation %q, want the one its second row names", c.Organisation)
	}
}
