// Package admissionpolicy installs, in envtest, one of config/admission's
// MutatingAdmissionPolicies with its binding, as the chart installs them,
// for one test.
package admissionpolicy

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// dir is config/admission from a test's package directory (internal/<name>).
const dir = "../../config/admission"

// Install applies config/admission's <stem>_policy.yaml and
// <stem>_binding.yaml through c, after adjust (nil: none) has its say on
// the policy, until the test ends. Both are named for the test's namespace
// ns and the binding matches ns alone, so other tests' objects are not
// touched, even while a deleted binding lingers in the API server's cache.
func Install(t testing.TB, c client.Client, stem, ns string, adjust func(*admissionv1.MutatingAdmissionPolicy)) {
	t.Helper()
	var policy admissionv1.MutatingAdmissionPolicy
	var binding admissionv1.MutatingAdmissionPolicyBinding
	for file, obj := range map[string]any{stem + "_policy.yaml": &policy, stem + "_binding.yaml": &binding} {
		data, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.UnmarshalStrict(data, obj); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
	}
	if adjust != nil {
		adjust(&policy)
	}
	name := "cwac-" + strings.ReplaceAll(stem, "_", "-") + "-" + ns
	policy.Name, binding.Name, binding.Spec.PolicyName = name, name, name
	binding.Spec.MatchResources = &admissionv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{
		MatchLabels: map[string]string{corev1.LabelMetadataName: ns}}}
	for _, obj := range []client.Object{&policy, &binding} {
		if err := c.Create(context.Background(), obj); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Delete(context.Background(), obj) })
	}
}
