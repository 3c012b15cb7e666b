package mcpserver

import (
	"errors"

	"github.com/a11y-dev/cwac-operator/internal/cwacconfig"
)

// The original CWAC MCP server's error texts. Clients written for it match
// on them, some case-sensitively, so every tool error the original server
// also gave starts with its text word for word, in the same case; what this
// server adds comes after it. These are all of them; the two about a
// scan's URLs are cwacconfig's, whose check of the URLs words them.
// errortexts_test.go holds each to the start of its message.
const (
	// textNoURLs answers cwac_scan given neither urls nor sites.
	textNoURLs = cwacconfig.TextNoURLs
	// textInvalidURL answers cwac_scan given a URL no scan may name; the
	// URL and why follow.
	textInvalidURL = cwacconfig.TextInvalidURL
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

// checkScanURLs refuses, in the original server's words, what it refused
// before anything else: no URL at all, and a URL of a form no scan may name.
// That is the operator's own check of a scan's URLs
// (cwacconfig.NormalizeSites: urlpolicy.CheckForm, which the CRD's pattern
// on spec.urls and spec.sites[].url matches, so a URL it accepts the API
// server's dry run does too). The dry run then judges the rest of the scan.
func checkScanURLs(in ScanInput) error {
	sites := make([]cwacconfig.Site, len(in.Sites))
	for i, s := range in.Sites {
		sites[i] = cwacconfig.Site{Organisation: s.Organisation, URL: s.URL, Sector: s.Sector}
	}
	_, err := cwacconfig.NormalizeSites(in.URLs, sites)
	return err
}
