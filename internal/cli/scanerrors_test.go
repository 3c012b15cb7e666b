package cli

import (
	"errors"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// refused is the API server's Invalid answer to a scan with these causes.
func refused(causes ...metav1.StatusCause) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{Reason: metav1.StatusReasonInvalid,
		Details: &metav1.StatusDetails{Causes: causes}}}
}

// The refusal names each field by the flag that set it, and keeps the field
// (apirefusal's own tests cover the wording: caps, cuts, whole-spec causes).
func TestScanInvalidError(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string // "" when the error is not the scan's refusal
	}{
		{"a URL's form", refused(metav1.StatusCause{Field: "spec.urls[0]",
			Message: "Invalid value: \"ftp://x/\": spec.urls[0] in body should match '^https?://[^\\s/?#@]+(/[^\\s]*)?$'"}),
			"the API server refused the scan: --url or --urls-file (spec.urls[0]): Invalid value: \"ftp://x/\": should match '^https?://[^\\s/?#@]+(/[^\\s]*)?$'"},
		{"a site's URL and the threads", refused(
			metav1.StatusCause{Field: "spec.sites[2].url", Message: "Too long: may not be more than 2048 bytes"},
			metav1.StatusCause{Field: "spec.threadCount", Message: "Invalid value: 17: should be less than or equal to 16"}),
			"the API server refused the scan: --site or --urls-file (spec.sites[2].url): Too long: may not be more than 2048 bytes; " +
				"--threads (spec.threadCount): Invalid value: 17: should be less than or equal to 16"},
		{"the name", refused(metav1.StatusCause{Field: "metadata.name", Message: "Invalid value: \"A\": a lowercase RFC 1123 subdomain"}),
			"the API server refused the scan: --name (metadata.name): Invalid value: \"A\": a lowercase RFC 1123 subdomain"},
		{"a field no flag sets", refused(metav1.StatusCause{Field: "spec.urlsExtra", Message: "m"}),
			"the API server refused the scan: spec.urlsExtra: m"},
		{"fields named inside a rule's message", refused(metav1.StatusCause{Field: "spec",
			Message: "Invalid value: \"object\": at least one URL is required: set spec.urls or spec.sites"}),
			"the API server refused the scan: at least one URL is required: set --url or --urls-file (spec.urls) or --site or --urls-file (spec.sites)"},
		{"forbidden", apierrors.NewForbidden(schema.GroupResource{Group: "cwac.a11y.dev", Resource: "cwacscans"}, "a", errors.New("no")), ""},
		{"not an API error", errors.New("connection refused"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := scanInvalidError(tt.err)
			switch {
			case tt.want == "" && got != nil:
				t.Errorf("got %v, want nil", got)
			case tt.want != "" && (got == nil || got.Error() != tt.want):
				t.Errorf("got %v\nwant %s", got, tt.want)
			}
		})
	}
	for _, m := range scanFlags {
		if !strings.HasPrefix(m.As, "--") || flagOf(m.Field+"[0]") != m.As+" ("+m.Field+"[0])" {
			t.Errorf("%s names no flag: %q", m.Field, flagOf(m.Field+"[0]"))
		}
	}
}
