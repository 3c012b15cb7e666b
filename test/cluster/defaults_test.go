//go:build integration

package cluster

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// TestWithoutTheOperatorsDefaults reinstalls the release without
// cwac.defaultConfig (the image, as CWAC's own Dockerfile builds it, is
// declared without CWAC's defaults), then restores it:
//   - a scan of that image ends Failed/NoCWACDefaults at admission, with the
//     message naming both fixes, an Event, and no Job or pod;
//   - a scan naming the stand-in image with config/ baked in runs on the
//     image's own config/config_default.json.
func TestWithoutTheOperatorsDefaults(t *testing.T) {
	need(t)
	helm, _ := filepath.Abs("../../bin/helm")
	chart, _ := filepath.Abs("../../charts/cwac-operator")
	defaults, _ := filepath.Abs("../standin-cwac/config/config_default.json")
	upgrade := func(what string, set ...string) {
		t.Helper()
		start := time.Now()
		args := append([]string{"--kubeconfig", kubeconfig, "upgrade", "cwac", chart, "-n", ns, "--reset-then-reuse-values", "--wait", "--timeout", "3m"}, set...)
		if out, err := run(t, helm, args...); err != nil {
			t.Fatalf("helm upgrade (%s): %v\n%s", what, err, out)
		}
		if out, err := run(t, kubectl, "--kubeconfig", kubeconfig, "-n", ns, "rollout", "status", "deploy/cwac-cwac-operator", "--timeout", "2m"); err != nil {
			t.Fatalf("operator rollout (%s): %v\n%s", what, err, out)
		}
		timing("helm_upgrade_"+what, time.Since(start))
	}
	upgrade("without_defaults", "--set", "cwac.defaultConfig=")
	t.Cleanup(func() { upgrade("defaults_restored", "--set-file", "cwac.defaultConfig="+defaults) })

	refused := newScan(t, "nodefaults", nil)
	s := waitPhase(t, refused.Name, cwacv1alpha1.PhaseFailed, time.Minute)
	c := meta.FindStatusCondition(s.Status.Conditions, cwacv1alpha1.ConditionFailed)
	if c == nil || c.Reason != cwacv1alpha1.ReasonNoCWACDefaults {
		t.Fatalf("Failed condition %+v, want NoCWACDefaults", c)
	}
	for _, want := range []string{"cwac-standin:dev", "--set-file cwac.defaultConfig=<cwac>/config/config_default.json", "cwac.imageHasDefaults=true"} {
		if !strings.Contains(s.Status.Message, want) {
			t.Errorf("message %q does not name %q", s.Status.Message, want)
		}
	}
	phaseEvents(t, s, "Failed")
	t.Logf("refused at admission: %s", s.Status.Message)

	baked := newScan(t, "baked", func(s *cwacv1alpha1.CwacScanSpec) { s.Image = "cwac-standin-config:dev" })
	done := waitPhase(t, baked.Name, cwacv1alpha1.PhaseComplete, 3*time.Minute)
	if sum := done.Status.Summary; sum == nil || sum.PagesScanned != 4 || sum.TotalIssues != 17 {
		t.Errorf("baked-config scan: %+v", done.Status)
	}
	pods := scanPods(t, done.Status.JobName)
	if len(pods) != 1 {
		t.Fatalf("%d pods", len(pods))
	}
	logs, err := run(t, kubectl, "--kubeconfig", kubeconfig, "-n", ns, "logs", pods[0].Name, "-c", "cwac")
	if err != nil {
		t.Errorf("kubectl logs: %v", err)
	}
	if !defaultsFrom(logs, "/cwac/config/config_default.json") {
		t.Errorf("the baked-config scan did not use the image's defaults:\n%s", logs)
	}

	// The refused scan never got a Job or a pod.
	s = get(t, refused.Name)
	jobs := &batchv1.JobList{}
	if err := k8s.List(ctx(), jobs, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs.Items {
		if strings.HasPrefix(j.Name, refused.Name) {
			t.Errorf("the refused scan has Job %s", j.Name)
		}
	}
	if s.Status.JobName != "" || s.Status.ExitCode != nil {
		t.Errorf("the refused scan ran: job %q exit %v", s.Status.JobName, s.Status.ExitCode)
	}
}
