package results

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
)

const pagesHeader = "\ufefforganisation,base_url,number_of_pages,sector\r\n"

func completenessOf(t *testing.T, files map[string]string) *Completeness {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, data := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(data)}
	}
	s, err := SummarizeFS(fsys, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s.Completeness
}

// pagesCSV is a pages_scanned.csv of n sites, one organisation each, with
// pages each.
func pagesCSV(n, pages int) string {
	var b strings.Builder
	b.WriteString(pagesHeader)
	for i := range n {
		fmt.Fprintf(&b, "Org %05d,https://s%05d.example/,%d,S\r\n", i, i, pages)
	}
	return b.String()
}

// At most MaxCompletenessListed organisations and sites are listed; the
// rest are counted, and every one is in the counts by verdict.
func TestCompletenessListBound(t *testing.T) {
	for _, n := range []int{MaxCompletenessListed, MaxCompletenessListed + 1} {
		c := completenessOf(t, map[string]string{PagesScannedFile: pagesCSV(n, 0)})
		wantPast := n - MaxCompletenessListed
		if len(c.Organisations) != MaxCompletenessListed || c.OrganisationsNotListed != wantPast ||
			len(c.Sites) != MaxCompletenessListed || c.SitesNotListed != wantPast {
			t.Errorf("%d: %d+%d organisations, %d+%d sites", n, len(c.Organisations), c.OrganisationsNotListed, len(c.Sites), c.SitesNotListed)
		}
		if c.OrganisationsByVerdict[VerdictUnreachable] != n || c.SitesByVerdict[VerdictUnreachable] != n || c.Incomplete() != n {
			t.Errorf("%d: counts %v %v", n, c.OrganisationsByVerdict, c.SitesByVerdict)
		}
	}
}

// Sites past MaxCompletenessSites are counted, not judged, and then not
// every organisation can be said to be complete.
func TestCompletenessSitesBound(t *testing.T) {
	for _, n := range []int{MaxCompletenessSites, MaxCompletenessSites + 1} {
		c := completenessOf(t, map[string]string{PagesScannedFile: pagesCSV(n, 1)})
		want := n - MaxCompletenessSites
		if c.SitesNotJudged != want || c.SitesByVerdict[VerdictComplete] != MaxCompletenessSites {
			t.Errorf("%d sites: %d not judged, %v", n, c.SitesNotJudged, c.SitesByVerdict)
		}
		if c.AllComplete() != (want == 0) {
			t.Errorf("%d sites: AllComplete %v", n, c.AllComplete())
		}
	}
}

// Pages past MaxCompletenessPages are counted, not told apart.
func TestCompletenessPagesBound(t *testing.T) {
	defer func(old int) { MaxCompletenessPages = old }(MaxCompletenessPages)
	MaxCompletenessPages = 3
	for _, n := range []int{3, 4} {
		var log strings.Builder
		log.WriteString("\ufefforganisation,base_url,url,sector\r\n")
		for i := range n {
			fmt.Fprintf(&log, "O,https://a/,https://a/%d,S\r\n", i)
		}
		c := completenessOf(t, map[string]string{AuditLogFile: log.String(), PagesScannedFile: pagesHeader + "O,https://a/,0,S\r\n"})
		if c.PagesNotJudged != n-3 || c.Sites[0].FailedPages != 3 {
			t.Errorf("%d pages: %d not judged, site %+v", n, c.PagesNotJudged, c.Sites[0])
		}
	}
}

// anti_bot.csv rows past maxAntiBotRows, and rows matching no site, are
// counted, not matched.
func TestCompletenessAntiBotBound(t *testing.T) {
	for _, n := range []int{maxAntiBotRows, maxAntiBotRows + 1} {
		var b strings.Builder
		b.WriteString("\ufefforganisation,domain,url,anti_bot_check,viewport_size\r\n")
		for i := range n {
			fmt.Fprintf(&b, "O,a.example,https://a.example/%d,Cloudflare,x\r\n", i)
		}
		b.WriteString("P,elsewhere.example,https://elsewhere.example/,Imperva,x\r\n")
		c := completenessOf(t, map[string]string{AntiBotFile: b.String(), PagesScannedFile: pagesHeader + "O,https://a.example/,0,S\r\n"})
		s := c.Sites[0]
		if s.ChallengePages != maxAntiBotRows || c.PagesNotJudged != n-maxAntiBotRows+1 || s.Verdict != VerdictBlocked {
			t.Errorf("%d rows: %+v, %d not judged", n, s, c.PagesNotJudged)
		}
	}
}

// An organisation names at most maxOrgReasons incomplete sites, then how
// many more; each reason is cut to maxReasonBytes.
func TestCompletenessReasonBounds(t *testing.T) {
	for _, n := range []int{maxOrgReasons, maxOrgReasons + 1} {
		var b strings.Builder
		b.WriteString(pagesHeader)
		for i := range n {
			fmt.Fprintf(&b, "O,https://s%d.example/%s,0,S\r\n", i, strings.Repeat("p", 1000))
		}
		c := completenessOf(t, map[string]string{PagesScannedFile: b.String()})
		o := c.Organisations[0]
		wantLen := min(n, maxOrgReasons+1)
		if len(o.Reasons) != wantLen {
			t.Fatalf("%d sites: %d reasons", n, len(o.Reasons))
		}
		for _, r := range o.Reasons {
			if len(r) > maxReasonBytes {
				t.Errorf("%d sites: a reason of %d bytes", n, len(r))
			}
		}
		if last := o.Reasons[len(o.Reasons)-1]; (n > maxOrgReasons) != (last == "and 1 more site not complete") {
			t.Errorf("%d sites: last reason %q", n, last)
		}
		if d := c.Describe(1, 100); len(d) > 100 {
			t.Errorf("Describe past its bound: %d bytes", len(d))
		}
	}
}

// A status that is no HTTP status fails the summary naming the file; an
// empty one is no evidence.
func TestCompletenessStatusCodes(t *testing.T) {
	for _, tc := range []struct {
		status, wantErr string
	}{
		{"403.0", ""}, {"", ""}, {"-1", ""}, {"999", ""},
		{"1000", "not an HTTP status"}, {"-2", "not an HTTP status"}, {"abc", "not an HTTP status"}, {"4.5", "not an HTTP status"},
	} {
		data := "\ufeffbase_url,parent_url,url,status_code\r\nhttps://a/,https://a/,https://a/," + tc.status + "\r\n"
		_, err := SummarizeFS(fstest.MapFS{UnexpectedCodeFile: {Data: []byte(data)}}, Options{})
		if (err == nil) != (tc.wantErr == "") || err != nil && (!strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), UnexpectedCodeFile)) {
			t.Errorf("%q: %v, want %q", tc.status, err, tc.wantErr)
		}
	}
}
