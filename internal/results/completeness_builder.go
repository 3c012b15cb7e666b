package results

import (
	"cmp"
	"fmt"
	"hash/maphash"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"

	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// AntiBotFile is where CWAC's anti-bot check (src/audit_manager.py) records
// the pages it recognised as a firewall's challenge by their bodies, and
// skipped: organisation, domain, url, anti_bot_check (the vendor),
// viewport_size.
const AntiBotFile = "anti_bot.csv"

// ExpectedSite is a site the scan gave CWAC (the runner knows them), so a
// site that appears in no CWAC file is still judged, under its organisation.
type ExpectedSite struct {
	Organisation string
	URL          string
	Sector       string
}

// CompletenessBuilder judges how completely each site and organisation was
// scanned, from one read of the results (a RowVisitor for Walk; the
// SummaryBuilder feeds one). It reads pages_scanned.csv (pages per site),
// audit_log.csv (pages CWAC started), unexpected_response_codes.csv
// (refusals, rate limits, server errors, no answer), anti_bot.csv (CWAC's
// own challenge detection) and every audit CSV's page_title (challenge
// pages by title). It does not depend on the order of the files.
type CompletenessBuilder struct {
	maxPages int
	sites    []*siteState
	byURL    map[string]int32
	pages    map[uint64]pageMark
	seed     maphash.Seed
	// antiBot are anti_bot.csv's rows, matched to sites at the end (the
	// file names no base URL, and may be read before the sites are known).
	antiBot []antiBotRow
	// Counted past the bounds.
	sitesNotJudged, pagesNotJudged, antiBotNotJudged int

	file string
	kind completenessKind
	col  completenessColumns
	// title is the last page title matched and what it matched: the rows
	// of one page come together and share its title, so most rows cost a
	// comparison, not a match.
	title challengeMatch
}

// challengeMatch is one page title and the marker it matched (ok). Its
// zero value is already right: an empty title matches no marker.
type challengeMatch struct {
	title  string
	marker ChallengeMarker
	ok     bool
}

// challenge is MatchChallenge of title, from the last row's answer when
// its title was the same.
func (b *CompletenessBuilder) challenge(title string) (ChallengeMarker, bool) {
	if title != b.title.title {
		m, ok := MatchChallenge(title)
		b.title = challengeMatch{title: title, marker: m, ok: ok}
	}
	return b.title.marker, b.title.ok
}

type completenessKind int

const (
	ckOther completenessKind = iota
	ckPages
	ckAuditLog
	ckUnexpected
	ckAntiBot
	ckAudit
)

type completenessColumns struct {
	org, baseURL, url, pages, status, title, check int
}

// siteState is what the rows say of one site.
type siteState struct {
	org, baseURL string
	inOutput     bool // named by some CWAC file
	listed       bool // in pages_scanned.csv
	pages        int
	baseStatus   int // status of the base URL's own row (0: none)
	firstStatus  int // status of the site's first counted row, for a site that loaded no page
	resp         Responses
	marker       string // the first challenge marker matched
}

// pageMark is what was seen of one page: the site it belongs to and flags.
type pageMark struct {
	site  int32
	flags uint8
}

const (
	pageStarted   uint8 = 1 << iota // in audit_log.csv
	pageAudited                     // in an audit CSV
	pageChallenge                   // its title is a challenge marker
)

type antiBotRow struct {
	org, url, check string
}

// maxAntiBotRows bounds the anti_bot.csv rows kept for matching; rows past
// it (and rows matching no site) are counted in PagesNotJudged.
const maxAntiBotRows = 10_000

// NewCompletenessBuilder returns a builder for a scan that gave CWAC sites
// (none: judge the sites the files name) with max_links_per_domain maxPages
// (0: not known).
func NewCompletenessBuilder(sites []ExpectedSite, maxPages int) *CompletenessBuilder {
	b := &CompletenessBuilder{
		maxPages: maxPages,
		byURL:    map[string]int32{},
		pages:    map[uint64]pageMark{},
		seed:     maphash.MakeSeed(),
	}
	// The sites given are made first, in the scan's order, so that a
	// stable sort by verdict lists them in that order, before any site
	// only the files name.
	for _, s := range sites {
		b.site(s.URL, s.Organisation)
	}
	return b
}

// site returns the index of baseURL's state, made when new (org fills in an
// unknown organisation), or -1 past MaxCompletenessSites.
func (b *CompletenessBuilder) site(baseURL, org string) int32 {
	baseURL = textcap.Head(baseURL, urlpolicy.MaxURLLength)
	if i, ok := b.byURL[baseURL]; ok {
		if s := b.sites[i]; s.org == "" && org != "" {
			s.org = strings.Clone(textcap.Head(org, maxRuleIDBytes))
		}
		return i
	}
	if len(b.sites) >= MaxCompletenessSites {
		return -1
	}
	s := &siteState{org: strings.Clone(textcap.Head(org, maxRuleIDBytes)), baseURL: strings.Clone(baseURL)}
	b.sites = append(b.sites, s)
	i := int32(len(b.sites) - 1) //nolint:gosec // bounded by MaxCompletenessSites
	b.byURL[s.baseURL] = i
	return i
}

// seen marks a site as named by a CWAC file and returns it with its index;
// nil (and no index) for a row that names no site, or past the bound.
func (b *CompletenessBuilder) seen(baseURL, org string) (*siteState, int32) {
	if strings.TrimSpace(baseURL) == "" {
		return nil, 0 // a row that names no site says nothing of one
	}
	i := b.site(baseURL, org)
	if i < 0 {
		return nil, 0
	}
	s := b.sites[i]
	s.inOutput = true
	return s, i
}

func (b *CompletenessBuilder) begin(file string, r *Reader) {
	b.file = file
	b.col = completenessColumns{
		org: r.Column("organisation"), baseURL: r.Column("base_url"), url: r.Column("url"), pages: r.Column("number_of_pages"),
		status: r.Column("status_code"), title: r.Column("page_title"), check: r.Column("anti_bot_check"),
	}
	switch file {
	case PagesScannedFile:
		b.kind = ckPages
	case AuditLogFile:
		b.kind = ckAuditLog
	case UnexpectedCodeFile:
		b.kind = ckUnexpected
	case AntiBotFile:
		b.kind = ckAntiBot
	default:
		b.kind = ckOther
		if _, ok := AuditName(file); ok && b.col.baseURL >= 0 && b.col.url >= 0 {
			b.kind = ckAudit
		}
	}
}

// VisitRow reads one row of a results CSV.
func (b *CompletenessBuilder) VisitRow(file string, r *Reader, row Row) error {
	if file != b.file {
		b.begin(file, r)
	}
	switch b.kind {
	case ckPages:
		return b.pagesRow(row)
	case ckAuditLog:
		b.mark(row, pageStarted)
	case ckAudit:
		flags := pageAudited
		if m, ok := b.challenge(row.Field(b.col.title)); ok {
			flags |= pageChallenge
			if s, _ := b.seen(row.Field(b.col.baseURL), row.Field(b.col.org)); s != nil && s.marker == "" {
				s.marker = m.Name
			}
		}
		b.mark(row, flags)
	case ckUnexpected:
		return b.unexpectedRow(row)
	case ckAntiBot:
		if len(b.antiBot) >= maxAntiBotRows {
			b.antiBotNotJudged++
			return nil
		}
		b.antiBot = append(b.antiBot, antiBotRow{
			org:   strings.Clone(textcap.Head(row.Field(b.col.org), maxRuleIDBytes)),
			url:   strings.Clone(textcap.Head(row.Field(b.col.url), urlpolicy.MaxURLLength)),
			check: strings.Clone(textcap.Head(row.Field(b.col.check), maxRuleIDBytes)),
		})
	}
	return nil
}

func (b *CompletenessBuilder) pagesRow(row Row) error {
	n, err := ParseCount(row.Field(b.col.pages))
	if err != nil {
		return fmt.Errorf("number_of_pages: %w", err)
	}
	base := row.Field(b.col.baseURL)
	s, _ := b.seen(base, row.Field(b.col.org))
	if s == nil {
		if strings.TrimSpace(base) != "" {
			b.sitesNotJudged++
		}
		return nil
	}
	s.listed = true
	s.pages = int(min(int64(s.pages)+n, 1<<31-1))
	return nil
}

// mark records a page of a site with flags.
func (b *CompletenessBuilder) mark(row Row, flags uint8) {
	base := row.Field(b.col.baseURL)
	s, i := b.seen(base, row.Field(b.col.org))
	if s == nil {
		return
	}
	var h maphash.Hash
	h.SetSeed(b.seed)
	_, _ = h.WriteString(s.baseURL)
	_ = h.WriteByte(0)
	_, _ = h.WriteString(row.Field(b.col.url))
	key := h.Sum64()
	m, ok := b.pages[key]
	if !ok {
		if len(b.pages) >= MaxCompletenessPages {
			b.pagesNotJudged++
			return
		}
		m.site = i
	}
	m.flags |= flags
	b.pages[key] = m
}

func (b *CompletenessBuilder) unexpectedRow(row Row) error {
	raw := strings.TrimSpace(row.Field(b.col.status))
	if raw == "" {
		return nil // no status (or no such column): nothing to judge by
	}
	code, err := strconv.Atoi(raw)
	if err != nil {
		// pandas writes a column with a missing value as floats ("403.0").
		f, ferr := strconv.ParseFloat(raw, 64)
		if ferr != nil || f != float64(int(f)) || f < -1 || f > 999 {
			return fmt.Errorf("status_code: %q is not an HTTP status", textcap.Head(raw, 32))
		}
		code = int(f)
	}
	if code < -1 || code > 999 {
		return fmt.Errorf("status_code: %d is not an HTTP status", code)
	}
	s, _ := b.seen(row.Field(b.col.baseURL), "")
	if s == nil {
		return nil
	}
	if sameURL(row.Field(b.col.url), s.baseURL) {
		s.baseStatus = code
	}
	if costsPages(code) && s.firstStatus == 0 {
		s.firstStatus = code
	}
	switch {
	case code == 401 || code == 403:
		s.resp.Refused++
	case code == 429:
		s.resp.RateLimited++
	case code >= 500:
		s.resp.ServerErrors++
	case code == -1:
		s.resp.NoAnswer++
	}
	return nil
}

// costsPages says whether a status is one that cost a site pages rather
// than a broken link.
func costsPages(code int) bool {
	return code == -1 || code == 401 || code == 403 || code == 429 || code >= 500
}

// refused says whether a status is the site refusing the scanner.
func refused(code int) bool { return code == 401 || code == 403 || code == 429 }

// sameURL compares two URLs as CWAC writes them, ignoring a trailing slash.
func sameURL(a, b string) bool {
	return strings.TrimSuffix(strings.TrimSpace(a), "/") == strings.TrimSuffix(strings.TrimSpace(b), "/")
}

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
