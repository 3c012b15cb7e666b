package results

import (
	"fmt"
	"strings"

	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// Verdict says how completely an organisation's or a site's pages were
// scanned (docs/completeness.md says how each is decided).
type Verdict string

const (
	// VerdictComplete: every page the crawl reached was scanned, up to
	// max_links_per_domain, with no refusal, challenge or error on the way.
	VerdictComplete Verdict = "complete"
	// VerdictPartial: some pages were scanned, but others were refused
	// (403, 429), were challenge pages, answered 5xx, did not answer, could
	// not be loaded, or CWAC stopped before finishing the site.
	VerdictPartial Verdict = "partial"
	// VerdictBlocked: no usable page: the base URL was refused (401, 403,
	// 429) or every page was a challenge page.
	VerdictBlocked Verdict = "blocked"
	// VerdictUnreachable: no usable page, and nothing refused it: the base
	// URL did not answer, answered 5xx or another error, could not be
	// loaded, or the site appears in no CWAC output at all.
	VerdictUnreachable Verdict = "unreachable"
)

// ScoreShown reports whether an organisation's score may be shown and
// compared: not when it was blocked or unreachable, since its score would
// describe only the pages a firewall let through, or none.
func (v Verdict) ScoreShown() bool { return v != VerdictBlocked && v != VerdictUnreachable }

// Verdicts are every verdict, worst first: lists of organisations and sites
// put the incomplete first in this order.
var Verdicts = []Verdict{VerdictBlocked, VerdictUnreachable, VerdictPartial, VerdictComplete}

// Rank orders verdicts worst first (an unknown one after them all).
func (v Verdict) Rank() int {
	for i, w := range Verdicts {
		if v == w {
			return i
		}
	}
	return len(Verdicts)
}

// Responses counts the unexpected responses CWAC recorded for a site
// (unexpected_response_codes.csv) that cost it pages. 404s and other
// client errors are broken links, not incompleteness, and are not counted.
type Responses struct {
	// Refused counts 401 and 403 answers.
	Refused int `json:"refused,omitempty"`
	// RateLimited counts 429 answers.
	RateLimited int `json:"rate_limited,omitempty"`
	// ServerErrors counts 5xx answers.
	ServerErrors int `json:"server_errors,omitempty"`
	// NoAnswer counts requests that got no answer at all (CWAC writes
	// status -1 after three failed attempts: refused connection, timeout,
	// a name that does not resolve).
	NoAnswer int `json:"no_answer,omitempty"`
}

// SiteCompleteness is one site's (base URL's) completeness.
type SiteCompleteness struct {
	Organisation string  `json:"organisation"`
	BaseURL      string  `json:"base_url"`
	Verdict      Verdict `json:"verdict"`
	// Reasons say why the site is not complete (none when it is).
	Reasons []string `json:"reasons,omitempty"`
	// Pages is the site's page count as CWAC reports it
	// (pages_scanned.csv), or the pages found in the audit CSVs when CWAC
	// stopped before writing it.
	Pages int `json:"pages"`
	// MaxPages is max_links_per_domain, what was asked (0: not known).
	MaxPages int `json:"max_pages,omitempty"`
	// LimitReached: the crawl stopped at MaxPages, not because the site
	// had no more pages. The scan got what it asked for.
	LimitReached bool `json:"limit_reached,omitempty"`
	// ChallengePages counts pages that were challenge or refusal pages
	// (by title, or CWAC's anti-bot check).
	ChallengePages int `json:"challenge_pages,omitempty"`
	// FailedPages counts pages CWAC started (audit_log.csv) but could not
	// audit, challenge pages apart.
	FailedPages int `json:"failed_pages,omitempty"`
	// BaseURLStatus is the status CWAC recorded for the base URL itself,
	// when it answered one it does not scan (-1: no answer).
	BaseURLStatus int       `json:"base_url_status,omitempty"`
	Responses     Responses `json:"responses"`
}

// OrganisationCompleteness is one organisation's completeness, from its sites'.
type OrganisationCompleteness struct {
	Organisation string  `json:"organisation"`
	Verdict      Verdict `json:"verdict"`
	// Reasons name each incomplete site with its verdict and first reason.
	Reasons []string `json:"reasons,omitempty"`
	Sites   int      `json:"sites"`
	// SitesComplete counts the organisation's complete sites.
	SitesComplete  int `json:"sites_complete"`
	Pages          int `json:"pages"`
	ChallengePages int `json:"challenge_pages,omitempty"`
}

// Reason is the organisation's reasons in one line ("" when complete).
func (o OrganisationCompleteness) Reason() string { return strings.Join(o.Reasons, "; ") }

// Completeness is how completely each organisation and site of a scan was
// scanned: the summary's answer to "can these figures be trusted?".
type Completeness struct {
	// MaxPagesPerSite is max_links_per_domain from the scan's config.json
	// (0: not known).
	MaxPagesPerSite int `json:"max_pages_per_site,omitempty"`
	// OrganisationsByVerdict and SitesByVerdict count every organisation
	// and site, listed or not.
	OrganisationsByVerdict map[Verdict]int `json:"organisations_by_verdict"`
	SitesByVerdict         map[Verdict]int `json:"sites_by_verdict"`
	// Organisations lists at most MaxCompletenessListed organisations,
	// incomplete first (worst verdict first, then by name); the rest are
	// counted in OrganisationsNotListed.
	Organisations          []OrganisationCompleteness `json:"organisations"`
	OrganisationsNotListed int                        `json:"organisations_not_listed,omitempty"`
	// Sites lists at most MaxCompletenessListed sites, incomplete first.
	Sites          []SiteCompleteness `json:"sites"`
	SitesNotListed int                `json:"sites_not_listed,omitempty"`
	// SitesNotJudged counts sites past MaxCompletenessSites, whose rows
	// were not told apart; PagesNotJudged pages past MaxCompletenessPages,
	// which count as ordinary pages of their sites.
	SitesNotJudged int `json:"sites_not_judged,omitempty"`
	PagesNotJudged int `json:"pages_not_judged,omitempty"`
}

// Incomplete counts the organisations that are not complete.
func (c *Completeness) Incomplete() int {
	if c == nil {
		return 0
	}
	n := 0
	for v, k := range c.OrganisationsByVerdict {
		if v != VerdictComplete {
			n += k
		}
	}
	return n
}

// AllComplete says whether every organisation is complete (and there is at
// least one, and no site went unjudged).
func (c *Completeness) AllComplete() bool {
	return c != nil && c.Incomplete() == 0 && c.OrganisationsByVerdict[VerdictComplete] > 0 && c.SitesNotJudged == 0
}

// IncompleteOrganisations lists at most n of the listed organisations that
// are not complete, worst first.
func (c *Completeness) IncompleteOrganisations(n int) []OrganisationCompleteness {
	if c == nil {
		return nil
	}
	var out []OrganisationCompleteness
	for _, o := range c.Organisations {
		if len(out) >= n {
			break
		}
		if o.Verdict != VerdictComplete {
			out = append(out, o)
		}
	}
	return out
}

// Describe names up to n incomplete organisations with their verdicts and
// reasons, for a status message or a gate ("" when all are complete),
// within maxBytes.
func (c *Completeness) Describe(n, maxBytes int) string {
	total := c.Incomplete()
	if total == 0 {
		return ""
	}
	var parts []string
	for _, o := range c.IncompleteOrganisations(n) {
		part := fmt.Sprintf("%s (%s", orgName(o.Organisation), o.Verdict)
		if len(o.Reasons) > 0 {
			part += ": " + textcap.Head(o.Reasons[0], maxReasonBytes)
		}
		parts = append(parts, part+")")
	}
	s := strings.Join(parts, "; ")
	if more := total - len(parts); more > 0 {
		s += fmt.Sprintf("; and %d more", more)
	}
	return textcap.Head(s, maxBytes)
}

// orgName shows an organisation CWAC's files left unnamed.
func orgName(o string) string {
	if o == "" {
		return "(no organisation)"
	}
	return o
}

// Bounds on completeness, whatever the CSVs hold.
const (
	// MaxCompletenessListed is how many organisations and how many sites
	// summary.json lists by name.
	MaxCompletenessListed = 200
	// MaxCompletenessSites is how many sites are told apart; rows of sites
	// past it are counted in SitesNotJudged.
	MaxCompletenessSites = MaxSummaryBaseURLs
	// maxSiteReasons and maxOrgReasons bound the reasons listed.
	maxSiteReasons = 8
	maxOrgReasons  = 5
	// maxReasonBytes bounds one reason.
	maxReasonBytes = 512
)

// MaxCompletenessPages is how many distinct pages are told apart (a
// 64-bit hash and a site, about 30 bytes each); pages past it are counted
// in PagesNotJudged. A variable only so that tests can reach it.
var MaxCompletenessPages = 500_000
