package controller

import (
	"context"
	"fmt"
	"path"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	corev1 "k8s.io/api/core/v1"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/cwac"
	"github.com/a11y-dev/cwac-operator/internal/scanjob"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
	"github.com/a11y-dev/cwac-operator/internal/scanspec"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// resolveBaseline finds the results of the scan's spec.baseline, to be
// mounted into its pod. When there is nothing to compare with it sets
// BaselineCompared=False (BaselineNotFound, BaselineNotFinished or
// BaselineResultsMissing) with a Warning Event, and the scan runs without a
// comparison: a missing baseline is never a reason to fail a scan.
func (r *CwacScanReconciler) resolveBaseline(ctx context.Context, scan *cwacv1alpha1.CwacScan) (scanjob.Baseline, error) {
	name := scan.Spec.Baseline
	if name == "" {
		return scanjob.Baseline{}, nil
	}
	base := &cwacv1alpha1.CwacScan{}
	err := r.Get(ctx, types.NamespacedName{Namespace: scan.Namespace, Name: name}, base)
	switch {
	case apierrors.IsNotFound(err):
		r.baselineUnusable(scan, cwacv1alpha1.ReasonBaselineNotFound, fmt.Sprintf("baseline %s: no such CwacScan in namespace %s", name, scan.Namespace))
		return scanjob.Baseline{}, nil
	case err != nil:
		return scanjob.Baseline{}, fmt.Errorf("getting baseline %s: %w", name, err)
	case !base.Status.Phase.Finished():
		r.baselineUnusable(scan, cwacv1alpha1.ReasonBaselineNotFinished,
			fmt.Sprintf("baseline %s has not finished (phase %q): nothing to compare with", name, base.Status.Phase))
		return scanjob.Baseline{}, nil
	}
	// Only a CWAC results directory right inside the baseline's own scan
	// directory is mounted: status.resultsPath is the operator's own
	// record, but it is checked like everything that reaches a mount, as
	// written (a/../a/dir is refused, not cleaned: the API server refuses
	// a subPath with "..", which would fail the scan), and the mount's
	// path is made from the checked parts.
	dir, leaf := path.Split(base.Status.ResultsPath)
	if _, _, ok := cwac.ParseResultsDirName(leaf); !ok || dir != scanspec.ScanDir(base)+"/" {
		if c := meta.FindStatusCondition(scan.Status.Conditions, cwacv1alpha1.ConditionBaselineCompared); c == nil ||
			c.Reason != cwacv1alpha1.ReasonBaselineResultsMissing {
			r.baselineUnusable(scan, cwacv1alpha1.ReasonBaselineResultsMissing,
				fmt.Sprintf("baseline %s has no results directory (it ended %s)", name, r.howItEnded(ctx, base)))
		}
		return scanjob.Baseline{}, nil
	}
	return scanjob.Baseline{Name: name, ResultsPath: path.Join(scanspec.ScanDir(base), leaf)}, nil
}

// howItEnded is a finished scan's phase and message. The cache keeps no
// message of a finished scan (finished_cache.go): it is read from the API
// server, which a baseline without results is worth; without it, the
// phase alone.
func (r *CwacScanReconciler) howItEnded(ctx context.Context, base *cwacv1alpha1.CwacScan) string {
	if base.Status.Message == "" {
		if whole, err := finishedScanDetails(ctx, r.APIReader, base); err == nil {
			base = whole
		}
	}
	if base.Status.Message == "" {
		return string(base.Status.Phase)
	}
	return fmt.Sprintf("%s: %s", base.Status.Phase, textcap.Head(base.Status.Message, 512))
}

func (r *CwacScanReconciler) baselineUnusable(scan *cwacv1alpha1.CwacScan, reason, msg string) {
	if c := meta.FindStatusCondition(scan.Status.Conditions, cwacv1alpha1.ConditionBaselineCompared); c != nil && c.Reason == reason {
		return // a queued scan comes back here; one Event is enough
	}
	r.setCondition(scan, cwacv1alpha1.ConditionBaselineCompared, metav1.ConditionFalse, reason, msg)
	r.event(scan, corev1.EventTypeWarning, reason, msg)
}

// observeComparison sets BaselineCompared when a scan with a baseline
// finishes, unless resolveBaseline already said why there is none:
// True/Compared with the counts when the runner compared the results, or
// False with the reason for what the runner found (BaselineResultsMissing,
// DiffFailed), or False/ScanFailed when the scan has no results.
func (r *CwacScanReconciler) observeComparison(scan *cwacv1alpha1.CwacScan, problem *scanpod.BaselineProblem) {
	if scan.Spec.Baseline == "" || meta.FindStatusCondition(scan.Status.Conditions, cwacv1alpha1.ConditionBaselineCompared) != nil {
		return
	}
	switch {
	case scan.Status.Summary != nil && scan.Status.Summary.Diff != nil:
		d := scan.Status.Summary.Diff
		r.setCondition(scan, cwacv1alpha1.ConditionBaselineCompared, metav1.ConditionTrue, cwacv1alpha1.ReasonCompared,
			fmt.Sprintf("against %s: %d new, %d fixed, %d unchanged issues", scan.Spec.Baseline, d.New, d.Fixed, d.Unchanged))
	case problem != nil:
		r.baselineUnusable(scan, baselineReason(problem), textcap.Head(problem.Message, 1024))
	case scan.Status.Phase == cwacv1alpha1.PhaseFailed || scan.Status.Summary == nil:
		r.setCondition(scan, cwacv1alpha1.ConditionBaselineCompared, metav1.ConditionFalse, cwacv1alpha1.ReasonScanFailed,
			"the scan has no results to compare with the baseline")
	default:
		r.baselineUnusable(scan, cwacv1alpha1.ReasonDiffFailed, "the scan pod reported no comparison with the baseline")
	}
}

// baselineReason is the BaselineCompared reason for what the scan pod found:
// the reasons live in api/v1alpha1 alone, and the pod's report only says
// whether the baseline's results were missing.
func baselineReason(p *scanpod.BaselineProblem) string {
	if p.ResultsMissing {
		return cwacv1alpha1.ReasonBaselineResultsMissing
	}
	return cwacv1alpha1.ReasonDiffFailed
}
