package results

import (
	"cmp"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// siteCounts are a site's pages as the page marks count them.
type siteCounts struct {
	started, audited, challenge, antiBot int
}

// Completeness judges every site and organisation (nil when the results
// name no site and the scan gave none). It may be called more than once;
// the builder is not changed.
func (b *CompletenessBuilder) Completeness() *Completeness {
	return b.completeness(MaxCompletenessListed)
}

// OrganisationVerdicts are every organisation's completeness, by name,
// however many there are (for the issue history, which records each
// organisation's verdict with its figures).
func (b *CompletenessBuilder) OrganisationVerdicts() map[string]OrganisationCompleteness {
	c := b.completeness(len(b.sites) + 1)
	out := map[string]OrganisationCompleteness{}
	if c == nil {
		return out
	}
	for _, o := range c.Organisations {
		out[o.Organisation] = o
	}
	return out
}

// completeness judges every site and organisation, listing at most limit
// of each.
func (b *CompletenessBuilder) completeness(limit int) *Completeness {
	if len(b.sites) == 0 {
		return nil
	}
	counts := make([]siteCounts, len(b.sites))
	for _, m := range b.pages {
		c := &counts[m.site]
		if m.flags&pageStarted != 0 {
			c.started++
		}
		if m.flags&pageAudited != 0 {
			c.audited++
			if m.flags&pageChallenge != 0 {
				c.challenge++
			}
		}
	}
	checks := make([]string, len(b.sites))
	antiBotNotJudged := b.antiBotNotJudged
	for _, r := range b.antiBot {
		i := b.siteOf(r.url, r.org)
		if i < 0 {
			antiBotNotJudged++
			continue
		}
		counts[i].antiBot++
		if checks[i] == "" {
			checks[i] = r.check
		}
	}
	c := &Completeness{
		MaxPagesPerSite:        b.maxPages,
		OrganisationsByVerdict: map[Verdict]int{},
		SitesByVerdict:         map[Verdict]int{},
		Organisations:          []OrganisationCompleteness{},
		Sites:                  []SiteCompleteness{},
		SitesNotJudged:         b.sitesNotJudged,
		PagesNotJudged:         b.pagesNotJudged + antiBotNotJudged,
	}
	sites := make([]SiteCompleteness, len(b.sites))
	for i, s := range b.sites {
		sites[i] = b.judge(s, counts[i], checks[i])
	}
	order := make([]int, len(sites))
	for i := range order {
		order[i] = i
	}
	// Worst first; within a verdict, stable keeps the sites given in the
	// scan's order, then the others as the files named them.
	slices.SortStableFunc(order, func(x, y int) int {
		return cmp.Compare(sites[x].Verdict.Rank(), sites[y].Verdict.Rank())
	})
	orgs := map[string]*orgTally{}
	var orgOrder []string
	for _, i := range order {
		s := sites[i]
		c.SitesByVerdict[s.Verdict]++
		if len(c.Sites) < limit {
			c.Sites = append(c.Sites, s)
		} else {
			c.SitesNotListed++
		}
		t := orgs[s.Organisation]
		if t == nil {
			t = &orgTally{o: OrganisationCompleteness{Organisation: s.Organisation}}
			orgs[s.Organisation] = t
			orgOrder = append(orgOrder, s.Organisation)
		}
		t.add(s)
	}
	list := make([]OrganisationCompleteness, 0, len(orgs))
	for _, name := range orgOrder {
		o := orgs[name].finish()
		c.OrganisationsByVerdict[o.Verdict]++
		list = append(list, o)
	}
	slices.SortStableFunc(list, func(x, y OrganisationCompleteness) int {
		if d := cmp.Compare(x.Verdict.Rank(), y.Verdict.Rank()); d != 0 {
			return d
		}
		return cmp.Compare(x.Organisation, y.Organisation)
	})
	c.OrganisationsNotListed = max(0, len(list)-limit)
	c.Organisations = list[:min(len(list), limit)]
	return c
}

// siteOf is the site an anti-bot row's page belongs to: among the sites of
// its organisation (any, when none is), the one whose base URL is the
// longest start of the URL (the first of equal ones), else the first on the
// same host; -1 when none.
func (b *CompletenessBuilder) siteOf(pageURL, org string) int {
	best, bestLen, sameHost := -1, 0, -1
	host := completenessHost(pageURL)
	for pass := range 2 { // its organisation's sites, then any
		for i, s := range b.sites {
			if pass == 0 && s.org != org {
				continue
			}
			prefix := strings.TrimSuffix(s.baseURL, "/")
			if strings.HasPrefix(pageURL, prefix) && (best < 0 || len(prefix) > bestLen) {
				best, bestLen = i, len(prefix)
			}
			if sameHost < 0 && host != "" && completenessHost(s.baseURL) == host {
				sameHost = i
			}
		}
		if best >= 0 || sameHost >= 0 {
			break
		}
	}
	if best >= 0 {
		return best
	}
	return sameHost
}

func completenessHost(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	return strings.ToLower(p.Hostname())
}

// judge decides one site's verdict from what its rows said.
func (b *CompletenessBuilder) judge(s *siteState, n siteCounts, check string) SiteCompleteness {
	out := SiteCompleteness{
		Organisation: s.org, BaseURL: s.baseURL, Pages: s.pages, MaxPages: b.maxPages,
		Responses: s.resp, ChallengePages: n.challenge + n.antiBot,
	}
	if !s.listed {
		out.Pages = n.audited
	}
	out.FailedPages = max(0, n.started-n.audited-n.antiBot)
	out.LimitReached = b.maxPages > 0 && s.listed && s.pages >= b.maxPages
	usable := max(0, out.Pages-n.challenge)
	marker := s.marker
	if marker == "" && check != "" {
		marker = "CWAC's anti-bot check: " + check
	}
	var reasons []string
	if usable == 0 {
		status := s.baseStatus
		if status == 0 {
			status = s.firstStatus
		}
		out.BaseURLStatus = status
		switch {
		case refused(status):
			out.Verdict = VerdictBlocked
			reasons = append(reasons, "the base URL "+statusWords(status))
		case out.ChallengePages > 0:
			out.Verdict = VerdictBlocked
			reasons = append(reasons, fmt.Sprintf("every page loaded was a challenge page (%d, %s)", out.ChallengePages, marker))
		default:
			out.Verdict = VerdictUnreachable
			reasons = append(reasons, unreachableReason(s, n, status))
		}
	} else {
		reasons = partialReasons(s, out, n, marker)
		out.Verdict = VerdictComplete
		if len(reasons) > 0 {
			out.Verdict = VerdictPartial
		}
	}
	if len(reasons) > maxSiteReasons {
		reasons = reasons[:maxSiteReasons]
	}
	for i := range reasons {
		reasons[i] = textcap.Head(reasons[i], maxReasonBytes)
	}
	out.Reasons = reasons
	return out
}

func unreachableReason(s *siteState, n siteCounts, status int) string {
	switch {
	case status != 0:
		return "the base URL " + statusWords(status)
	case !s.inOutput:
		return "the site appears in no CWAC output: CWAC skipped it (an http:// URL with only_allow_https, a filtered URL) or stopped before reaching it"
	case n.started > 0:
		return "no page could be loaded in the browser"
	default:
		return "no page was scanned: the base URL was filtered out (only_allow_https, a file type CWAC skips) or disallowed by robots.txt"
	}
}

func partialReasons(s *siteState, out SiteCompleteness, n siteCounts, marker string) []string {
	var reasons []string
	if n.challenge > 0 {
		reasons = append(reasons, fmt.Sprintf("%d of %d pages scanned were challenge pages (%s)", n.challenge, out.Pages, s.marker))
	}
	if n.antiBot > 0 {
		reasons = append(reasons, fmt.Sprintf("%d pages were stopped by a firewall (%s)", n.antiBot, marker))
	}
	r := s.resp
	for _, c := range []struct {
		n    int
		what string
	}{
		{r.Refused, "answered 401 or 403 (refused)"},
		{r.RateLimited, "answered 429 (rate-limited)"},
		{r.ServerErrors, "answered 5xx (server error)"},
		{r.NoAnswer, "did not answer"},
		{out.FailedPages, "could not be loaded in the browser"},
	} {
		if c.n > 0 {
			reasons = append(reasons, fmt.Sprintf("%d %s %s", c.n, plural(c.n, "page", "pages"), c.what))
		}
	}
	if !s.listed {
		reasons = append(reasons, "CWAC did not finish the site (it is not in pages_scanned.csv): the scan stopped early")
	}
	return reasons
}

// statusWords says what a recorded status means.
func statusWords(code int) string {
	switch {
	case code == -1:
		return "did not answer (no connection, or it timed out)"
	case code == 401 || code == 403:
		return fmt.Sprintf("answered %d (refused)", code)
	case code == 429:
		return "answered 429 (rate-limited)"
	case code >= 500:
		return fmt.Sprintf("answered %d (server error)", code)
	default:
		return fmt.Sprintf("answered %d", code)
	}
}

// orgTally gathers an organisation's sites as they are judged.
type orgTally struct {
	o                OrganisationCompleteness
	partial, blocked int
	reasonsPast      int
}

// add counts a judged site into its organisation.
func (t *orgTally) add(s SiteCompleteness) {
	o := &t.o
	o.Sites++
	o.Pages += s.Pages
	o.ChallengePages += s.ChallengePages
	switch s.Verdict {
	case VerdictComplete:
		o.SitesComplete++
		return
	case VerdictPartial:
		t.partial++
	case VerdictBlocked:
		t.blocked++
	}
	if len(o.Reasons) >= maxOrgReasons {
		t.reasonsPast++
		return
	}
	first := ""
	if len(s.Reasons) > 0 {
		first = ": " + s.Reasons[0]
	}
	o.Reasons = append(o.Reasons, textcap.Head(fmt.Sprintf("%s %s%s", s.BaseURL, s.Verdict, first), maxReasonBytes))
}

// finish gives the organisation its verdict: complete when every site is;
// blocked or unreachable when no site gave a usable page (blocked when any
// was blocked); partial otherwise.
func (t *orgTally) finish() OrganisationCompleteness {
	o := t.o
	switch {
	case o.SitesComplete == o.Sites:
		o.Verdict = VerdictComplete
	case o.SitesComplete+t.partial > 0:
		o.Verdict = VerdictPartial
	case t.blocked > 0:
		o.Verdict = VerdictBlocked
	default:
		o.Verdict = VerdictUnreachable
	}
	if t.reasonsPast > 0 {
		o.Reasons = append(slices.Clone(o.Reasons), fmt.Sprintf("and %d more %s not complete", t.reasonsPast, plural(t.reasonsPast, "site", "sites")))
	}
	return o
}
