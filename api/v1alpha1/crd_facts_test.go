package v1alpha1_test

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/a11y-dev/cwac-operator/internal/cwac"
	"github.com/a11y-dev/cwac-operator/internal/cwacconfig"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

// Facts the CRD states through kubebuilder markers, which cannot name a Go
// constant, are held here to the one Go definition each: the generated CRDs
// in config/crd/bases must say what the code says.

// scanSpecs are the CwacScan spec schemas of both generated CRDs: the scan's
// own, and the one a schedule's scanTemplate holds.
func scanSpecs(t *testing.T) map[string]apiextensionsv1.JSONSchemaProps {
	t.Helper()
	specs := map[string]apiextensionsv1.JSONSchemaProps{}
	for file, path := range map[string][]string{
		scansCRD:     {"spec"},
		schedulesCRD: {"spec", "scanTemplate", "spec"},
	} {
		schema := crdSchema(t, file)
		for _, field := range path {
			next, ok := schema.Properties[field]
			if !ok {
				t.Fatalf("%s: no %s in the schema", file, strings.Join(path, "."))
			}
			schema = next
		}
		specs[file] = schema
	}
	return specs
}

const (
	scansCRD     = "cwac.a11y.dev_cwacscans.yaml"
	schedulesCRD = "cwac.a11y.dev_cwacscanschedules.yaml"
)

// crdSchema is the schema of the one version of a generated CRD in
// config/crd/bases.
func crdSchema(t *testing.T, file string) apiextensionsv1.JSONSchemaProps {
	t.Helper()
	data, err := os.ReadFile("../../config/crd/bases/" + file)
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
	return *crd.Spec.Versions[0].Schema.OpenAPIV3Schema
}

func TestCRDURLsMatchTheGoForm(t *testing.T) {
	for file, spec := range scanSpecs(t) {
		urls := spec.Properties["urls"].Items
		sites := spec.Properties["sites"].Items
		if urls == nil || urls.Schema == nil || sites == nil || sites.Schema == nil {
			t.Fatalf("%s: spec.urls or spec.sites has no item schema", file)
		}
		for name, s := range map[string]apiextensionsv1.JSONSchemaProps{
			"spec.urls[]":      *urls.Schema,
			"spec.sites[].url": sites.Schema.Properties["url"],
		} {
			if s.MaxLength == nil || *s.MaxLength != urlpolicy.MaxURLLength {
				t.Errorf("%s: %s maxLength = %s, want urlpolicy.MaxURLLength (%d)", file, name, show(s.MaxLength), urlpolicy.MaxURLLength)
			}
			if s.Pattern != urlpolicy.URLPattern {
				t.Errorf("%s: %s pattern = %q, want urlpolicy.URLPattern %q", file, name, s.Pattern, urlpolicy.URLPattern)
			}
		}
	}
}

// celListRE finds the quoted list in a CEL rule: k in ['a', 'b'].
var celListRE = regexp.MustCompile(`\bin \[([^\]]*)\]`)

func TestCRDThresholdImpactsAreAxesImpacts(t *testing.T) {
	for file, spec := range scanSpecs(t) {
		byImpact := spec.Properties["thresholds"].Properties["maxIssuesByImpact"]
		if byImpact.MaxProperties == nil || *byImpact.MaxProperties != int64(len(results.Impacts())) {
			t.Errorf("%s: maxIssuesByImpact maxProperties = %s, want %d impacts", file, show(byImpact.MaxProperties), len(results.Impacts()))
		}
		var m []string
		for _, v := range byImpact.XValidations {
			if found := celListRE.FindStringSubmatch(v.Rule); found != nil {
				m = found
			}
		}
		if m == nil {
			t.Fatalf("%s: no rule of maxIssuesByImpact lists the impacts: %+v", file, byImpact.XValidations)
		}
		items := strings.Split(m[1], ",")
		listed := make([]string, 0, len(items))
		for _, item := range items {
			listed = append(listed, strings.Trim(strings.TrimSpace(item), "'"))
		}
		if !slices.Equal(listed, results.Impacts()) {
			t.Errorf("%s: maxIssuesByImpact's rule allows %q, want results.Impacts() %q", file, listed, results.Impacts())
		}
	}
}

// configOverrides' description tells users which keys are refused and the
// bounds admission holds the overrides to; it must name every key the
// operator owns and state each bound as cwacconfig has it, and the CRD's
// maxProperties must be cwacconfig's key limit.
func TestCRDConfigOverridesNamesEveryOwnedKeyAndBound(t *testing.T) {
	for file, spec := range scanSpecs(t) {
		prop := spec.Properties["configOverrides"]
		desc := strings.Join(strings.Fields(prop.Description), " ")
		for _, key := range slices.Concat(cwac.OwnedConfigKeys, cwac.OwnedPluginKeys) {
			if !strings.Contains(desc, key) {
				t.Errorf("%s: configOverrides' description does not name the owned key %s", file, key)
			}
		}
		for _, bound := range []string{
			fmt.Sprintf("%d keys of at most %d bytes", cwacconfig.MaxOverrideKeys, cwacconfig.MaxOverrideKeyBytes),
			fmt.Sprintf("%d KiB of keys and JSON", cwacconfig.MaxOverridesBytes>>10),
			fmt.Sprintf("nested at most %d deep", cwacconfig.MaxOverrideDepth),
			fmt.Sprintf("%d values in all", cwacconfig.MaxOverrideValues),
			fmt.Sprintf("strings and numbers of at most %d bytes", cwacconfig.MaxOverrideString),
		} {
			if !strings.Contains(desc, bound) {
				t.Errorf("%s: configOverrides' description does not say %q", file, bound)
			}
		}
		if prop.MaxProperties == nil || *prop.MaxProperties != cwacconfig.MaxOverrideKeys {
			t.Errorf("%s: configOverrides maxProperties = %s, want cwacconfig.MaxOverrideKeys %d", file, show(prop.MaxProperties), cwacconfig.MaxOverrideKeys)
		}
	}
}

// show prints an optional number of the schema.
func show(n *int64) string {
	if n == nil {
		return "unset"
	}
	return strconv.FormatInt(*n, 10)
}
