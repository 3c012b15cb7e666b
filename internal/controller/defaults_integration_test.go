//go:build integration

package controller

import (
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanjob"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

// TestNoCWACDefaultsFailsAtAdmission: with the default image declared
// without CWAC's defaults (as CWAC's own Dockerfile builds it) and none given
// to the operator, a scan of that image ends Failed/NoCWACDefaults at
// admission — Admitted=False, a Warning Event, a message naming both fixes —
// and no ConfigMap, Job or pod is ever made. A scan naming another image is
// admitted (that image may carry config/).
func TestNoCWACDefaultsFailsAtAdmission(t *testing.T) {
	opts := testOpts
	opts.DefaultImageLacksDefaults = true
	startManagerWith(t, Options{JobOptions: opts, Policy: testPolicy()})
	ns := newNamespace(t)

	createScan(t, ns, "no-defaults", simpleSpec())
	other := simpleSpec()
	other.Image = "registry.example/cwac-with-config:1"
	createScan(t, ns, "own-image", other)

	s := waitPhase(t, ns, "no-defaults", cwacv1alpha1.PhaseFailed)
	c := meta.FindStatusCondition(s.Status.Conditions, cwacv1alpha1.ConditionFailed)
	if c == nil || c.Reason != cwacv1alpha1.ReasonNoCWACDefaults {
		t.Fatalf("Failed condition = %+v, want NoCWACDefaults", c)
	}
	for _, want := range []string{
		"cwac:test", "--set-file cwac.defaultConfig=<cwac>/config/config_default.json", "--cwac-default-config", "cwac.imageHasDefaults=true",
	} {
		if !strings.Contains(c.Message, want) || !strings.Contains(s.Status.Message, want) {
			t.Errorf("message %q does not name %q", c.Message, want)
		}
	}
	a := meta.FindStatusCondition(s.Status.Conditions, cwacv1alpha1.ConditionAdmitted)
	if a == nil || a.Status != metav1.ConditionFalse || a.Reason != cwacv1alpha1.ReasonNoCWACDefaults {
		t.Errorf("Admitted condition = %+v", a)
	}
	if s.Status.Failure == nil || s.Status.Failure.Reason != cwacv1alpha1.ReasonNoCWACDefaults || s.Status.JobName != "" {
		t.Errorf("failure %+v, job %q", s.Status.Failure, s.Status.JobName)
	}
	waitEvents(t, s, "Warning/NoCWACDefaults")

	job := waitJob(t, ns, "own-image")
	if img := job.Spec.Template.Spec.Containers[0].Image; img != other.Image {
		t.Errorf("own-image scan runs %s", img)
	}
	// Nothing was made for the refused scan, now or a moment later.
	time.Sleep(500 * time.Millisecond)
	jobs, cms := &batchv1.JobList{}, &corev1.ConfigMapList{}
	if err := k8s.List(ctxT(t), jobs, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	if err := k8s.List(ctxT(t), cms, client.InNamespace(ns), client.MatchingLabels{scanjob.LabelManagedBy: scanjob.ManagedByValue}); err != nil {
		t.Fatal(err)
	}
	if len(jobs.Items) != 1 || len(cms.Items) != 1 {
		t.Errorf("%d Jobs and %d ConfigMaps, want only the own-image scan's", len(jobs.Items), len(cms.Items))
	}
}

// TestOperatorsDefaultsReachEveryScan: CWAC's defaults given to the operator
// are copied, byte for byte, into each scan's own ConfigMap, where the scan
// pod (which can mount ConfigMaps of its own namespace only) finds them.
func TestOperatorsDefaultsReachEveryScan(t *testing.T) {
	defaults := "{\n  \"audit_name\": \"from_the_operator\",\n  \"viewport_sizes\": {\"small\": {\"width\": 320, \"height\": 450}}\n}\n"
	opts := testOpts
	opts.DefaultImageLacksDefaults = true
	opts.DefaultConfig = []byte(defaults)
	startManagerWith(t, Options{JobOptions: opts, Policy: testPolicy()})
	for _, ns := range []string{newNamespace(t), newNamespace(t)} {
		createScan(t, ns, "with-defaults", simpleSpec())
		job := waitJob(t, ns, "with-defaults")
		cm := &corev1.ConfigMap{}
		if err := k8s.Get(ctxT(t), client.ObjectKey{Namespace: ns, Name: job.Name}, cm); err != nil {
			t.Fatal(err)
		}
		if cm.Data[scanpod.DefaultsFile] != defaults {
			t.Errorf("%s/%s: %s = %q", ns, cm.Name, scanpod.DefaultsFile, cm.Data[scanpod.DefaultsFile])
		}
	}
}
