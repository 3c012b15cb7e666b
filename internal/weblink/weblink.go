// Package weblink is the one rule for making a URL from a scan's data (a
// help link, a page's address) into a link or a URI field that people or
// tools follow: http and https only. CWAC copies such URLs from the sites
// it scans and from axe-core, so a results file can carry javascript:,
// data: or file: addresses; an output leaves those out.
package weblink

import "strings"

// HTTP returns u without surrounding spaces when it is an http or https
// URL (the scheme in any case), else "".
func HTTP(u string) string {
	u = strings.TrimSpace(u)
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok || rest == "" || (!strings.EqualFold(scheme, "https") && !strings.EqualFold(scheme, "http")) {
		return ""
	}
	return u
}
