//go:build integration

package chart

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanjob"
)

// dnsEgress is the rule both policies open DNS with.
var dnsEgress = networkingv1.NetworkPolicyEgressRule{Ports: []networkingv1.NetworkPolicyPort{
	{Protocol: ptr.To(corev1.ProtocolUDP), Port: ptr.To(intstr.FromInt32(53))},
	{Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(intstr.FromInt32(53))},
}}

// networkPolicy decodes the rendered NetworkPolicy whose name ends so.
func networkPolicy(t *testing.T, objs []*unstructured.Unstructured, suffix string) networkingv1.NetworkPolicy {
	t.Helper()
	o := find(objs, "NetworkPolicy", suffix)
	if o == nil {
		t.Fatalf("no NetworkPolicy *%s", suffix)
	}
	data, _ := yaml.Marshal(o.Object)
	var np networkingv1.NetworkPolicy
	if err := yaml.Unmarshal(data, &np); err != nil {
		t.Fatal(err)
	}
	return np
}

// publicEgress is the scan pods' rule for public addresses (all but the
// denied and the cluster's ranges).
func publicEgress(t *testing.T, objs []*unstructured.Unstructured) networkingv1.NetworkPolicyEgressRule {
	t.Helper()
	egress := networkPolicy(t, objs, "-scans").Spec.Egress
	if len(egress) < 2 || len(egress[1].To) == 0 || egress[1].To[0].IPBlock == nil || egress[1].To[0].IPBlock.CIDR != "0.0.0.0/0" {
		t.Fatalf("the scan pods' second egress rule is not the public one: %+v", egress)
	}
	return egress[1]
}

// checkRunnerPodsPolicy: the pods that run only the runner (merge and
// cleanup pods, as the operator renders them) are selected, scan pods are
// not; they get no ingress, and egress as want says (none at all with the
// results on the claim).
func checkRunnerPodsPolicy(t *testing.T, objs []*unstructured.Unstructured, want []networkingv1.NetworkPolicyEgressRule) {
	t.Helper()
	np := networkPolicy(t, objs, "-runner-pods")
	sel, err := metav1.LabelSelectorAsSelector(&np.Spec.PodSelector)
	if err != nil {
		t.Fatal(err)
	}
	scan := &cwacv1alpha1.CwacScan{ObjectMeta: metav1.ObjectMeta{Name: "weekly", Namespace: "team-a", UID: types.UID("0123abcd-0000")},
		Spec: cwacv1alpha1.CwacScanSpec{Shards: 2, URLs: []string{"https://a.example/", "https://b.example/"}}}
	opts := scanjob.Options{ResultsPVC: "results", RunnerImage: "operator:1"}
	for name, pod := range map[string]map[string]string{
		"merge":   scanjob.MergePod(scan, opts, scanjob.Baseline{}, nil).Labels,
		"cleanup": scanjob.CleanupPod(scan, opts).Labels,
	} {
		if !sel.Matches(labels.Set(pod)) {
			t.Errorf("the policy does not select the %s pod (labels %v)", name, pod)
		}
	}
	if scanPod := scanjob.Job(scan, opts, scanjob.Baseline{}).Spec.Template.Labels; sel.Matches(labels.Set(scanPod)) {
		t.Errorf("the runner pods' policy selects scan pods too (labels %v)", scanPod)
	}
	if len(np.Spec.Ingress) != 0 || !cmp.Equal(np.Spec.PolicyTypes, []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress}) {
		t.Errorf("ingress %+v, policy types %v: want no ingress, both types", np.Spec.Ingress, np.Spec.PolicyTypes)
	}
	if diff := cmp.Diff(want, np.Spec.Egress, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("merge and cleanup pods' egress (-want +chart):\n%s", diff)
	}
}
