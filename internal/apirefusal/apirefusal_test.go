package apirefusal

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var names = []Name{{Field: "spec.urls", As: "urls"}, {Field: "spec.thresholds.maxNewIssues", As: "max_new"}, {Field: "spec.thresholds", As: "thresholds"}}

// upper names a field the way a caller would: its argument in capitals, or the field.
func upper(path string) string {
	if as, rest, ok := Lookup(names, path); ok {
		return strings.ToUpper(as) + rest
	}
	return path
}

func invalid(message string, causes ...metav1.StatusCause) error {
	st := metav1.Status{Status: metav1.StatusFailure, Reason: metav1.StatusReasonInvalid, Message: message}
	if causes != nil {
		st.Details = &metav1.StatusDetails{Causes: causes}
	}
	return &apierrors.StatusError{ErrStatus: st}
}

func causes(n int) []metav1.StatusCause {
	out := make([]metav1.StatusCause, n)
	for i := range out {
		out[i] = metav1.StatusCause{Field: fmt.Sprintf("spec.urls[%d]", i), Message: "bad"}
	}
	return out
}

func listed(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf("URLS[%d]: bad", i)
	}
	return strings.Join(parts, "; ")
}

func TestDescribe(t *testing.T) {
	long := strings.Repeat("x", maxCauseBytes+1)
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"a field's value, the field's repetition dropped",
			invalid("m", metav1.StatusCause{Field: "spec.urls[2]", Message: `Invalid value: "ftp://x/": spec.urls[2] in body should match '^https?://'`}),
			`URLS[2]: Invalid value: "ftp://x/": should match '^https?://'`},
		{"fields named inside a message are named too",
			invalid("m", metav1.StatusCause{Field: "spec.thresholds.maxNewIssues", Message: "needs spec.baseline (see spec.thresholds.maxNewIssues, spec.urls[0])"}),
			"MAX_NEW: needs spec.baseline (see MAX_NEW, URLS[0])"},
		{"a field the caller has no name for", invalid("m", metav1.StatusCause{Field: "metadata.name", Message: "too long"}),
			"metadata.name: too long"},
		{"the whole spec: its value is dropped", invalid("m", metav1.StatusCause{Field: "spec", Message: `Invalid value: "object": give spec.urls`}),
			"give URLS"},
		{"no field", invalid("m", metav1.StatusCause{Message: `"": Checked value must be of type integer in spec.urls`}),
			"Checked value must be of type integer in URLS"},
		{"a nil field", invalid("m", metav1.StatusCause{Field: "<nil>", Message: "null: some validation rules were not checked"}),
			"some validation rules were not checked"},
		{"a cause is cut to its bound", invalid("m", metav1.StatusCause{Field: "spec.urls", Message: long}),
			"URLS: " + long[:maxCauseBytes-len("…")] + "…"},
		{"a cause about the whole spec too", invalid("m", metav1.StatusCause{Field: "spec", Message: long}),
			long[:maxCauseBytes-len("…")] + "…"},
		{"no causes: the message, cut", invalid(strings.Repeat("y", maxMessageBytes+1)), strings.Repeat("y", maxMessageBytes-len("…")) + "…"},
		{"no causes, message at its bound", invalid(strings.Repeat("y", maxMessageBytes)), strings.Repeat("y", maxMessageBytes)},
		{"one below the cap", invalid("m", causes(MaxCauses-1)...), listed(MaxCauses - 1)},
		{"at the cap", invalid("m", causes(MaxCauses)...), listed(MaxCauses)},
		{"one above the cap", invalid("m", causes(MaxCauses+1)...), listed(MaxCauses) + "; and 1 more"},
		{"from NewInvalid", apierrors.NewInvalid(schema.GroupKind{Group: "cwac.a11y.dev", Kind: "CwacScan"}, "x",
			field.ErrorList{field.Invalid(field.NewPath("spec", "urls").Index(0), "ftp://x/", "must be http")}),
			`URLS[0]: Invalid value: "ftp://x/": must be http`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Describe(tt.err, upper)
			if !ok || got != tt.want {
				t.Errorf("Describe = %q, %v\nwant %q", got, ok, tt.want)
			}
		})
	}
	for _, err := range []error{
		errors.New("connection refused"),
		apierrors.NewForbidden(schema.GroupResource{Resource: "cwacscans"}, "x", errors.New("no")),
		apierrors.NewAlreadyExists(schema.GroupResource{Resource: "cwacscans"}, "x"),
	} {
		if got, ok := Describe(err, upper); ok || got != "" {
			t.Errorf("Describe(%v) = %q, %v; want nothing: not a refusal of the object", err, got, ok)
		}
	}
}

func TestLookup(t *testing.T) {
	tests := []struct {
		field, as, rest string
		ok              bool
	}{
		{"spec.urls", "urls", "", true},
		{"spec.urls[3]", "urls", "[3]", true},
		{"spec.urls.x", "urls", ".x", true},
		{"spec.urlsExtra", "", "", false},
		{"spec.thresholds.maxNewIssues", "max_new", "", true},
		{"spec.thresholds.maxTotalIssues", "thresholds", ".maxTotalIssues", true},
		{"spec", "", "", false},
		{"", "", "", false},
	}
	for _, tt := range tests {
		as, rest, ok := Lookup(names, tt.field)
		if as != tt.as || rest != tt.rest || ok != tt.ok {
			t.Errorf("Lookup(%q) = %q, %q, %v; want %q, %q, %v", tt.field, as, rest, ok, tt.as, tt.rest, tt.ok)
		}
	}
}
