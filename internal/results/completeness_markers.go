package results

import (
	"strings"

	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// ChallengeMarker is a page title that tells a challenge or refusal page
// (a web firewall's "are you a robot" page, a bot manager's block page, an
// error page served with 200) from the site's own content. CWAC audits such
// a page like any other when it loads in the browser, and records its title
// in every audit CSV's page_title column: its figures are the firewall's,
// not the site's.
type ChallengeMarker struct {
	// Name says who serves the page, for people ("Cloudflare challenge").
	Name string
	// Title is matched against the page title, case-insensitively, after
	// trimming spaces: whole when Exact, else anywhere in it.
	Title string
	Exact bool
}

// ChallengeMarkers are the page titles recognised as challenge or refusal
// pages (docs/completeness.md lists them). Generic words ("Forbidden",
// "Access Denied") are matched only as the whole title, so a page about
// access is not taken for a refusal; vendor phrases anywhere in it.
//
// Challenge pages are also recognised by their bodies, by CWAC itself: its
// anti-bot check (src/audit_manager.py: Incapsula, Red Shield, Cloudflare's
// "Verifying you are human" with a Ray ID, CloudFront, Azure Front Door)
// writes anti_bot.csv and skips the page; that file is read too.
var ChallengeMarkers = []ChallengeMarker{
	{Name: nameCloudflareChallenge, Title: "Just a moment...", Exact: true},
	{Name: nameCloudflareChallenge, Title: "Just a moment…", Exact: true},
	{Name: "Cloudflare block", Title: "Attention Required! | Cloudflare"},
	{Name: nameCloudflareChallenge, Title: "Please Wait... | Cloudflare"},
	{Name: "browser check", Title: "Checking your browser"},
	{Name: "human verification", Title: "Verifying you are human"},
	{Name: "DDoS-Guard", Title: "DDoS-Guard"},
	{Name: "Akamai or firewall refusal", Title: "Access Denied", Exact: true},
	{Name: "Sucuri firewall", Title: "Sucuri WebSite Firewall"},
	{Name: "Imperva refusal", Title: "Request unsuccessful"},
	{Name: "Imperva bot protection", Title: "Pardon Our Interruption"},
	{Name: "CloudFront refusal", Title: "ERROR: The request could not be satisfied"},
	{Name: "reCAPTCHA challenge", Title: "reCAPTCHA", Exact: true},
	{Name: "hCaptcha challenge", Title: "hCaptcha", Exact: true},
	{Name: "CAPTCHA challenge", Title: "Captcha", Exact: true},
	{Name: "human verification", Title: "Human Verification", Exact: true},
	{Name: "bot verification", Title: "Bot Verification", Exact: true},
	{Name: nameRefusal403, Title: "403 Forbidden", Exact: true},
	{Name: nameRefusal403, Title: "Forbidden", Exact: true},
	{Name: nameRefusal403, Title: "403 - Forbidden", Exact: true},
	{Name: "refusal page (401)", Title: "401 Unauthorized", Exact: true},
	{Name: "rate limit page (429)", Title: "429 Too Many Requests", Exact: true},
	{Name: "rate limit page (429)", Title: "Too Many Requests", Exact: true},
}

// Marker names several titles share.
const (
	nameCloudflareChallenge = "Cloudflare challenge"
	nameRefusal403          = "refusal page (403)"
)

// maxTitleMatchBytes bounds the title a marker is looked for in: every
// marker is shorter, and a title of megabytes costs no more than this.
const maxTitleMatchBytes = 256

// MatchChallenge returns the marker a page title matches, and whether one did.
func MatchChallenge(title string) (ChallengeMarker, bool) {
	// An empty title is title_audit's finding, not a refusal. A title past
	// the bound is cut to it: every marker is far shorter, so an exact one
	// cannot match what was cut and a phrase is looked for in its start.
	title = strings.TrimSpace(textcap.HeadMarked(title, maxTitleMatchBytes, ""))
	if title == "" {
		return ChallengeMarker{}, false
	}
	lower := strings.ToLower(title)
	for i, m := range ChallengeMarkers {
		t := lowerMarkerTitles[i]
		if m.Exact && lower == t || !m.Exact && strings.Contains(lower, t) {
			return m, true
		}
	}
	return ChallengeMarker{}, false
}

// lowerMarkerTitles are ChallengeMarkers' titles in lower case, in order,
// made once rather than for every title matched.
var lowerMarkerTitles = func() []string {
	out := make([]string, len(ChallengeMarkers))
	for i, m := range ChallengeMarkers {
		out[i] = strings.ToLower(m.Title)
	}
	return out
}()
