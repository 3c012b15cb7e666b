//go:build integration

package controller

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

const realResultsDir = "2026-11-21_23-18-23_real-scan-1"

// completeScan runs a scan to Complete with the real summary (plus diff,
// when given) and CWAC's results directory name.
func completeScan(t *testing.T, ns, name string, spec cwacv1alpha1.CwacScanSpec, diff *results.DiffCounts,
	problem *scanpod.BaselineProblem) (*cwacv1alpha1.CwacScan, *batchv1.Job) {
	t.Helper()
	createScan(t, ns, name, spec)
	job := waitJob(t, ns, name)
	sum := realSummary(t)
	sum.Diff = diff
	startPod(t, job, terminatedStatus(0, "Completed", report(scanpod.Report{
		Outcome: scanpod.OutcomeComplete, ResultsDir: realResultsDir, Summary: sum, Baseline: problem,
	})))
	finishJob(t, job, true, "", "")
	return waitPhase(t, ns, name, cwacv1alpha1.PhaseComplete), job
}

func baselineMount(job *batchv1.Job) (subPath string, args string) {
	c := job.Spec.Template.Spec.Containers[0]
	for _, m := range c.VolumeMounts {
		if m.MountPath == scanpod.BaselineDir {
			subPath = m.SubPath
			if !m.ReadOnly {
				subPath += " (WRITABLE)"
			}
		}
	}
	var flags []string
	for _, a := range c.Args {
		if strings.HasPrefix(a, "--baseline") {
			flags = append(flags, a)
		}
	}
	return subPath, strings.Join(flags, " ")
}

func TestBaselineComparison(t *testing.T) {
	startManager(t, 0)
	ns := newNamespace(t)
	base, _ := completeScan(t, ns, "week-1", simpleSpec(), nil, nil)
	if c := meta.FindStatusCondition(base.Status.Conditions, cwacv1alpha1.ConditionBaselineCompared); c != nil {
		t.Errorf("a scan without a baseline got %+v", c)
	}

	// A running baseline and a failed one without results.
	createScan(t, ns, "running", simpleSpec())
	waitJob(t, ns, "running")
	createScan(t, ns, "broken", simpleSpec())
	brokenJob := waitJob(t, ns, "broken")
	finishJob(t, brokenJob, false, "BackoffLimitExceeded", "failed")
	waitPhase(t, ns, "broken", cwacv1alpha1.PhaseFailed)

	diff := &results.DiffCounts{Baseline: "week-1", New: 2, Fixed: 5, Unchanged: 15,
		ByOrganisation: []results.OrganisationChange{{Organisation: "CWAC Test Org", New: 2, Fixed: 5, Unchanged: 15}}}
	tests := []struct {
		name, baseline string
		thresholds     *cwacv1alpha1.Thresholds
		diff           *results.DiffCounts
		problem        *scanpod.BaselineProblem
		wantMount      string
		wantStatus     metav1.ConditionStatus
		wantReason     string
		wantMsg        string
		wantThresholds metav1.ConditionStatus
	}{
		{
			name: "compared", baseline: "week-1", diff: diff, thresholds: &cwacv1alpha1.Thresholds{MaxNewIssues: ptr.To[int64](2)},
			wantMount: base.Status.ResultsPath, wantStatus: metav1.ConditionTrue, wantReason: cwacv1alpha1.ReasonCompared,
			wantMsg: "against week-1: 2 new, 5 fixed, 15 unchanged issues", wantThresholds: metav1.ConditionTrue,
		},
		{
			name: "more new than allowed", baseline: "week-1", diff: diff, thresholds: &cwacv1alpha1.Thresholds{MaxNewIssues: ptr.To[int64](1)},
			wantMount: base.Status.ResultsPath, wantStatus: metav1.ConditionTrue, wantReason: cwacv1alpha1.ReasonCompared,
			wantMsg: "2 new", wantThresholds: metav1.ConditionFalse,
		},
		{
			name: "results gone from the volume", baseline: "week-1",
			problem:    &scanpod.BaselineProblem{ResultsMissing: true, Message: "/baseline is empty"},
			thresholds: &cwacv1alpha1.Thresholds{MaxNewIssues: ptr.To[int64](10)},
			wantMount:  base.Status.ResultsPath, wantStatus: metav1.ConditionFalse, wantReason: cwacv1alpha1.ReasonBaselineResultsMissing,
			wantMsg: "/baseline is empty", wantThresholds: metav1.ConditionFalse, // fails closed
		},
		{
			name: "the comparison failed", baseline: "week-1",
			problem:   &scanpod.BaselineProblem{Message: "comparing with baseline week-1: reading axe_core_audit.csv: bad"},
			wantMount: base.Status.ResultsPath, wantStatus: metav1.ConditionFalse, wantReason: cwacv1alpha1.ReasonDiffFailed,
			wantMsg: "comparing with baseline week-1: reading axe_core_audit.csv: bad",
		},
		{name: "no such scan", baseline: "nope", wantStatus: metav1.ConditionFalse, wantReason: cwacv1alpha1.ReasonBaselineNotFound, wantMsg: "no such CwacScan"},
		{name: "not finished", baseline: "running", wantStatus: metav1.ConditionFalse, wantReason: cwacv1alpha1.ReasonBaselineNotFinished},
		{name: "failed without results", baseline: "broken", wantStatus: metav1.ConditionFalse, wantReason: cwacv1alpha1.ReasonBaselineResultsMissing},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := simpleSpec()
			spec.Baseline, spec.Thresholds = tt.baseline, tt.thresholds
			name := "week-2-" + string(rune('a'+i))
			scan, job := completeScan(t, ns, name, spec, tt.diff, tt.problem)
			mount, args := baselineMount(job)
			if mount != tt.wantMount {
				t.Errorf("baseline mount subPath = %q, want %q", mount, tt.wantMount)
			}
			if wantArgs := "--baseline-dir=/baseline --baseline-name=" + tt.baseline; tt.wantMount != "" && args != wantArgs {
				t.Errorf("runner args %q, want %q", args, wantArgs)
			} else if tt.wantMount == "" && args != "" {
				t.Errorf("runner args %q for a scan without a usable baseline", args)
			}
			c := meta.FindStatusCondition(scan.Status.Conditions, cwacv1alpha1.ConditionBaselineCompared)
			if c == nil || c.Status != tt.wantStatus || c.Reason != tt.wantReason || !strings.Contains(c.Message, tt.wantMsg) {
				t.Fatalf("BaselineCompared = %+v, want %s/%s containing %q", c, tt.wantStatus, tt.wantReason, tt.wantMsg)
			}
			if tt.wantStatus == metav1.ConditionFalse && !slices.Contains(eventReasons(t, scan), "Warning/"+tt.wantReason) {
				t.Errorf("no Warning/%s event: %v", tt.wantReason, eventReasons(t, scan))
			}
			if tt.diff != nil && (scan.Status.Summary.Diff == nil || scan.Status.Summary.Diff.New != tt.diff.New ||
				len(scan.Status.Summary.Diff.ByOrganisation) != 1) {
				t.Errorf("status.summary.diff = %+v", scan.Status.Summary.Diff)
			}
			if tt.thresholds != nil {
				if c := meta.FindStatusCondition(scan.Status.Conditions, cwacv1alpha1.ConditionThresholdsMet); c == nil || c.Status != tt.wantThresholds {
					t.Errorf("ThresholdsMet = %+v, want %s", c, tt.wantThresholds)
				}
			}
		})
	}
}

// A scan cannot be its own baseline: the API server refuses it, naming the field.
func TestBaselineItselfRefused(t *testing.T) {
	ns := newNamespace(t)
	spec := simpleSpec()
	spec.Baseline = "self"
	err := k8s.Create(ctxT(t), &cwacv1alpha1.CwacScan{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "self"}, Spec: spec})
	if err == nil || !strings.Contains(err.Error(), "spec.baseline names the scan itself") {
		t.Fatalf("err = %v", err)
	}
}

// A baseline whose status.resultsPath is not exactly its scan directory and
// a CWAC results directory in it (a/../a/dir, which the API server would
// refuse as a mount and so fail the scan) is reported as having no
// results, and the scan runs without the comparison: a bad baseline never
// fails a scan.
func TestBaselineWithAnUncleanResultsPath(t *testing.T) {
	startManager(t, 0)
	ns := newNamespace(t)
	base, _ := completeScan(t, ns, "dotdot-base", simpleSpec(), nil, nil)
	dir, leaf := path.Split(base.Status.ResultsPath)
	scanDir := strings.TrimSuffix(dir, "/")
	for i, bad := range []string{
		scanDir + "/../" + path.Base(scanDir) + "/" + leaf, // cleans to the right place
		scanDir + "//" + leaf,
		scanDir + "/./" + leaf,
		"/" + scanDir + "/" + leaf,
	} {
		base.Status.ResultsPath = bad
		if err := k8s.Status().Update(ctxT(t), base); err != nil {
			t.Fatal(err)
		}
		spec := simpleSpec()
		spec.Baseline = base.Name
		name := fmt.Sprintf("dotdot-%d", i)
		scan, job := completeScan(t, ns, name, spec, nil, nil)
		if mount, args := baselineMount(job); mount != "" || args != "" {
			t.Errorf("%q: baseline mounted at %q with %q", bad, mount, args)
		}
		c := meta.FindStatusCondition(scan.Status.Conditions, cwacv1alpha1.ConditionBaselineCompared)
		if scan.Status.Phase != cwacv1alpha1.PhaseComplete || c == nil || c.Reason != cwacv1alpha1.ReasonBaselineResultsMissing {
			t.Errorf("%q: phase %s, BaselineCompared %+v", bad, scan.Status.Phase, c)
		}
		base = getScan(t, ns, base.Name)
	}
}
