//go:build integration

package controller

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

func loadManifest(t *testing.T, path string) (*unstructured.Unstructured, string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	expect := ""
	if first, _, _ := strings.Cut(string(data), "\n"); strings.HasPrefix(first, "# expect: ") {
		expect = strings.TrimPrefix(first, "# expect: ")
	}
	obj := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(data, &obj.Object); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return obj, expect
}

// TestCRDRefusesBadManifests applies each manifest under test/manifests with a
// server-side dry run: the API server itself, with the generated CRD,
// accepts the valid ones and refuses each invalid one naming the field.
func TestCRDRefusesBadManifests(t *testing.T) {
	ns := newNamespace(t)
	files := map[string][]string{}
	for _, dir := range []string{"valid", "invalid"} {
		matches, err := filepath.Glob(filepath.Join("..", "..", "test", "manifests", dir, "*.yaml"))
		if err != nil || len(matches) == 0 {
			t.Fatalf("no manifests in %s: %v", dir, err)
		}
		files[dir] = matches
	}
	files["valid"] = append(files["valid"], filepath.Join("..", "..", "config", "samples", "cwac_v1alpha1_cwacscan.yaml"),
		filepath.Join("..", "..", "config", "samples", "cwac_v1alpha1_cwacorganisationgrant.yaml"),
		filepath.Join("..", "..", "config", "samples", "cwac_v1alpha1_cwacissuedecision.yaml"),
		filepath.Join("..", "..", "config", "samples", "cwac_v1alpha1_cwacdigest.yaml"))
	for _, path := range files["valid"] {
		t.Run("valid/"+filepath.Base(path), func(t *testing.T) {
			obj, _ := loadManifest(t, path)
			obj.SetNamespace(ns)
			if err := k8s.Create(ctxT(t), obj, client.DryRunAll); err != nil {
				t.Errorf("refused: %v", err)
			}
		})
	}
	for _, path := range files["invalid"] {
		t.Run("invalid/"+filepath.Base(path), func(t *testing.T) {
			obj, expect := loadManifest(t, path)
			if expect == "" {
				t.Fatal("manifest has no '# expect: ' line")
			}
			obj.SetNamespace(ns)
			err := k8s.Create(ctxT(t), obj, client.DryRunAll)
			if err == nil {
				t.Fatalf("accepted, want refused with %q", expect)
			}
			if !strings.Contains(err.Error(), expect) {
				t.Errorf("refused with %q, want it to contain %q", err, expect)
			}
		})
	}
	// Nothing was created by the dry runs.
	list := &cwacv1alpha1.CwacScanList{}
	if err := k8s.List(ctxT(t), list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 0 {
		t.Errorf("dry runs created %d scans", len(list.Items))
	}
}

func TestSpecIsImmutable(t *testing.T) {
	ns := newNamespace(t)
	scan := createScan(t, ns, "immutable", simpleSpec())
	if scan.Spec.MaxLinksPerDomain != 50 || scan.Spec.ThreadCount != 1 || scan.Spec.Timeout != "1h" {
		t.Errorf("defaults not applied: %+v", scan.Spec)
	}
	scan.Spec.URLs = append(scan.Spec.URLs, "https://other.example/")
	err := k8s.Update(ctxT(t), scan)
	if err == nil || !strings.Contains(err.Error(), "spec is immutable") {
		t.Fatalf("update of spec: %v, want refused as immutable", err)
	}
	// Metadata stays editable.
	fresh := getScan(t, ns, "immutable")
	fresh.Labels = map[string]string{"team": "a11y"}
	if err := k8s.Update(ctxT(t), fresh); err != nil {
		t.Errorf("label update refused: %v", err)
	}
}
