package cli

// The API server is the one judge of a scan: the CRD (api/v1alpha1) states
// what a valid CwacScan is, so the plugin keeps no copy of its URL rules.
// What it adds is the refusal in the plugin's own terms: each field the
// server refused is named by the flag that set it (apirefusal words it, as
// it does the MCP server's refusals with its arguments).

import (
	"errors"

	"github.com/a11y-dev/cwac-operator/internal/apirefusal"
)

// scanFlags are the `kubectl cwac scan` flags that set each field.
var scanFlags = []apirefusal.Name{
	{Field: "metadata.name", As: "--name"},
	{Field: "spec.urls", As: "--url or --urls-file"},
	{Field: "spec.sites", As: "--site or --urls-file"},
	{Field: "spec.auditName", As: "--audit-name"},
	{Field: "spec.timeout", As: "--timeout"},
	{Field: "spec.threadCount", As: "--threads"},
	{Field: "spec.maxLinksPerDomain", As: "--max-links-per-domain"},
	{Field: "spec.baseline", As: "--baseline"},
	{Field: "spec.configOverrides", As: "--allow-http"},
	{Field: "spec.thresholds.maxIssuesByImpact", As: "--max-critical"},
	{Field: "spec.thresholds.maxTotalIssues", As: "--max-total"},
	{Field: "spec.thresholds.maxNewIssues", As: "--max-new"},
	{Field: "spec.thresholds.requireComplete", As: "--require-complete"},
	{Field: "spec.shards", As: "--shards"},
	{Field: "spec.shardFailurePolicy", As: "--shard-failure-policy"},
}

// flagOf names a refused field by its flag, keeping the field, which the
// API server's message and the docs use: --url or --urls-file (spec.urls[0]).
func flagOf(field string) string {
	if flag, _, ok := apirefusal.Lookup(scanFlags, field); ok {
		return flag + " (" + field + ")"
	}
	return field
}

// scanInvalidError turns the API server's Invalid answer to a new scan into
// an error naming each refused flag and field and why, e.g.
//
//	the API server refused the scan: --url or --urls-file (spec.urls[0]): Invalid value: "ftp://x/": should match '^https?://…'
//
// It returns nil for any other error.
func scanInvalidError(err error) error {
	text, ok := apirefusal.Describe(err, flagOf)
	if !ok {
		return nil
	}
	return errors.New("the API server refused the scan: " + text)
}
