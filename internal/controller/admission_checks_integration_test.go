//go:build integration

package controller

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// allowListOptions run the operator as the test manifests expect: scans may
// name registry.example/cwac:* besides the default image.
func allowListOptions() Options {
	o := testOpts
	o.AllowedImages = []string{"registry.example/cwac:*"}
	return Options{JobOptions: o, Policy: testPolicy()}
}

// manifestReason is a manifest's "# reason: " line.
func manifestReason(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if r, ok := strings.CutPrefix(line, "# reason: "); ok {
			return r
		}
	}
	t.Fatalf("%s has no '# reason: ' line", path)
	return ""
}

// nothingMade fails the test if the namespace holds a Job or a ConfigMap of the operator's.
func nothingMade(t *testing.T, ns string) {
	t.Helper()
	jobs := &batchv1.JobList{}
	cms := &corev1.ConfigMapList{}
	if err := k8s.List(ctxT(t), jobs, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	if err := k8s.List(ctxT(t), cms, client.InNamespace(ns), client.HasLabels{"app.kubernetes.io/managed-by"}); err != nil {
		t.Fatal(err)
	}
	if len(jobs.Items)+len(cms.Items) > 0 {
		t.Errorf("%d Jobs and %d ConfigMaps made for refused scans", len(jobs.Items), len(cms.Items))
	}
}

// The manifests under test/manifests/refused-at-admission are accepted by
// the API server and refused by the operator's first checks (the overrides'
// bounds and owned keys, the image allow-list) with the reason and the
// message each names, before anything is made; the valid manifests at the
// overrides' limits are admitted and get their Job.
func TestManifestsRefusedAtAdmission(t *testing.T) {
	startManagerWith(t, allowListOptions())
	root := filepath.Join("..", "..", "test", "manifests")
	refused, _ := filepath.Glob(filepath.Join(root, "refused-at-admission", "*.yaml"))
	atLimits, _ := filepath.Glob(filepath.Join(root, "valid", "config-overrides-*.yaml"))
	if len(refused) < 5 || len(atLimits) < 2 {
		t.Fatalf("found %d refused and %d at-limit manifests", len(refused), len(atLimits))
	}
	ns := newNamespace(t)
	for _, path := range refused {
		t.Run(filepath.Base(path), func(t *testing.T) {
			obj, expect := loadManifest(t, path)
			reason := manifestReason(t, path)
			obj.SetNamespace(ns)
			if err := k8s.Create(ctxT(t), obj); err != nil {
				t.Fatalf("the API server refused it: %v", err)
			}
			s := waitPhase(t, ns, obj.GetName(), cwacv1alpha1.PhaseFailed)
			c := meta.FindStatusCondition(s.Status.Conditions, cwacv1alpha1.ConditionFailed)
			if c == nil || c.Reason != reason || !strings.HasPrefix(c.Message, expect) {
				t.Errorf("Failed condition = %+v, want %s starting %q", c, reason, expect)
			}
			if reason == cwacv1alpha1.ReasonImageNotAllowed {
				if a := meta.FindStatusCondition(s.Status.Conditions, cwacv1alpha1.ConditionAdmitted); a == nil || a.Status != "False" || a.Reason != reason {
					t.Errorf("Admitted = %+v, want False/%s", a, reason)
				}
			}
		})
	}
	nothingMade(t, ns)
	okNS := newNamespace(t)
	for _, path := range atLimits {
		t.Run(filepath.Base(path), func(t *testing.T) {
			obj, _ := loadManifest(t, path)
			obj.SetNamespace(okNS)
			if err := k8s.Create(ctxT(t), obj); err != nil {
				t.Fatalf("the API server refused it: %v", err)
			}
			job := waitJob(t, okNS, obj.GetName())
			cm := &corev1.ConfigMap{}
			if err := k8s.Get(ctxT(t), client.ObjectKey{Namespace: okNS, Name: job.Name}, cm); err != nil {
				t.Fatalf("the admitted scan's ConfigMap: %v", err)
			}
		})
	}
}

// The object of issue 20, 20 KB of configOverrides nesting arrays 9,900
// deep, is accepted by the API server and refused by the operator's first
// check, with the field and the limit named, at once.
func TestDeeplyNestedOverridesAreRefusedFirst(t *testing.T) {
	startManager(t, 0)
	ns := newNamespace(t)
	deep := strings.Repeat("[", 9900) + strings.Repeat("]", 9900)
	spec := simpleSpec()
	spec.ConfigOverrides = map[string]apiextensionsv1.JSON{"filter_to_urls": {Raw: []byte(deep)}}
	start := time.Now()
	createScan(t, ns, "deep", spec)
	s := waitPhase(t, ns, "deep", cwacv1alpha1.PhaseFailed)
	c := meta.FindStatusCondition(s.Status.Conditions, cwacv1alpha1.ConditionFailed)
	want := fmt.Sprintf("spec.configOverrides.filter_to_urls: arrays and objects nest deeper than the limit of %d levels", 8)
	if c == nil || c.Reason != cwacv1alpha1.ReasonInvalidSpec || c.Message != want {
		t.Errorf("Failed condition = %+v, want InvalidSpec %q", c, want)
	}
	t.Logf("refused %s after creation", time.Since(start).Round(time.Millisecond))
	nothingMade(t, ns)
}
