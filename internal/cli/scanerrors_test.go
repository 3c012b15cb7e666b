package cli

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/a11y-dev/cwac-operator/internal/apirefusal"
)

// invalid is the API server's Invalid answer with these causes.
func invalid(message string, causes ...metav1.StatusCause) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Reason: metav1.StatusReasonInvalid, Message: message,
		Details: &metav1.StatusDetails{Causes: causes},
	}}
}

func TestScanInvalidError(t *testing.T) {
	pattern := "Invalid value: \"ftp://x/\": spec.urls[0] in body should match '^https?://[^\\s/?#@]+(/[^\\s]*)?$'"
	many := make([]metav1.StatusCause, apirefusal.MaxCauses+2)
	for i := range many {
		many[i] = metav1.StatusCause{Field: fmt.Sprintf("spec.urls[%d]", i), Message: "bad"}
	}
	tests := []struct {
		name string
		err  error
		want string // "" when the error is not the scan's refusal
	}{
		{"a URL's form", invalid("x", metav1.StatusCause{Field: "spec.urls[0]", Message: pattern}),
			"the API server refused the scan: --url or --urls-file (spec.urls[0]): Invalid value: \"ftp://x/\": should match '^https?://[^\\s/?#@]+(/[^\\s]*)?$'"},
		{"a site's URL and the threads", invalid("x",
			metav1.StatusCause{Field: "spec.sites[2].url", Message: "Too long: may not be more than 2048 bytes"},
			metav1.StatusCause{Field: "spec.threadCount", Message: "Invalid value: 17: should be less than or equal to 16"}),
			"the API server refused the scan: --site or --urls-file (spec.sites[2].url): Too long: may not be more than 2048 bytes; " +
				"--threads (spec.threadCount): Invalid value: 17: should be less than or equal to 16"},
		{"a field no flag sets", invalid("x", metav1.StatusCause{Field: "spec.urlsExtra", Message: "m"}),
			"the API server refused the scan: spec.urlsExtra: m"},
		{"a rule on the whole spec", invalid("x", metav1.StatusCause{Field: "spec",
			Message: "Invalid value: \"object\": at least one URL is required: set spec.urls or spec.sites"}),
			"the API server refused the scan: at least one URL is required: set --url or --urls-file (spec.urls) or --site or --urls-file (spec.sites)"},
		{"no causes", invalid("CwacScan \"a\" is invalid"), "the API server refused the scan: CwacScan \"a\" is invalid"},
		{"at most eight causes", invalid("x", many...), "spec.urls[7]): bad; and 2 more"},
		{"forbidden", apierrors.NewForbidden(schema.GroupResource{Group: "cwac.a11y.dev", Resource: "cwacscans"}, "a", errors.New("no")), ""},
		{"not an API error", errors.New("connection refused"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := scanInvalidError(tt.err)
			switch {
			case tt.want == "" && got != nil:
				t.Errorf("got %v, want nil", got)
			case tt.want != "" && (got == nil || !strings.HasSuffix(got.Error(), tt.want)):
				t.Errorf("got %v, want one ending %q", got, tt.want)
			}
		})
	}
	if got := scanInvalidError(invalid("x", many...)); strings.Contains(got.Error(), fmt.Sprintf("spec.urls[%d]", apirefusal.MaxCauses)) {
		t.Errorf("the ninth cause is listed: %v", got)
	}
}
