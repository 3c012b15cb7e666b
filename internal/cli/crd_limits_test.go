package cli

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/a11y-dev/cwac-operator/internal/cwac"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

// scanSpecSchema is spec's schema in the generated CwacScan CRD, the one
// statement of what the API server accepts.
func scanSpecSchema(t *testing.T) apiextensionsv1.JSONSchemaProps {
	t.Helper()
	const file = "../../config/crd/bases/cwac.a11y.dev_cwacscans.yaml"
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(data, &crd); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if len(crd.Spec.Versions) != 1 || crd.Spec.Versions[0].Schema == nil {
		t.Fatalf("%s: want one version with a schema", file)
	}
	spec, ok := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	if !ok {
		t.Fatalf("%s: no spec in the schema", file)
	}
	return spec
}

// timeoutRuleRE reads the bounds out of the CRD's rule on spec.timeout.
var timeoutRuleRE = regexp.MustCompile(`^duration\(self\) >= duration\('([^']+)'\) && duration\(self\) <= duration\('([^']+)'\)$`)

// afterSemiRuleRE reads the pattern out of the CRD's rule on a site's
// organisation and sector.
var afterSemiRuleRE = regexp.MustCompile(`^!self\.matches\('(.*)'\)$`)

// The plugin refuses bad input before sending it, so that the error names
// the flag; each limit and pattern it checks is a copy of the CRD's (its
// kubebuilder markers cannot name a Go constant). The copies must say what
// the generated CRD says: one that drifted would refuse scans the API server
// accepts, or let through ones it refuses with a less helpful message.
func TestScanChecksAreTheCRDs(t *testing.T) {
	spec := scanSpecSchema(t)
	for _, list := range []string{"urls", "sites"} {
		if got := spec.Properties[list].MaxItems; got == nil || *got != maxURLsPerScan {
			t.Errorf("spec.%s maxItems = %v, want maxURLsPerScan %d", list, show(got), maxURLsPerScan)
		}
	}

	site := spec.Properties["sites"].Items
	if site == nil || site.Schema == nil {
		t.Fatal("spec.sites has no item schema")
	}
	for _, field := range []string{"organisation", "sector"} {
		prop := site.Schema.Properties[field]
		if prop.MaxLength == nil || *prop.MaxLength != maxFieldLength {
			t.Errorf("spec.sites[].%s maxLength = %v, want maxFieldLength %d", field, show(prop.MaxLength), maxFieldLength)
		}
		if prop.Pattern != csvSafeRE.String() {
			t.Errorf("spec.sites[].%s pattern = %q, want csvSafeRE %q", field, prop.Pattern, csvSafeRE)
		}
		var rules []string
		for _, v := range prop.XValidations {
			if m := afterSemiRuleRE.FindStringSubmatch(v.Rule); m != nil {
				rules = append(rules, m[1])
			}
		}
		if !slices.Equal(rules, []string{afterSemiRE.String()}) {
			t.Errorf("spec.sites[].%s rules match %q, want afterSemiRE %q", field, rules, afterSemiRE)
		}
	}

	for _, r := range []struct {
		field    string
		min, max float64
	}{
		{"threadCount", 1, maxThreads},
		{"maxLinksPerDomain", 1, maxLinksPerDomain},
		{"shards", 1, scanpod.MaxShards},
	} {
		prop := spec.Properties[r.field]
		if prop.Minimum == nil || *prop.Minimum != r.min || prop.Maximum == nil || *prop.Maximum != r.max {
			t.Errorf("spec.%s is %v to %v, want %v to %v", r.field, showFloat(prop.Minimum), showFloat(prop.Maximum), r.min, r.max)
		}
	}

	timeout := spec.Properties["timeout"]
	if timeout.Pattern != timeoutRE.String() {
		t.Errorf("spec.timeout pattern = %q, want timeoutRE %q", timeout.Pattern, timeoutRE)
	}
	var bounds []string
	for _, v := range timeout.XValidations {
		if m := timeoutRuleRE.FindStringSubmatch(v.Rule); m != nil {
			bounds = m[1:]
		}
	}
	if bounds == nil {
		t.Fatalf("spec.timeout has no rule on its bounds: %+v", timeout.XValidations)
	}
	lowest, errLow := time.ParseDuration(bounds[0])
	highest, errHigh := time.ParseDuration(bounds[1])
	if errLow != nil || errHigh != nil || lowest != minScanTimeout || highest != maxScanTimeout {
		t.Errorf("spec.timeout is %s to %s, want minScanTimeout %s to maxScanTimeout %s", bounds[0], bounds[1], minScanTimeout, maxScanTimeout)
	}
	// The plugin's refusal words the bounds as the CRD does.
	if err := checkTimeout("0s"); err == nil || !strings.Contains(err.Error(), "between "+bounds[0]+" and "+bounds[1]) {
		t.Errorf("checkTimeout(0s) = %v, want it to say between %s and %s", err, bounds[0], bounds[1])
	}
}

// The plugin checks an audit name with CWAC's rule (cwac.ValidateAuditName),
// which must accept no name the CRD refuses; it refuses more (. and .., a
// directory's own names).
func TestAuditNameRuleWithinTheCRDs(t *testing.T) {
	prop := scanSpecSchema(t).Properties["auditName"]
	if prop.MaxLength == nil || *prop.MaxLength != cwac.MaxAuditNameLength {
		t.Errorf("spec.auditName maxLength = %v, want cwac.MaxAuditNameLength %d", show(prop.MaxLength), cwac.MaxAuditNameLength)
	}
	if prop.MinLength == nil || prop.MaxLength == nil {
		t.Fatalf("spec.auditName has no length bounds: %v to %v", show(prop.MinLength), show(prop.MaxLength))
	}
	crdPattern := regexp.MustCompile(prop.Pattern)
	crdAccepts := func(s string) bool {
		n := int64(utf8.RuneCountInString(s))
		return crdPattern.MatchString(s) && n >= *prop.MinLength && n <= *prop.MaxLength
	}
	for _, name := range []string{"a", "Weekly_2024.06-a", strings.Repeat("a", cwac.MaxAuditNameLength),
		strings.Repeat("a", cwac.MaxAuditNameLength+1), "", "a b", "a/b", "é", "a\n", ".", ".."} {
		if cwac.ValidateAuditName(name) == nil && !crdAccepts(name) {
			t.Errorf("audit name %q: cwac.ValidateAuditName accepts it, the CRD refuses it", name)
		}
		if crdAccepts(name) && name != "." && name != ".." && cwac.ValidateAuditName(name) != nil {
			t.Errorf("audit name %q: the CRD accepts it, cwac.ValidateAuditName refuses it", name)
		}
	}
}

func show(n *int64) any {
	if n == nil {
		return "unset"
	}
	return *n
}

func showFloat(n *float64) any {
	if n == nil {
		return "unset"
	}
	return *n
}
