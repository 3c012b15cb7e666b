package results

import (
	"strings"
	"testing"
	"testing/fstest"
)

// FuzzCompleteness feeds arbitrary unexpected_response_codes.csv,
// anti_bot.csv and audit rows (titles, base URLs) to the completeness
// judge: it never panics; every site and organisation is counted once by
// verdict, listed or counted past the list; every verdict is one of the
// four; reasons stay within their bounds.
func FuzzCompleteness(f *testing.F) {
	f.Add("https://a/,https://a/,https://a/,403", "O,a,https://a/x,Cloudflare,v", "O,Just a moment...,https://a/,https://a/x", "O,https://a/,1,S")
	f.Add("https://a/,https://a/,https://a/b,429.0", "", "O,Attention Required! | Cloudflare,https://a/,https://a/", "O,https://a/,3,S")
	f.Add("https://b/,https://b/,https://b/,-1", "P,b,https://b/,Imperva,v", "", "")
	f.Add("\"https://a/\n\",x,y,500", "O,,,,", "\",\",\",\",", "O,https://a/,0,S")
	f.Fuzz(func(t *testing.T, unexpected, antiBot, titles, pages string) {
		fsys := fstest.MapFS{
			UnexpectedCodeFile: {Data: []byte("\ufeffbase_url,parent_url,url,status_code\r\n" + unexpected + "\r\n")},
			AntiBotFile:        {Data: []byte("\ufefforganisation,domain,url,anti_bot_check,viewport_size\r\n" + antiBot + "\r\n")},
			"title_audit.csv":  {Data: []byte("\ufefforganisation,page_title,base_url,url\r\n" + titles + "\r\n")},
			AuditLogFile:       {Data: []byte("\ufefforganisation,base_url,url,sector\r\n" + titles + "\r\n")},
			PagesScannedFile:   {Data: []byte(pagesHeader + pages + "\r\n")},
		}
		s, err := SummarizeFS(fsys, Options{Sites: []ExpectedSite{{Organisation: "O", URL: "https://a/"}}})
		if err != nil {
			return
		}
		c := s.Completeness
		if c == nil {
			t.Fatal("a scan given a site has no completeness")
		}
		orgs, sites := 0, 0
		for v, n := range c.OrganisationsByVerdict {
			if v.Rank() >= len(Verdicts) || n <= 0 {
				t.Fatalf("organisations by verdict %v", c.OrganisationsByVerdict)
			}
			orgs += n
		}
		for _, n := range c.SitesByVerdict {
			sites += n
		}
		if orgs != len(c.Organisations)+c.OrganisationsNotListed || sites != len(c.Sites)+c.SitesNotListed {
			t.Fatalf("counts %d/%d, listed %d+%d organisations and %d+%d sites", orgs, sites,
				len(c.Organisations), c.OrganisationsNotListed, len(c.Sites), c.SitesNotListed)
		}
		for _, st := range c.Sites {
			if len(st.Reasons) > maxSiteReasons || (st.Verdict == VerdictComplete) != (len(st.Reasons) == 0) {
				t.Fatalf("site %+v", st)
			}
			for _, r := range st.Reasons {
				if len(r) > maxReasonBytes || strings.TrimSpace(r) == "" {
					t.Fatalf("reason %q", r)
				}
			}
			if st.Pages < 0 || st.ChallengePages < 0 || st.FailedPages < 0 {
				t.Fatalf("negative figure in %+v", st)
			}
		}
		for _, o := range c.Organisations {
			if len(o.Reasons) > maxOrgReasons+1 || o.SitesComplete > o.Sites {
				t.Fatalf("organisation %+v", o)
			}
		}
	})
}
