package mcpserver

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

// The original CWAC MCP server's error texts. Clients written for it match
// on them, some case-sensitively, so every tool error the original server
// also gave starts with its text word for word, in the same case; what this
// server adds comes after it. These constants are the texts' only spelling
// here, and errortexts_test.go holds each one to the start of its message.
const (
	// textNoURLs answers cwac_scan given neither urls nor sites.
	textNoURLs = "At least one URL is required"
	// textInvalidURL answers cwac_scan given a URL no scan may name; the
	// URL and why follow.
	textInvalidURL = "Invalid URL: "
	// textNoScan answers an ID that names no scan; the ID follows.
	textNoScan = "No scan found with ID: "
	// textStillRunning answers a request for the results of a scan that
	// has not finished.
	textStillRunning = "Scan is still running. Check status first."
	// textNoAuditFile answers an audit_type whose CSV the scan does not
	// have; the audit type follows.
	textNoAuditFile = "No results file for audit type: "
)

// errStillRunning: the scan has not finished, so it has no results yet.
var errStillRunning = errors.New(textStillRunning)

// noScanError: no scan has the ID.
type noScanError struct{ id string }

func (e noScanError) Error() string { return textNoScan + e.id }

// noAuditFileError: the scan has no CSV of the audit type.
func noAuditFileError(auditType string) error {
	return errors.New(textNoAuditFile + auditType)
}

// maxURLShownBytes bounds the URL an Invalid URL error repeats.
const maxURLShownBytes = 200

// checkScanURLs refuses, in the original server's words, what it refused
// before anything else: no URL at all, and a URL of a form no scan may name
// (urlpolicy.CheckForm, which the CRD's pattern on spec.urls and
// spec.sites[].url matches, so a URL it accepts the API server's dry run
// does too). The dry run then judges the rest of the scan.
func checkScanURLs(urls []string) error {
	if len(urls) == 0 {
		return errors.New(textNoURLs + ": set urls or sites")
	}
	for _, u := range urls {
		if _, d := urlpolicy.CheckForm(u); d != nil {
			return fmt.Errorf("%s%s: %s", textInvalidURL, shownURL(u), d.Detail)
		}
	}
	return nil
}

// shownURL is a refused URL as its error shows it: cut to
// maxURLShownBytes, and quoted when it is empty or holds white space or
// other characters that would hide where it ends.
func shownURL(u string) string {
	shown := truncate(u, maxURLShownBytes)
	if shown == "" || strings.IndexFunc(shown, func(r rune) bool { return r <= ' ' || r == 0x7f || r == '\uFFFD' }) >= 0 {
		return strconv.Quote(shown)
	}
	return shown
}
