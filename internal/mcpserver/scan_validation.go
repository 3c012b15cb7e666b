package mcpserver

// A scan is checked by the API server itself, with a dry-run create, before
// anything else happens to it: the CRD (OpenAPI schema and CEL rules, in
// api/v1alpha1) is the one statement of what a valid scan is, and a copy of
// its limits here would drift from it.

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// maxInvalidCauses bounds how many of the API server's reasons an error lists.
const maxInvalidCauses = 8

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
	// Other fields a message names (a CEL rule's message, a type check's
	// "in spec.shards") are named as arguments too.
	msg = specFieldRE.ReplaceAllStringFunc(msg, argumentName)
	switch c.Field {
	case "", "<nil>", "spec":
		msg = strings.TrimPrefix(msg, "Invalid value: ")
		msg = strings.TrimPrefix(msg, "null: ")
		msg = strings.TrimPrefix(msg, `"object": `)
		msg = strings.TrimPrefix(msg, `"": `)
		return truncate(msg, 512)
	}
	return argumentName(c.Field) + ": " + truncate(msg, 512)
}

// specFieldRE matches a spec field's path in a message: spec.urls,
// spec.viewportSizes[phone].width.
var specFieldRE = regexp.MustCompile(`\bspec(\.[A-Za-z_][A-Za-z0-9_]*|\[[^\]\s]*\])+`)

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
	{"spec.shards", "shards"},
	{"spec.shardFailurePolicy", "shard_failure_policy"},
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
