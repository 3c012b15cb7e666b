//go:build integration

package controller

import (
	"fmt"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanjob"
	"github.com/a11y-dev/cwac-operator/internal/scanspec"
)

// TestConfigMapOfAnotherOwnerIsNotUsed: a ConfigMap with the name the
// scan's own would have, made by something else, is neither used nor
// changed: the scan ends Failed=True/ConfigMapConflict with its Event, and
// no Job is made, as for a Job of another owner.
func TestConfigMapOfAnotherOwnerIsNotUsed(t *testing.T) {
	ns := newNamespace(t)
	scan := createScan(t, ns, "taken", simpleSpec())
	name := scanspec.JobName(scan)
	foreign := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"owner": "someone-else"}},
		Data:       map[string]string{"scan.json": `{"not": "this scan's"}`},
	}
	if err := k8s.Create(ctxT(t), foreign); err != nil {
		t.Fatal(err)
	}
	startManager(t, 0)

	s := waitPhase(t, ns, "taken", cwacv1alpha1.PhaseFailed)
	want := fmt.Sprintf("ConfigMap %s exists and does not belong to this scan", name)
	if c := meta.FindStatusCondition(s.Status.Conditions, cwacv1alpha1.ConditionFailed); c == nil ||
		c.Reason != cwacv1alpha1.ReasonConfigMapConflict || c.Message != want {
		t.Errorf("Failed condition = %+v, want ConfigMapConflict: %q", c, want)
	}
	if s.Status.Failure == nil || s.Status.Failure.Reason != cwacv1alpha1.ReasonConfigMapConflict || s.Status.JobName != "" {
		t.Errorf("failure %+v, job %q", s.Status.Failure, s.Status.JobName)
	}
	waitEvents(t, s, "Warning/"+cwacv1alpha1.ReasonConfigMapConflict)

	jobs := &batchv1.JobList{}
	if err := k8s.List(ctxT(t), jobs, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	if len(jobs.Items) != 0 {
		t.Errorf("%d Jobs made over another's ConfigMap", len(jobs.Items))
	}
	got := &corev1.ConfigMap{}
	if err := k8s.Get(ctxT(t), client.ObjectKeyFromObject(foreign), got); err != nil {
		t.Fatal(err)
	}
	if len(got.OwnerReferences) != 0 || got.Data["scan.json"] != foreign.Data["scan.json"] || got.Labels["owner"] != "someone-else" {
		t.Errorf("the other owner's ConfigMap was changed: %+v", got)
	}
}

// TestOwnConfigMapIsUsed: the scan's own ConfigMap, made before a restart
// lost the rest, is used: the Job is made and mounts it.
func TestOwnConfigMapIsUsed(t *testing.T) {
	ns := newNamespace(t)
	scan := createScan(t, ns, "resumed", simpleSpec())
	cm, err := scanjob.ConfigMap(scan, testOpts)
	if err != nil {
		t.Fatal(err)
	}
	if err := controllerutil.SetControllerReference(scan, cm, scheme); err != nil {
		t.Fatal(err)
	}
	if err := k8s.Create(ctxT(t), cm); err != nil {
		t.Fatal(err)
	}
	startManager(t, 0)

	job := waitJob(t, ns, "resumed")
	if !metav1.IsControlledBy(job, scan) {
		t.Errorf("the Job's owners: %+v", job.OwnerReferences)
	}
	mounted := false
	for _, v := range job.Spec.Template.Spec.Volumes {
		mounted = mounted || (v.ConfigMap != nil && v.ConfigMap.Name == cm.Name)
	}
	if !mounted {
		t.Errorf("the Job does not mount ConfigMap %s", cm.Name)
	}
	s := getScan(t, ns, "resumed")
	if c := meta.FindStatusCondition(s.Status.Conditions, cwacv1alpha1.ConditionFailed); c != nil && c.Status == metav1.ConditionTrue {
		t.Errorf("the scan failed: %+v", c)
	}
	if strings.Contains(strings.Join(eventReasons(t, s), " "), cwacv1alpha1.ReasonConfigMapConflict) {
		t.Error("a ConfigMapConflict Event for the scan's own ConfigMap")
	}
}
