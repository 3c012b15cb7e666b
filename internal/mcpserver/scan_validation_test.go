package mcpserver

import (
	"errors"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestInvalidScanErrorNamesArguments: fields named inside a message (a CEL rule's
// own message, a type check) are named as the caller's arguments too.
func TestInvalidScanErrorNamesArguments(t *testing.T) {
	tests := []struct {
		cause metav1.StatusCause
		want  string
	}{
		{metav1.StatusCause{Field: "spec.shards", Message: "Invalid value: 5: may not exceed the number of sites (spec.urls plus spec.sites)"},
			"shards: Invalid value: 5: may not exceed the number of sites (urls plus sites)"},
		{metav1.StatusCause{Field: "", Message: `"": Checked value must be of type integer with format int32 in spec.shards`},
			"Checked value must be of type integer with format int32 in shards"},
		{metav1.StatusCause{Field: "spec", Message: "Invalid value: \"object\": at least one URL is required: set spec.urls or spec.sites"},
			"at least one URL is required: set urls or sites"},
		{metav1.StatusCause{Field: "spec.timeout", Message: "see spec.viewportSizes[phone].width and spec.notAnArgument"},
			"timeout: see viewport_sizes[phone].width and spec.notAnArgument"},
	}
	for _, tt := range tests {
		err := &apierrors.StatusError{ErrStatus: metav1.Status{Reason: metav1.StatusReasonInvalid,
			Details: &metav1.StatusDetails{Causes: []metav1.StatusCause{tt.cause}}}}
		if got := invalidScanError(err).Error(); got != "Invalid scan: "+tt.want {
			t.Errorf("invalidScanError(%q)\n got %q\nwant %q", tt.cause.Message, got, "Invalid scan: "+tt.want)
		}
	}
}

func TestInvalidScanError(t *testing.T) {
	gk := schema.GroupKind{Group: "cwac.a11y.dev", Kind: "CwacScan"}
	err := apierrors.NewInvalid(gk, "x", field.ErrorList{
		field.Invalid(field.NewPath("spec", "maxLinksPerDomain"), 0, "should be greater than or equal to 1"),
		field.Invalid(field.NewPath("spec", "urls").Index(2), "ftp://x/", "spec.urls[2] in body should match '^https?://'"),
		field.Invalid(field.NewPath("spec", "viewportSizes").Key("phone").Child("width"), 1, "should be greater than or equal to 100"),
		field.Invalid(field.NewPath("spec", "timeout"), "1s", "must be a duration between 1m and 24h"),
		field.Invalid(field.NewPath("spec", "urlsExtra"), "", "not an argument"),
	})
	got := invalidScanError(err).Error()
	want := `Invalid scan: max_links_per_domain: Invalid value: 0: should be greater than or equal to 1; ` +
		`urls[2]: Invalid value: "ftp://x/": should match '^https?://'; ` +
		`viewport_sizes[phone].width: Invalid value: 1: should be greater than or equal to 100; ` +
		`timeout: Invalid value: "1s": must be a duration between 1m and 24h; ` +
		`spec.urlsExtra: Invalid value: "": not an argument`
	if got != want {
		t.Errorf("invalidScanError:\n got %s\nwant %s", got, want)
	}
	forbidden := apierrors.NewForbidden(schema.GroupResource{}, "x", errors.New("no"))
	if invalidScanError(errors.New("connection refused")) != nil || invalidScanError(forbidden) != nil {
		t.Error("errors other than Invalid were taken for a refused scan")
	}
}
