package decide

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/a11y-dev/cwac-operator/internal/decision"
)

// The limits and patterns checked here are the API's: the CRD's markers
// cannot name Go constants, so this test holds them together.
func TestLimitsAreTheCRDs(t *testing.T) {
	data, err := os.ReadFile("../../config/crd/bases/cwac.a11y.dev_cwacissuedecisions.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(data, &crd); err != nil {
		t.Fatal(err)
	}
	spec := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	for field, want := range map[string]int{"reason": MaxReason, "organisation": MaxOrganisation, "rule": MaxRule, "pages": MaxPages} {
		p := spec.Properties[field]
		if p.MaxLength == nil || *p.MaxLength != int64(want) {
			t.Errorf("spec.%s: maxLength %v, decide checks %d", field, p.MaxLength, want)
		}
	}
	if got := spec.Properties["rule"].Pattern; got != ruleRE.String() {
		t.Errorf("spec.rule's pattern %q, decide checks %q", got, ruleRE.String())
	}
	enum := make([]string, 0, len(spec.Properties["kind"].Enum))
	for _, v := range spec.Properties["kind"].Enum {
		enum = append(enum, strings.Trim(string(v.Raw), `"`))
	}
	kinds := make([]string, 0, len(decision.Kinds))
	for _, k := range decision.Kinds {
		kinds = append(kinds, string(k))
	}
	if !slices.Equal(enum, kinds) {
		t.Errorf("spec.kind's enum %v, internal/decision's kinds %v", enum, kinds)
	}
	if got := spec.Properties["pages"].Pattern; got != pagesRE.String() {
		t.Errorf("spec.pages' pattern %q, decide checks %q", got, pagesRE.String())
	}
}

// Each limit one below, at and one above, in characters (as the API server
// counts them), with two-byte characters too.
func TestLimits(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	base := Request{Rule: "image-alt", Organisation: "Ministry of Health", Kind: "WontFix", Reason: "r"}
	with := func(f func(*Request)) Request { r := base; f(&r); return r }
	for _, tc := range []struct {
		name  string
		in    Request
		field string // "" accepted
	}{
		{"reason below", with(func(r *Request) { r.Reason = strings.Repeat("é", MaxReason-1) }), ""},
		{"reason at", with(func(r *Request) { r.Reason = strings.Repeat("é", MaxReason) }), ""},
		{"reason above", with(func(r *Request) { r.Reason = strings.Repeat("é", MaxReason+1) }), FieldReason},
		{"organisation at", with(func(r *Request) { r.Organisation = strings.Repeat("ā", MaxOrganisation) }), ""},
		{"organisation above", with(func(r *Request) { r.Organisation = strings.Repeat("ā", MaxOrganisation+1) }), FieldOrganisation},
		{"rule at", with(func(r *Request) { r.Rule = strings.Repeat("a", MaxRule) }), ""},
		{"rule above", with(func(r *Request) { r.Rule = strings.Repeat("a", MaxRule+1) }), FieldRule},
		{"pages at", with(func(r *Request) {
			r.Pages = "https://a.example/" + strings.Repeat("é", MaxPages-len("https://a.example/"))
		}), ""},
		{"pages above", with(func(r *Request) {
			r.Pages = "https://a.example/" + strings.Repeat("é", MaxPages+1-len("https://a.example/"))
		}), FieldPages},
		{"review a second after now", with(func(r *Request) { r.ReviewBy = now.Add(time.Second).Format(time.RFC3339) }), ""},
		{"review at now", with(func(r *Request) { r.ReviewBy = now.Format(time.RFC3339) }), FieldReviewBy},
		{"review today (its start has passed)", with(func(r *Request) { r.ReviewBy = "2026-12-01" }), FieldReviewBy},
		{"review tomorrow", with(func(r *Request) { r.ReviewBy = "2026-12-02" }), ""},
	} {
		_, err := Check(tc.in, now)
		if got := fieldOf(err); got != tc.field {
			t.Errorf("%s: refused field %q (%v), want %q", tc.name, got, err, tc.field)
		}
	}
}
