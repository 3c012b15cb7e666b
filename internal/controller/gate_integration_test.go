//go:build integration

package controller

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

// TestCIGateScript runs the README's CI recipe (hack/scan-gate.sh, with a
// real kubectl) against the operator: the script's exit code follows the
// scan's ending and its thresholds. The real scan's summary has 6 critical
// issues and 4 pages.
func TestCIGateScript(t *testing.T) {
	startManager(t, 0)
	user, err := testEnv.AddUser(envtest.User{Name: "ci", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig, err := user.KubeConfig()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "kubeconfig"), kubeconfig, 0o600); err != nil {
		t.Fatal(err)
	}
	assets, err := envtestAssets()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, thresholds string
		succeed          bool
		wantCode         int
		wantOutput       string
		wantEvent        string
	}{
		{name: "within", thresholds: "{maxIssuesByImpact: {critical: 6}, minPagesScanned: 4}", succeed: true, wantCode: 0, wantOutput: "within every threshold"},
		{
			name: "crossed", thresholds: "{maxIssuesByImpact: {critical: 0}, maxTotalIssues: 17}",
			succeed: true, wantCode: 1, wantOutput: "critical issues 6 > 0", wantEvent: "Warning/ThresholdsCrossed",
		},
		{name: "failed", thresholds: "{maxTotalIssues: 100}", succeed: false, wantCode: 1, wantOutput: "Failed", wantEvent: "Warning/CWACExitedNonZero"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ns := newNamespace(t)
			manifest := filepath.Join(dir, tt.name+".yaml")
			body := "apiVersion: cwac.a11y.dev/v1alpha1\nkind: CwacScan\nmetadata: {generateName: gate-}\n" +
				"spec: {urls: [\"https://www.example.govt.nz/\"], thresholds: " + tt.thresholds + "}\n"
			if err := os.WriteFile(manifest, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "../../hack/scan-gate.sh", manifest, ns)
			cmd.Env = append(os.Environ(), "KUBECONFIG="+filepath.Join(dir, "kubeconfig"), "KUBECTL="+filepath.Join(assets, "kubectl"), "TIMEOUT=50s")
			var out strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			scan := finishTheOnlyScan(t, ns, tt.succeed)
			err := cmd.Wait()
			code := 0
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				code = exit.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tt.wantCode || !strings.Contains(out.String(), tt.wantOutput) {
				t.Errorf("exit %d, want %d; output:\n%s", code, tt.wantCode, out.String())
			}
			if tt.wantEvent != "" {
				waitEvents(t, scan, tt.wantEvent)
			}
		})
	}
}

// finishTheOnlyScan plays the kubelet for the one scan in ns.
func finishTheOnlyScan(t *testing.T, ns string, succeed bool) *cwacv1alpha1.CwacScan {
	t.Helper()
	var name string
	waitFor(t, "the gate's scan", func() (bool, error) {
		list := &cwacv1alpha1.CwacScanList{}
		if err := k8s.List(ctxT(t), list, client.InNamespace(ns)); err != nil || len(list.Items) != 1 {
			return false, err
		}
		name = list.Items[0].Name
		return true, nil
	})
	job := waitJob(t, ns, name)
	if succeed {
		startPod(t, job, terminatedStatus(0, "Completed", report(scanpod.Report{Outcome: scanpod.OutcomeComplete, Summary: realSummary(t)})))
		finishJob(t, job, true, "", "")
	} else {
		startPod(t, job, terminatedStatus(1, "Error", report(scanpod.Report{Outcome: scanpod.OutcomeCWACFailed, ExitCode: 1, StderrTail: "ValueError: x"})))
		finishJob(t, job, false, "BackoffLimitExceeded", "failed")
	}
	s := waitPhase(t, ns, name, map[bool]cwacv1alpha1.Phase{true: cwacv1alpha1.PhaseComplete, false: cwacv1alpha1.PhaseFailed}[succeed])
	if c := meta.FindStatusCondition(s.Status.Conditions, cwacv1alpha1.ConditionFinished); c == nil || c.Status != metav1.ConditionTrue {
		t.Errorf("Finished condition = %+v", c)
	}
	return s
}
