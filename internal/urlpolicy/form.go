package urlpolicy

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"
)

// MaxURLLength bounds a URL, in characters, as the CRD's maxLength counts
// them: a URL the API server accepted is never refused for its length here.
// The CRD's maxLength on spec.urls and spec.sites[].url (api/v1alpha1) is the
// same number; a test there holds the generated CRD to it. It is also the
// product's one cap, in bytes, on a URL read from CWAC's output or a
// receiver's setting (results, the diff and the issue identity, CI reports,
// notifications, MCP answers): CWAC writes URLs percent-encoded, so a URL it
// crawled from an accepted base fits unless a page linked a longer one.
const MaxURLLength = 2048

// URLPattern is the form of a URL a scan may name: http or https in lower
// case, a host with no user-info, then nothing or a path, and no white space.
// The CRD's pattern on spec.urls and spec.sites[].url is the same; a test in
// api/v1alpha1 holds the generated CRD to it.
const URLPattern = `^https?://[^\s/?#@]+(/[^\s]*)?$`

var urlPatternRE = regexp.MustCompile(URLPattern)

// CheckForm checks the form of a URL a scan names, from its text alone:
// every check a redirect's target gets too (length, scheme, user-info, host,
// port), then what URLPattern adds, so that a URL it accepts the API server
// accepts too. It returns the parsed URL, or why the URL was refused.
func CheckForm(raw string) (*url.URL, *Denial) {
	u, _, d := parseURL(raw)
	if d != nil {
		return nil, d
	}
	if strings.ContainsAny(raw, " \t\r\n") {
		return nil, &Denial{URL: raw, Rule: RuleForm, Detail: "contains white space"}
	}
	if !urlPatternRE.MatchString(raw) {
		return nil, &Denial{URL: raw, Rule: RuleForm,
			Detail: "must be http:// or https:// in lower case and a host, then nothing or a path starting with /"}
	}
	return u, nil
}

// parseURL parses a URL and checks what every URL must be, a scan's own and
// each redirect's target: at most MaxURLLength characters, http or https, no
// user-info, a well-formed host and port. host is the host in lower case, an
// IPv6 literal in its brackets.
func parseURL(raw string) (u *url.URL, host string, d *Denial) {
	deny := func(rule, detail string) (*url.URL, string, *Denial) {
		return nil, "", &Denial{URL: raw, Rule: rule, Detail: detail}
	}
	if utf8.RuneCountInString(raw) > MaxURLLength {
		return deny(RuleLength, fmt.Sprintf("longer than %d characters", MaxURLLength))
	}
	u, err := url.Parse(raw)
	if err != nil {
		return deny(RuleHost, "not a valid URL")
	}
	if s := strings.ToLower(u.Scheme); s != "http" && s != "https" {
		return deny(RuleScheme, "only http and https URLs can be scanned")
	}
	if u.User != nil || strings.Contains(u.Host, "@") {
		return deny(RuleUserInfo, "user-info (user@host) is not allowed")
	}
	host = strings.ToLower(u.Hostname())
	if strings.HasPrefix(u.Host, "[") {
		host = "[" + host + "]"
	}
	if host == "" || strings.ContainsAny(host, " %\\") {
		return deny(RuleHost, "missing or malformed host")
	}
	if port := u.Port(); port != "" {
		if n, err := parsePort(port); err != nil || n == 0 {
			return deny(RuleHost, "invalid port")
		}
	}
	return u, host, nil
}
