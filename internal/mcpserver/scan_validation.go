package mcpserver

// A scan is checked by the API server itself, with a dry-run create, before
// anything else happens to it: the CRD (OpenAPI schema and CEL rules, in
// api/v1alpha1) is the one statement of what a valid scan is, and a copy of
// its limits here would drift from it.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// maxInvalidCauses bounds how many of the API server's reasons an error lists.
const maxInvalidCauses = 8

// dryRunCreate asks the API server whether it would create scan, without
// creating it. scan is not changed (the server's defaults stay out of it).
func (s *Server) dryRunCreate(ctx context.Context, scan *cwacv1alpha1.CwacScan) error {
	err := s.cfg.Client.Create(ctx, scan.DeepCopy(), client.DryRunAll)
	if err == nil {
		return nil
	}
	if invalid := invalidScanError(err); invalid != nil {
		return invalid
	}
	return fmt.Errorf("checking the scan: %w", err)
}

// invalidScanError turns the API server's Invalid answer into a tool error
// naming each refused argument and why, e.g.
//
//	Invalid scan: max_links_per_domain: Invalid value: -1: should be greater than or equal to 1
//
// It returns nil for any other error.
func invalidScanError(err error) error {
	var status apierrors.APIStatus
	if !errors.As(err, &status) || status.Status().Reason != metav1.StatusReasonInvalid {
		return nil
	}
	st := status.Status()
	var parts []string
	if st.Details != nil {
		for _, c := range st.Details.Causes {
			if len(parts) == maxInvalidCauses {
				parts = append(parts, fmt.Sprintf("and %d more", len(st.Details.Causes)-maxInvalidCauses))
				break
			}
			parts = append(parts, causeText(c))
		}
	}
	if len(parts) == 0 {
		parts = append(parts, truncate(st.Message, 1024))
	}
	return errors.New("Invalid scan: " + strings.Join(parts, "; "))
}

// causeText is one cause as "argument: why". The API server repeats the
// field in some messages ("spec.x in body should …"); that is dropped.
// Causes about the scan as a whole (the CEL rule on spec, "some validation
// rules were not checked") have no value worth showing: only their message.
func causeText(c metav1.StatusCause) string {
	msg := strings.ReplaceAll(c.Message, c.Field+" in body ", "")
	switch c.Field {
	case "", "<nil>", "spec":
		msg = strings.TrimPrefix(msg, "Invalid value: ")
		msg = strings.TrimPrefix(msg, "null: ")
		msg = strings.TrimPrefix(msg, `"object": `)
		return truncate(msg, 512)
	}
	return argumentName(c.Field) + ": " + truncate(msg, 512)
}

// specArguments maps spec fields to the cwac_scan arguments they come from.
var specArguments = []struct{ field, argument string }{
	{"spec.urls", "urls"},
	{"spec.sites", "sites"},
	{"spec.timeout", "timeout"},
	{"spec.threadCount", "thread_count"},
	{"spec.baseline", "baseline"},
	{"spec.thresholds.maxNewIssues", "thresholds.max_new_issues"},
	{"spec.auditName", "audit_name"},
	{"spec.plugins", "plugins"},
	{"spec.maxLinksPerDomain", "max_links_per_domain"},
	{"spec.viewportSizes", "viewport_sizes"},
	{"spec.configOverrides.only_allow_https", "only_allow_https"},
	{"spec.thresholds.maxTotalIssues", "thresholds.max_total_issues"},
	{"spec.thresholds.maxIssuesByImpact", "thresholds.max_issues_by_impact"},
	{"spec.thresholds.minPagesScanned", "thresholds.min_pages_scanned"},
}

// argumentName names a refused field as the caller knows it: spec.urls[2]
// is urls[2]. Fields no argument sets keep their API name.
func argumentName(field string) string {
	for _, m := range specArguments {
		if rest, ok := strings.CutPrefix(field, m.field); ok && (rest == "" || rest[0] == '.' || rest[0] == '[') {
			return m.argument + rest
		}
	}
	return field
}
