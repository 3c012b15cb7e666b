package scanjob

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// manifestOptions are the operator settings the manifests under
// test/manifests are judged with: they allow registry.example/cwac:*.
var manifestOptions = Options{DefaultImage: "cwac:latest", AllowedImages: []string{"registry.example/cwac:*"}}

// readManifest reads a test manifest as the API server would hand it to the
// operator, and its "# expect: " line.
func readManifest(t *testing.T, path string) (*cwacv1alpha1.CwacScan, string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	expect := ""
	if first, _, _ := strings.Cut(string(data), "\n"); strings.HasPrefix(first, "# expect: ") {
		expect = strings.TrimPrefix(first, "# expect: ")
	}
	scan := &cwacv1alpha1.CwacScan{}
	if err := yaml.UnmarshalStrict(data, scan); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return scan, expect
}

// isScanManifest reports whether the manifest is a CwacScan (the
// directories hold the other kinds' manifests too).
func isScanManifest(t *testing.T, path string) bool {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Kind string `json:"kind"`
	}
	if err := yaml.Unmarshal(data, &meta); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return meta.Kind == "CwacScan"
}

// admissionChecks are the checks admission makes of a spec before it
// looks at its URLs, in its order, and the ConfigMap the scan would get.
func admissionChecks(scan *cwacv1alpha1.CwacScan) error {
	if err := CheckConfigOverrides(scan); err != nil {
		return err
	}
	if err := CheckImage(scan, manifestOptions); err != nil {
		return err
	}
	_, err := ConfigMap(scan, manifestOptions)
	return err
}

// The valid manifests (the API server accepts them: TestCRDRefusesBadManifests)
// pass the operator's own checks too; those under refused-at-admission,
// which the API server accepts as well, are refused by them with the field
// and the limit named. internal/controller runs both against an API server.
func TestManifestsAtAdmission(t *testing.T) {
	root := filepath.Join("..", "..", "test", "manifests")
	valid, _ := filepath.Glob(filepath.Join(root, "valid", "*.yaml"))
	refused, _ := filepath.Glob(filepath.Join(root, "refused-at-admission", "*.yaml"))
	if len(valid) < 3 || len(refused) < 5 {
		t.Fatalf("found %d valid and %d refused manifests under %s", len(valid), len(refused), root)
	}
	for _, path := range valid {
		if !isScanManifest(t, path) {
			continue // another kind: the API server's checks are all it has
		}
		t.Run("valid/"+filepath.Base(path), func(t *testing.T) {
			scan, _ := readManifest(t, path)
			if err := admissionChecks(scan); err != nil {
				t.Errorf("refused: %v", err)
			}
		})
	}
	for _, path := range refused {
		t.Run("refused/"+filepath.Base(path), func(t *testing.T) {
			scan, expect := readManifest(t, path)
			if expect == "" {
				t.Fatal("manifest has no '# expect: ' line")
			}
			err := admissionChecks(scan)
			if err == nil || !strings.HasPrefix(err.Error(), expect) {
				t.Errorf("err = %v, want it to start %q", err, expect)
			}
		})
	}
}
