package mcpserver

// A scan is checked by the API server itself, with a dry-run create, before
// anything else happens to it: the CRD (OpenAPI schema and CEL rules, in
// api/v1alpha1) is the one statement of what a valid scan is, and a copy of
// its limits here would drift from it. Only what the original CWAC MCP
// server refused in words its clients match on comes first
// (checkScanURLs, errortexts.go): no URL, and a URL of a form urlpolicy,
// which the CRD's pattern matches, refuses.

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/apirefusal"
)

// dryRunCreate asks the API server whether it would create scan, without
// creating it. scan is not changed (the server's defaults stay out of it).
// rawSpec, when set, replaces spec fields with values as the caller gave
// them, which the typed spec cannot hold (a zero its omitempty drops).
func (s *Server) dryRunCreate(ctx context.Context, scan *cwacv1alpha1.CwacScan, rawSpec map[string]any) error {
	obj, err := dryRunObject(scan, rawSpec)
	if err != nil {
		return fmt.Errorf("checking the scan: %w", err)
	}
	err = s.cfg.Client.Create(ctx, obj, client.DryRunAll)
	if err == nil {
		return nil
	}
	if invalid := invalidScanError(err); invalid != nil {
		return invalid
	}
	return fmt.Errorf("checking the scan: %w", err)
}

// dryRunObject is a copy of scan to dry-run create: the typed object, or,
// with rawSpec, the same object as unstructured with those fields replaced.
func dryRunObject(scan *cwacv1alpha1.CwacScan, rawSpec map[string]any) (client.Object, error) {
	if len(rawSpec) == 0 {
		return scan.DeepCopy(), nil
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(scan)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: content}
	u.SetGroupVersionKind(cwacv1alpha1.GroupVersion.WithKind("CwacScan"))
	for field, v := range rawSpec {
		if err := unstructured.SetNestedField(u.Object, v, "spec", field); err != nil {
			return nil, err
		}
	}
	return u, nil
}

// invalidScanError turns the API server's Invalid answer into a tool error
// naming each refused argument and why, e.g.
//
//	Invalid scan: max_links_per_domain: Invalid value: -1: should be greater than or equal to 1
//
// It returns nil for any other error.
func invalidScanError(err error) error {
	text, ok := apirefusal.Describe(err, argumentName)
	if !ok {
		return nil
	}
	return errors.New("Invalid scan: " + text)
}

// specArguments maps spec fields to the cwac_scan arguments they come from.
var specArguments = []apirefusal.Name{
	{Field: "spec.urls", As: "urls"},
	{Field: "spec.sites", As: "sites"},
	{Field: "spec.timeout", As: "timeout"},
	{Field: "spec.threadCount", As: "thread_count"},
	{Field: "spec.baseline", As: "baseline"},
	{Field: "spec.thresholds.maxNewIssues", As: "thresholds.max_new_issues"},
	{Field: "spec.auditName", As: "audit_name"},
	{Field: "spec.plugins", As: "plugins"},
	{Field: "spec.maxLinksPerDomain", As: "max_links_per_domain"},
	{Field: "spec.viewportSizes", As: "viewport_sizes"},
	{Field: "spec.configOverrides.only_allow_https", As: "only_allow_https"},
	{Field: "spec.thresholds.maxTotalIssues", As: "thresholds.max_total_issues"},
	{Field: "spec.thresholds.maxIssuesByImpact", As: "thresholds.max_issues_by_impact"},
	{Field: "spec.thresholds.minPagesScanned", As: "thresholds.min_pages_scanned"},
	{Field: "spec.shards", As: "shards"},
	{Field: "spec.shardFailurePolicy", As: "shard_failure_policy"},
}

// argumentName names a refused field as the caller knows it: spec.urls[2]
// is urls[2]. Fields no argument sets keep their API name.
func argumentName(field string) string {
	if argument, rest, ok := apirefusal.Lookup(specArguments, field); ok {
		return argument + rest
	}
	return field
}
