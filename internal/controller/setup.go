package controller

import (
	"context"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanjob"
	"github.com/a11y-dev/cwac-operator/internal/urlcheck"
	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

// CacheByObject limits the manager's cache to the Jobs and pods the operator
// made, so it never holds the cluster's other pods in memory, keeps of a
// finished CwacScan only what the operator reads (slimFinishedScans), so
// its memory does not grow with the scans it has finished, and drops every
// object's managed fields, which it never reads.
func CacheByObject() map[client.Object]cache.ByObject {
	managed := labels.SelectorFromSet(labels.Set{scanjob.LabelManagedBy: scanjob.ManagedByValue})
	stripManagedFields := cache.TransformStripManagedFields()
	return map[client.Object]cache.ByObject{
		&batchv1.Job{}:                   {Label: managed, Transform: stripManagedFields},
		&corev1.Pod{}:                    {Label: managed, Transform: stripManagedFields},
		&cwacv1alpha1.CwacScan{}:         {Transform: slimFinishedScans},
		&cwacv1alpha1.CwacScanSchedule{}: {Transform: stripManagedFields},
	}
}

// Options configure Setup.
type Options struct {
	// JobOptions shape every scan pod.
	JobOptions scanjob.Options
	// MaxConcurrentScans caps running scans across the namespaces the
	// manager's cache covers (--watch-namespaces; 0: no cap).
	MaxConcurrentScans int
	// Policy decides which URLs scans may target (nil: none — tests only).
	Policy *urlpolicy.Policy
	// MaxURLsPerScan refuses larger scans (0: the CRD's limit only).
	MaxURLsPerScan int
	// AdmissionTimeout bounds one scan's URL checks (0: DefaultAdmissionTimeout).
	AdmissionTimeout time.Duration
	// Workers and AdmissionWorkers are the controllers' concurrent reconciles
	// (0: DefaultWorkers and DefaultAdmissionWorkers).
	Workers, AdmissionWorkers int
	// AdmissionURLChecks is how many URLs are checked against the
	// scan-target policy at once, all scans together; one namespace's scans
	// hold at most half of them, one scan at most 8 (0: urlcheck.DefaultChecks).
	AdmissionURLChecks int
	// FinishedJobTTL removes finished scans' Jobs and pods this long after
	// they finished (0: kept).
	FinishedJobTTL time.Duration
	// CleanupTimeout bounds a deleted scan's results cleanup (0: DefaultCleanupTimeout).
	CleanupTimeout time.Duration
	// Now is the clock (tests may replace it).
	Now func() time.Time
	// SkipNameValidation lets tests start several managers in one process.
	SkipNameValidation bool
	// Notify configures the delivery of spec.notifications.
	Notify NotifyOptions
	// Bucket keeps the scans' results, with JobOptions.Bucket (nil: on the claim).
	Bucket ResultsBucket

	// inspect, in tests, is given the scan reconciler Setup built.
	inspect func(*CwacScanReconciler)
}

// Setup wires the admission, scan, schedule, notification and decision
// controllers into mgr.
func Setup(mgr ctrl.Manager, o Options) error {
	if o.JobOptions.Bucket.Enabled() != (o.Bucket != nil) {
		return fmt.Errorf("the results bucket is configured for the scan pods (%v) but not for the operator (%v), or the other way round",
			o.JobOptions.Bucket.Enabled(), o.Bucket != nil)
	}
	status := statusWriter{recorder: mgr.GetEventRecorder("cwac-operator"), now: o.Now}
	// Both controllers hand out new scans' work newest first (arrivals).
	newScans := newArrivals()
	admission := &AdmissionReconciler{
		arrivals:           newScans,
		Client:             mgr.GetClient(),
		statusWriter:       status,
		Policy:             o.Policy,
		MaxURLsPerScan:     o.MaxURLsPerScan,
		JobOptions:         o.JobOptions,
		Timeout:            o.AdmissionTimeout,
		Workers:            o.AdmissionWorkers,
		URLChecks:          urlcheck.Limits{Checks: o.AdmissionURLChecks},
		SkipNameValidation: o.SkipNameValidation,
	}
	if err := admission.SetupWithManager(mgr); err != nil {
		return err
	}
	// A sharded scan runs at most as many pods at once as the cap allows
	// scans: the cap counts pods.
	o.JobOptions.MaxPodsPerScan = o.MaxConcurrentScans
	scans := &CwacScanReconciler{
		arrivals:           newScans,
		Client:             mgr.GetClient(),
		statusWriter:       status,
		APIReader:          mgr.GetAPIReader(),
		Scheme:             mgr.GetScheme(),
		JobOptions:         o.JobOptions,
		Bucket:             o.Bucket,
		FinishedJobTTL:     o.FinishedJobTTL,
		CleanupTimeout:     o.CleanupTimeout,
		Workers:            o.Workers,
		SkipNameValidation: o.SkipNameValidation,
	}
	clock := o.Now
	if clock == nil {
		clock = time.Now
	}
	scans.queue = newQueue(mgr.GetClient(), o.MaxConcurrentScans, clock)
	if o.inspect != nil {
		o.inspect(scans)
	}
	if err := setupSchedules(mgr, o); err != nil {
		return err
	}
	if err := SetupNotifications(mgr, o.Notify, o.Now, o.SkipNameValidation); err != nil {
		return err
	}
	decisions := &DecisionReconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Recorder: mgr.GetEventRecorder("cwac-operator"),
		Now: o.Now, SkipNameValidation: o.SkipNameValidation}
	if err := decisions.SetupWithManager(mgr); err != nil {
		return err
	}
	return scans.SetupWithManager(mgr)
}

// SetupWithManager watches CwacScans, their Jobs and pods. A scan Job's
// event, or a scan that stops waiting (started, ended or deleted), wakes
// exactly the waiting scans the free slots can take: nothing polls.
func (r *CwacScanReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if err := indexFields(context.Background(), mgr); err != nil {
		return err
	}
	workers := r.Workers
	if workers <= 0 {
		workers = DefaultWorkers
	}
	managed := predicate.NewPredicateFuncs(func(o client.Object) bool {
		return o.GetLabels()[scanjob.LabelManagedBy] == scanjob.ManagedByValue
	})
	if r.arrivals == nil {
		r.arrivals = newArrivals()
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(&cwacv1alpha1.CwacScan{}, builder.WithPredicates(predicate.Funcs{
			CreateFunc: func(e event.CreateEvent) bool { return !idleWhenListed(e.Object) },
		})).
		Owns(&batchv1.Job{}).
		Watches(&batchv1.Job{}, handler.EnqueueRequestsFromMapFunc(r.jobChanged), builder.WithPredicates(managed)).
		Watches(&cwacv1alpha1.CwacScan{}, handler.Funcs{UpdateFunc: r.scanStoppedWaiting, DeleteFunc: r.scanDeleted}).
		Watches(&corev1.Pod{}, handler.EnqueueRequestsFromMapFunc(podToScan), builder.WithPredicates(managed)).
		Named("cwacscan").
		WithOptions(controller.Options{
			MaxConcurrentReconciles: workers, SkipNameValidation: &r.SkipNameValidation, NewQueue: newestFirstQueue(r.arrivals),
		}).
		Complete(r)
}

// jobChanged: the cache now shows the Job; if a slot is free, wake the
// oldest waiting scans.
func (r *CwacScanReconciler) jobChanged(ctx context.Context, o client.Object) []reconcile.Request {
	r.queue.observed(types.NamespacedName{Namespace: o.GetNamespace(), Name: o.GetName()})
	return r.queue.next(ctx)
}

// scanDeleted: a waiting scan that goes may have been next in line; the
// versions it was written at are forgotten.
func (r *CwacScanReconciler) scanDeleted(
	ctx context.Context, e event.TypedDeleteEvent[client.Object], q workqueue.TypedRateLimitingInterface[reconcile.Request],
) {
	if e.Object != nil {
		r.writes.forget(client.ObjectKeyFromObject(e.Object))
	}
	for _, req := range r.queue.next(ctx) {
		q.Add(req)
	}
}

func podToScan(_ context.Context, o client.Object) []reconcile.Request {
	name := o.GetAnnotations()[scanjob.AnnotationScanName]
	if name == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: name}}}
}
