//go:build integration

package controller

import (
	"net/netip"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

// TestPolicyDeniedScansRunNothing: a URL the scan-target policy refuses ends
// the scan Failed/PolicyDenied, naming the URL and the rule; no ConfigMap or
// Job is created.
func TestPolicyDeniedScansRunNothing(t *testing.T) {
	startManager(t, 0)
	ns := newNamespace(t)
	tests := []struct {
		name, url, rule string
	}{
		{"loopback literal", "http://127.0.0.1:8765/", urlpolicy.RuleLoopback},
		{"metadata in decimal", "http://2852039166/latest/meta-data/", urlpolicy.RuleLinkLocal},
		{"cluster service name", "http://kubernetes.default.svc/", urlpolicy.RuleClusterName},
		{"name resolving to metadata", "http://metadata.attacker.example/", urlpolicy.RuleLinkLocal},
		{"IPv4-mapped private", "http://[::ffff:10.0.0.1]/", urlpolicy.RulePrivate},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := "denied-" + string(rune('a'+i))
			createScan(t, ns, name, cwacv1alpha1.CwacScanSpec{URLs: []string{"https://www.example.govt.nz/", tt.url}})
			s := waitPhase(t, ns, name, cwacv1alpha1.PhaseFailed)
			c := meta.FindStatusCondition(s.Status.Conditions, cwacv1alpha1.ConditionFailed)
			if c == nil || c.Reason != cwacv1alpha1.ReasonPolicyDenied || !strings.Contains(c.Message, tt.url) || !strings.Contains(c.Message, "("+tt.rule+")") {
				t.Errorf("Failed condition = %+v, want PolicyDenied naming %s and %s", c, tt.url, tt.rule)
			}
			if a := meta.FindStatusCondition(s.Status.Conditions, cwacv1alpha1.ConditionAdmitted); a == nil || a.Status != metav1.ConditionFalse {
				t.Errorf("Admitted condition = %+v", a)
			}
			waitEvents(t, s, "Warning/PolicyDenied")
		})
	}
	jobs := &batchv1.JobList{}
	cms := &corev1.ConfigMapList{}
	_ = k8s.List(ctxT(t), jobs, client.InNamespace(ns))
	_ = k8s.List(ctxT(t), cms, client.InNamespace(ns), client.HasLabels{"app.kubernetes.io/managed-by"})
	if len(jobs.Items)+len(cms.Items) != 0 {
		t.Errorf("refused scans created %d Jobs and %d ConfigMaps", len(jobs.Items), len(cms.Items))
	}
}

func TestAdmittedAndOptIn(t *testing.T) {
	open := urlpolicy.New(urlpolicy.Config{AllowCIDRs: mustCIDRs(t, "127.0.0.0/8")})
	startManagerWith(t, Options{JobOptions: testOpts, Policy: open, MaxURLsPerScan: 2})
	ns := newNamespace(t)
	createScan(t, ns, "loopback-opt-in", cwacv1alpha1.CwacScanSpec{URLs: []string{"http://127.0.0.1:8765/"}})
	waitJob(t, ns, "loopback-opt-in")
	s := getScan(t, ns, "loopback-opt-in")
	if c := meta.FindStatusCondition(s.Status.Conditions, cwacv1alpha1.ConditionAdmitted); c == nil || c.Status != metav1.ConditionTrue ||
		c.Reason != cwacv1alpha1.ReasonURLsAllowed {
		t.Errorf("Admitted condition = %+v", c)
	}
	createScan(t, ns, "too-many", cwacv1alpha1.CwacScanSpec{URLs: []string{"http://127.0.0.1:1/", "http://127.0.0.1:2/", "http://127.0.0.1:3/"}})
	s = waitPhase(t, ns, "too-many", cwacv1alpha1.PhaseFailed)
	if c := meta.FindStatusCondition(s.Status.Conditions, cwacv1alpha1.ConditionFailed); c == nil || c.Reason != cwacv1alpha1.ReasonTooManyURLs ||
		!strings.Contains(c.Message, "at most 2") {
		t.Errorf("Failed condition = %+v", c)
	}
}

func mustCIDRs(t *testing.T, s string) []netip.Prefix {
	t.Helper()
	p, err := urlpolicy.ParseCIDRs(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
