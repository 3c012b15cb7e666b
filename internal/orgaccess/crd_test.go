package orgaccess_test

import (
	"os"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/a11y-dev/cwac-operator/internal/store"
)

// A grant can name any organisation or sector the issue history keeps:
// the CRD's bound on a name (a marker, which cannot name a Go constant)
// is the history's.
func TestGrantNamesAsLongAsTheHistoryKeeps(t *testing.T) {
	data, err := os.ReadFile("../../config/crd/bases/cwac.a11y.dev_cwacorganisationgrants.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(data, &crd); err != nil {
		t.Fatal(err)
	}
	spec := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	for _, field := range []string{"organisations", "sectors"} {
		items := spec.Properties[field].Items
		if items == nil || items.Schema == nil || items.Schema.MaxLength == nil {
			t.Fatalf("spec.%s has no item length bound", field)
		}
		if got := *items.Schema.MaxLength; got != store.MaxNameBytes {
			t.Errorf("spec.%s items: maxLength %d, the history keeps names of %d bytes", field, got, store.MaxNameBytes)
		}
	}
}
