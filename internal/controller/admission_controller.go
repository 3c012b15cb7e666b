package controller

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanjob"
	"github.com/a11y-dev/cwac-operator/internal/scanspec"
	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

// DefaultAdmissionTimeout bounds the scan-target checks of one scan (name
// lookups and redirect probes of all its URLs).
const DefaultAdmissionTimeout = 2 * time.Minute

// DefaultAdmissionWorkers is how many scans are checked at once.
const DefaultAdmissionWorkers = 4

// AdmissionReconciler checks a new scan's URLs against the scan-target
// policy. It is its own controller, with its own workers, because the checks
// do network I/O (name lookups, redirect probes): a scan with many slow URLs
// delays only itself, never the reconciler that starts and watches Jobs.
type AdmissionReconciler struct {
	client.Client
	statusWriter
	// Policy decides which URLs scans may target (nil: every URL is allowed — tests only).
	Policy *urlpolicy.Policy
	// MaxURLsPerScan refuses larger scans (0: the CRD's limit only).
	MaxURLsPerScan int
	// JobOptions are the scan pods' settings; admission refuses a scan that
	// would have no CWAC defaults (scanjob.CheckDefaults).
	JobOptions scanjob.Options
	// Timeout bounds one scan's checks (0: DefaultAdmissionTimeout).
	Timeout time.Duration
	// Workers is how many scans are checked at once (0: DefaultAdmissionWorkers).
	Workers int
	// SkipNameValidation lets tests start several managers in one process.
	SkipNameValidation bool
}

// Reconcile admits one scan: get → ignore not-found and scans already
// decided → phase Pending → check → patch status once. It is the first to
// write a new scan's status; the scan controller waits for its verdict.
func (r *AdmissionReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	scan := &cwacv1alpha1.CwacScan{}
	if err := r.Get(ctx, req.NamespacedName, scan); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !needsAdmission(scan) {
		return ctrl.Result{}, nil
	}
	patch := beginStatusPatch(scan, scanStatus)
	scan.Status.ObservedGeneration = scan.Generation
	if scan.Status.Phase == "" {
		r.setPhase(scan, cwacv1alpha1.PhasePending, cwacv1alpha1.ReasonPending, "scan accepted")
	}
	r.admit(ctx, scan)
	return ctrl.Result{}, patch.write(ctx, r.Client, scan)
}

// needsAdmission: a scan not yet decided, not finished, not cancelled, not being deleted.
func needsAdmission(scan *cwacv1alpha1.CwacScan) bool {
	return scan.DeletionTimestamp == nil && !scan.Status.Phase.Finished() && !cancelRequested(scan) &&
		meta.FindStatusCondition(scan.Status.Conditions, cwacv1alpha1.ConditionAdmitted) == nil
}

// admit checks the spec and every URL before anything runs:
// Admitted=True/URLsAllowed, or the scan ends Failed=True with InvalidSpec
// (first: configOverrides past their bounds or setting an owned key),
// ImageNotAllowed (spec.image not in the operator's allow-list;
// Admitted=False too), PolicyDenied (naming the URL and the
// rule; Admitted=False too), TooManyURLs, NoCWACDefaults (the
// scan would run an image declared without CWAC's defaults and the operator
// has none; Admitted=False too), or AdmissionTimedOut when the checks take
// longer than the budget. Spec is immutable, so the
// verdict is recorded once and never re-checked.
func (r *AdmissionReconciler) admit(ctx context.Context, scan *cwacv1alpha1.CwacScan) {
	// First, before anything decodes or renders them: the free-form
	// overrides' bounds, which the CRD cannot check.
	if err := scanjob.CheckConfigOverrides(scan); err != nil {
		r.fail(scan, cwacv1alpha1.ReasonInvalidSpec, err.Error())
		return
	}
	if err := scanjob.CheckImage(scan, r.JobOptions); err != nil {
		r.setCondition(scan, cwacv1alpha1.ConditionAdmitted, metav1.ConditionFalse, cwacv1alpha1.ReasonImageNotAllowed, err.Error())
		r.fail(scan, cwacv1alpha1.ReasonImageNotAllowed, err.Error())
		return
	}
	sites, err := scanspec.Sites(scan)
	if err != nil {
		r.fail(scan, cwacv1alpha1.ReasonInvalidSpec, err.Error())
		return
	}
	if err := scanjob.CheckDefaults(scan, r.JobOptions); err != nil {
		r.setCondition(scan, cwacv1alpha1.ConditionAdmitted, metav1.ConditionFalse, cwacv1alpha1.ReasonNoCWACDefaults, err.Error())
		r.fail(scan, cwacv1alpha1.ReasonNoCWACDefaults, err.Error())
		return
	}
	if r.MaxURLsPerScan > 0 && len(sites) > r.MaxURLsPerScan {
		r.fail(scan, cwacv1alpha1.ReasonTooManyURLs,
			fmt.Sprintf("the scan has %d base URLs; this operator allows at most %d per scan: split it", len(sites), r.MaxURLsPerScan))
		return
	}
	if r.Policy != nil {
		urls := make([]string, len(sites))
		for i, s := range sites {
			urls[i] = s.URL
		}
		timeout := r.Timeout
		if timeout <= 0 {
			timeout = DefaultAdmissionTimeout
		}
		checkCtx, cancel := context.WithTimeout(ctx, timeout)
		denial := r.Policy.CheckAll(checkCtx, urls)
		timedOut := errors.Is(checkCtx.Err(), context.DeadlineExceeded)
		cancel()
		switch {
		case timedOut:
			msg := fmt.Sprintf("checking the scan's %d base URLs against the scan-target policy took longer than %s "+
				"(name lookups or redirect probes did not answer): split the scan or check the sites' DNS", len(urls), timeout)
			r.setCondition(scan, cwacv1alpha1.ConditionAdmitted, metav1.ConditionFalse, cwacv1alpha1.ReasonAdmissionTimedOut, msg)
			r.fail(scan, cwacv1alpha1.ReasonAdmissionTimedOut, msg)
			return
		case ctx.Err() != nil:
			return // the operator is stopping; the scan is checked again after restart
		case denial != nil:
			r.setCondition(scan, cwacv1alpha1.ConditionAdmitted, metav1.ConditionFalse, cwacv1alpha1.ReasonPolicyDenied, denial.Error())
			r.fail(scan, cwacv1alpha1.ReasonPolicyDenied, denial.Error())
			return
		}
	}
	r.setCondition(scan, cwacv1alpha1.ConditionAdmitted, metav1.ConditionTrue, cwacv1alpha1.ReasonURLsAllowed,
		fmt.Sprintf("%d base URLs allowed by the scan-target policy", len(sites)))
}

// SetupWithManager watches CwacScans that still need a verdict.
func (r *AdmissionReconciler) SetupWithManager(mgr ctrl.Manager) error {
	workers := r.Workers
	if workers <= 0 {
		workers = DefaultAdmissionWorkers
	}
	undecided := predicate.NewPredicateFuncs(func(o client.Object) bool {
		scan, ok := o.(*cwacv1alpha1.CwacScan)
		return ok && needsAdmission(scan)
	})
	return ctrl.NewControllerManagedBy(mgr).
		For(&cwacv1alpha1.CwacScan{}, builder.WithPredicates(undecided)).
		Named("cwacscan-admission").
		WithOptions(controller.Options{MaxConcurrentReconciles: workers, SkipNameValidation: &r.SkipNameValidation}).
		Complete(r)
}
