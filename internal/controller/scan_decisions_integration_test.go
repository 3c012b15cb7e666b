//go:build integration

package controller

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

// TestScanGivenItsDecisions: a scan started in a namespace with decisions
// carries those that apply then (Applied True for their generation) in its
// ConfigMap, and none that does not apply; a scan of a namespace without
// decisions has no decisions file.
func TestScanGivenItsDecisions(t *testing.T) {
	startManagerWith(t, Options{JobOptions: testOpts, Policy: testPolicy()})
	ns, bare := newNamespace(t), newNamespace(t)
	decide := func(name string, applied bool) {
		t.Helper()
		d := &cwacv1alpha1.CwacIssueDecision{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
			Spec: cwacv1alpha1.CwacIssueDecisionSpec{Organisation: "example.com", Kind: cwacv1alpha1.DecisionWontFix, Reason: "why " + name,
				Rule: "image-alt"}}
		if err := k8s.Create(ctxT(t), d); err != nil {
			t.Fatal(err)
		}
		// The operator's decision controller looks first: no decider is
		// recorded (this test runs no admission policy), so NoDecider.
		waitFor(t, "the operator's look at "+name, func() (bool, error) {
			err := k8s.Get(ctxT(t), client.ObjectKeyFromObject(d), d)
			return err == nil && len(d.Status.Conditions) > 0, err
		})
		if !applied {
			return
		}
		// Then, as for an entitled decider, it applies (the controller
		// wakes only for a new generation or annotations, not for this).
		d.Status.Conditions = []metav1.Condition{{Type: cwacv1alpha1.ConditionApplied, Status: metav1.ConditionTrue, Reason: cwacv1alpha1.ReasonEntitled,
			Message: "test", ObservedGeneration: d.Generation, LastTransitionTime: metav1.Now()}}
		if err := k8s.Status().Update(ctxT(t), d); err != nil {
			t.Fatal(err)
		}
	}
	decide("applies", true)
	decide("does-not", false)
	// The cache sees both before the scan starts.
	waitFor(t, "the decisions to be stored", func() (bool, error) {
		var list cwacv1alpha1.CwacIssueDecisionList
		err := k8s.List(ctxT(t), &list, client.InNamespace(ns))
		return err == nil && len(list.Items) == 2, err
	})
	createScan(t, ns, "decided", simpleSpec())
	createScan(t, bare, "undecided", simpleSpec())
	cm := &corev1.ConfigMap{}
	job := waitJob(t, ns, "decided")
	if err := k8s.Get(ctxT(t), client.ObjectKey{Namespace: ns, Name: job.Name}, cm); err != nil {
		t.Fatal(err)
	}
	got, at, err := scanpod.ReadDecisions(strings.NewReader(cm.Data[scanpod.DecisionsFile]), ns)
	if err != nil || len(got) != 1 || got[0].Ref != ns+"/applies" || got[0].Reason != "why applies" || at.IsZero() {
		t.Fatalf("the scan's decisions: %+v as of %v, %v; want the applied one alone, as of the scan's start", got, at, err)
	}
	job = waitJob(t, bare, "undecided")
	if err := k8s.Get(ctxT(t), client.ObjectKey{Namespace: bare, Name: job.Name}, cm); err != nil {
		t.Fatal(err)
	}
	if _, ok := cm.Data[scanpod.DecisionsFile]; ok {
		t.Error("a scan of a namespace without decisions has a decisions file")
	}
}
