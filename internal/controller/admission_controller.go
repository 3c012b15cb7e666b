package controller

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/source"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanjob"
	"github.com/a11y-dev/cwac-operator/internal/scanspec"
	"github.com/a11y-dev/cwac-operator/internal/urlcheck"
	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

// DefaultAdmissionTimeout bounds the scan-target checks of one scan (name
// lookups and redirect probes of all its URLs).
const DefaultAdmissionTimeout = 2 * time.Minute

// DefaultAdmissionWorkers is how many scans are admitted at once. An
// admission never waits for the network: the URL checks run in the
// admission's pool of checks (AdmissionReconciler.URLChecks); it waits
// only for the API server to take its status write, so, as the scan
// controller's (DefaultWorkers), many keep a burst of new scans moving.
const DefaultAdmissionWorkers = 32

// AdmissionReconciler decides whether a new scan may run: its spec, its
// image and its URLs against the scan-target policy. The URL checks do
// network I/O (name lookups, redirect probes), so they run in a pool of
// their own, shared fairly across namespaces and then across scans
// (internal/urlcheck): a scan whose URLs are slow to check delays only
// itself, never another scan's admission nor the reconciler that starts
// and watches Jobs. A scan waiting for its checks holds no worker; the
// pool wakes it when its verdict is known.
type AdmissionReconciler struct {
	client.Client
	statusWriter
	// arrivals numbers new scans, whose work goes newest first.
	arrivals *arrivals
	// Policy decides which URLs scans may target (nil: every URL is allowed — tests only).
	Policy *urlpolicy.Policy
	// MaxURLsPerScan refuses larger scans (0: the CRD's limit only).
	MaxURLsPerScan int
	// JobOptions are the scan pods' settings; admission refuses a scan that
	// would have no CWAC defaults (scanjob.CheckDefaults).
	JobOptions scanjob.Options
	// Timeout bounds one scan's checks (0: DefaultAdmissionTimeout).
	Timeout time.Duration
	// Workers is how many scans are admitted at once (0: DefaultAdmissionWorkers).
	Workers int
	// URLChecks bound the URL checks in flight (zero: urlcheck's defaults).
	URLChecks urlcheck.Limits
	// SkipNameValidation lets tests start several managers in one process.
	SkipNameValidation bool

	checks *urlcheck.Pool
	// wake carries the scans whose URL checks have a verdict.
	wake chan event.GenericEvent
}

// Reconcile admits one scan: get → forget scans gone or already decided →
// the verdict (waiting, without a worker, while its URLs are checked) →
// phase Pending and the verdict, in one status patch. It is the first to
// write a new scan's status; the scan controller waits for its verdict.
func (r *AdmissionReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	scan := &cwacv1alpha1.CwacScan{}
	if err := r.Get(ctx, req.NamespacedName, scan); err != nil {
		if apierrors.IsNotFound(err) {
			r.forgetChecks(req.NamespacedName)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !needsAdmission(scan) {
		r.forgetChecks(req.NamespacedName)
		return ctrl.Result{}, nil
	}
	verdict, known := r.judge(scan)
	if !known {
		return ctrl.Result{}, nil // the pool wakes the scan when its URLs are checked
	}
	patch := beginStatusPatch(scan, scanStatus)
	scan.Status.ObservedGeneration = scan.Generation
	if scan.Status.Phase == "" {
		r.setPhase(scan, cwacv1alpha1.PhasePending, cwacv1alpha1.ReasonPending, "scan accepted")
	}
	r.record(scan, verdict)
	if err := patch.write(ctx, r.Client, scan); err != nil {
		return ctrl.Result{}, err // the verdict is kept for the retry
	}
	r.forgetChecks(req.NamespacedName)
	return ctrl.Result{}, nil
}

// needsAdmission: a scan not yet decided, not finished, not cancelled, not being deleted.
func needsAdmission(scan *cwacv1alpha1.CwacScan) bool {
	return scan.DeletionTimestamp == nil && !scan.Status.Phase.Finished() && !cancelRequested(scan) &&
		meta.FindStatusCondition(scan.Status.Conditions, cwacv1alpha1.ConditionAdmitted) == nil
}

// admission is a scan's verdict: Admitted=True (reason URLsAllowed), or a
// refusal that fails the scan, with Admitted=False when admitted is False
// and no Admitted condition when it is empty.
type admission struct {
	admitted        metav1.ConditionStatus
	reason, message string
}

// record writes the verdict into the scan's status.
func (r *AdmissionReconciler) record(scan *cwacv1alpha1.CwacScan, a admission) {
	if a.admitted != "" {
		r.setCondition(scan, cwacv1alpha1.ConditionAdmitted, a.admitted, a.reason, a.message)
	}
	if a.admitted != metav1.ConditionTrue {
		r.fail(scan, a.reason, a.message)
	}
}

// judge checks the spec and every URL before anything runs:
// Admitted=True/URLsAllowed, or the scan ends Failed=True with InvalidSpec
// (first: configOverrides past their bounds or setting an owned key),
// ImageNotAllowed (spec.image not in the operator's allow-list;
// Admitted=False too), PolicyDenied (naming the URL and the
// rule; Admitted=False too), TooManyURLs, NoCWACDefaults (the
// scan would run an image declared without CWAC's defaults and the operator
// has none; Admitted=False too), or AdmissionTimedOut when the checks take
// longer than the budget. known is false while the URLs are being checked.
// Spec is immutable, so the verdict is recorded once and never re-checked.
func (r *AdmissionReconciler) judge(scan *cwacv1alpha1.CwacScan) (verdict admission, known bool) {
	refused := func(reason, msg string) (admission, bool) { return admission{reason: reason, message: msg}, true }
	notAdmitted := func(reason, msg string) (admission, bool) {
		return admission{admitted: metav1.ConditionFalse, reason: reason, message: msg}, true
	}
	// First, before anything decodes or renders them: the free-form
	// overrides' bounds, which the CRD cannot check.
	if err := scanjob.CheckConfigOverrides(scan); err != nil {
		return refused(cwacv1alpha1.ReasonInvalidSpec, err.Error())
	}
	if err := scanjob.CheckImage(scan, r.JobOptions); err != nil {
		return notAdmitted(cwacv1alpha1.ReasonImageNotAllowed, err.Error())
	}
	sites, err := scanspec.Sites(scan)
	if err != nil {
		return refused(cwacv1alpha1.ReasonInvalidSpec, err.Error())
	}
	if err := scanjob.CheckDefaults(scan, r.JobOptions); err != nil {
		return notAdmitted(cwacv1alpha1.ReasonNoCWACDefaults, err.Error())
	}
	if r.MaxURLsPerScan > 0 && len(sites) > r.MaxURLsPerScan {
		return refused(cwacv1alpha1.ReasonTooManyURLs,
			fmt.Sprintf("the scan has %d base URLs; this operator allows at most %d per scan: split it", len(sites), r.MaxURLsPerScan))
	}
	if r.Policy != nil {
		key := urlcheck.Scan{Namespace: scan.Namespace, Name: scan.Name, UID: string(scan.UID)}
		v, ok := r.checks.Verdict(key)
		if !ok {
			urls := make([]string, len(sites))
			for i, s := range sites {
				urls[i] = s.URL
			}
			r.checks.Submit(key, urls, r.timeout())
			return admission{}, false
		}
		switch {
		case v.TimedOut:
			return notAdmitted(cwacv1alpha1.ReasonAdmissionTimedOut, fmt.Sprintf(
				"checking the scan's %d base URLs against the scan-target policy took longer than %s "+
					"(name lookups or redirect probes did not answer): split the scan or check the sites' DNS", len(sites), r.timeout()))
		case v.Denial != nil:
			return notAdmitted(cwacv1alpha1.ReasonPolicyDenied, v.Denial.Error())
		}
	}
	return admission{admitted: metav1.ConditionTrue, reason: cwacv1alpha1.ReasonURLsAllowed,
		message: fmt.Sprintf("%d base URLs allowed by the scan-target policy", len(sites))}, true
}

func (r *AdmissionReconciler) timeout() time.Duration {
	if r.Timeout <= 0 {
		return DefaultAdmissionTimeout
	}
	return r.Timeout
}

// forgetChecks drops what the pool holds for the scan of that name.
func (r *AdmissionReconciler) forgetChecks(name types.NamespacedName) {
	if r.checks != nil {
		r.checks.Forget(urlcheck.Scan{Namespace: name.Namespace, Name: name.Name})
	}
}

// wakeScan is the pool's notice that a scan's URL checks have a verdict.
func (r *AdmissionReconciler) wakeScan(s urlcheck.Scan) {
	r.wake <- event.GenericEvent{Object: &cwacv1alpha1.CwacScan{ObjectMeta: metav1.ObjectMeta{Namespace: s.Namespace, Name: s.Name}}}
}

// SetupWithManager watches CwacScans that still need a verdict, and runs
// the pool of URL checks (on the leader, with the controllers).
func (r *AdmissionReconciler) SetupWithManager(mgr ctrl.Manager) error {
	workers := r.Workers
	if workers <= 0 {
		workers = DefaultAdmissionWorkers
	}
	r.wake = make(chan event.GenericEvent, 1024)
	if r.Policy != nil {
		r.checks = urlcheck.New(r.Policy.CheckURL, r.URLChecks, r.wakeScan)
		if err := mgr.Add(manager.RunnableFunc(r.checks.Run)); err != nil {
			return err
		}
	}
	undecided := predicate.NewPredicateFuncs(func(o client.Object) bool {
		scan, ok := scanOf(o)
		return ok && needsAdmission(scan)
	})
	if r.arrivals == nil {
		r.arrivals = newArrivals()
	}
	return ctrl.NewControllerManagedBy(mgr).
		Named("cwacscan-admission").
		Watches(&cwacv1alpha1.CwacScan{}, r.arrivals.numbering(), builder.WithPredicates(undecided)).
		WatchesRawSource(source.Channel(r.wake, &handler.EnqueueRequestForObject{})).
		WithOptions(controller.Options{
			MaxConcurrentReconciles: workers, SkipNameValidation: &r.SkipNameValidation, NewQueue: newestFirstQueue(r.arrivals),
		}).
		Complete(r)
}
