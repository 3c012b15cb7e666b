// Package controller reconciles CwacScans into a ConfigMap and a Job that
// runs CWAC, and mirrors the Job's and pod's state back into status. Two
// controllers share the CwacScan: the admission controller checks a new
// scan's URLs (network I/O, on its own workers), and the scan controller
// starts admitted scans under the concurrency cap and follows their Jobs.
package controller

import (
	"context"
	"errors"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/decision"
	"github.com/a11y-dev/cwac-operator/internal/decisionapi"
	"github.com/a11y-dev/cwac-operator/internal/scanjob"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
	"github.com/a11y-dev/cwac-operator/internal/scanspec"
	"github.com/a11y-dev/cwac-operator/internal/scanstatus"
)

// DefaultWorkers is how many scans the scan controller reconciles at once.
// A reconcile spends its time waiting for the API server (a new scan's
// ConfigMap, Job and status are three writes in a row), so workers are
// cheap and many keep a burst moving: in the bench (make bench, latency),
// a burst of 1,000 new scans had its Jobs within 72 s at 4 workers and
// within 10-23 s at 32, and a scan created right after it waited 81 s and
// 4-10 s (two runs on a loaded machine).
const DefaultWorkers = 32

// CwacScanReconciler runs admitted CwacScans as Jobs.
type CwacScanReconciler struct {
	client.Client
	statusWriter
	// arrivals are the new scans whose work goes newest first; a scan
	// leaves them once this controller sees it started, finished or gone.
	arrivals *arrivals
	// APIReader reads straight from the API server, only to confirm that a
	// Job the cache does not have is really gone.
	APIReader client.Reader
	Scheme    *runtime.Scheme
	// JobOptions shape every scan pod.
	JobOptions scanjob.Options
	// Bucket keeps the results when JobOptions.Bucket is set (nil: the claim).
	Bucket ResultsBucket
	// Workers is how many scans are reconciled at once (0: DefaultWorkers).
	Workers int
	// FinishedJobTTL removes a finished scan's Job and pod this long after
	// the scan finished (0: kept); the scan and its status stay.
	FinishedJobTTL time.Duration
	// CleanupTimeout bounds the results cleanup of a deleted scan with
	// resultsPolicy Delete (0: DefaultCleanupTimeout).
	CleanupTimeout time.Duration
	// SkipNameValidation lets tests start several managers in one process.
	SkipNameValidation bool

	queue *queue
	// writes are the scans' versions this process has written over.
	writes ownWrites
}

// +kubebuilder:rbac:groups=cwac.a11y.dev,resources=cwacscans,verbs=get;list;watch;delete
// +kubebuilder:rbac:groups=cwac.a11y.dev,resources=cwacscans/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=cwac.a11y.dev,resources=cwacscans/finalizers,verbs=update
// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=get;list;watch;create;delete
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=create;get
// +kubebuilder:rbac:groups="",resources=secrets,verbs=create;get;update
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch;create;delete
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile moves one CwacScan forward: get → ignore not-found scans and
// versions this process has since written over → finished scans' TTLs →
// finalizer once admitted → defer one status patch (only if changed) →
// ordered steps.
func (r *CwacScanReconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, err error) {
	scan := &cwacv1alpha1.CwacScan{}
	if err := r.Get(ctx, req.NamespacedName, scan); err != nil {
		if apierrors.IsNotFound(err) {
			r.writes.forget(req.NamespacedName)
			r.arrivals.settled(req.NamespacedName)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if scan.Status.JobName != "" || scan.Status.Phase.Finished() || !scan.DeletionTimestamp.IsZero() {
		r.arrivals.settled(req.NamespacedName)
	}
	if r.writes.outdated(scan) {
		return ctrl.Result{}, nil // the event of this process's own write brings the version written
	}
	if !scan.DeletionTimestamp.IsZero() {
		return r.deleteResults(ctx, scan)
	}
	if scan.Status.Phase.Finished() {
		return r.expire(ctx, scan) // a finished scan is never run again
	}
	admitted := meta.IsStatusConditionTrue(scan.Status.Conditions, cwacv1alpha1.ConditionAdmitted)
	if admitted && !cancelRequested(scan) {
		// Before anything can write results, and after admission: the
		// admission controller writes the scan first, from the version
		// this patch would replace.
		if err := r.ensureFinalizer(ctx, scan); err != nil {
			return ctrl.Result{}, err
		}
	}
	patch := beginStatusPatch(scan, scanStatus)
	defer func() {
		before := scan.ResourceVersion
		patch.writeOnReturn(ctx, r.Client, scan, &err)
		r.writes.wrote(scan, before)
	}()
	if cancelRequested(scan) {
		return ctrl.Result{}, r.cancel(ctx, scan)
	}
	if !admitted {
		// The admission controller writes the first status (phase Pending and
		// its verdict); that write wakes this scan again.
		return ctrl.Result{}, nil
	}
	scan.Status.ObservedGeneration = scan.Generation
	var job *batchv1.Job
	if scan.Status.JobName == "" {
		job, err = r.startJob(ctx, scan)
	} else {
		job, err = r.findJob(ctx, scan)
	}
	if err != nil || job == nil {
		return ctrl.Result{}, err
	}
	return r.observeJob(ctx, scan, job)
}

// expire deletes a finished scan once spec.ttlSecondsAfterFinished has
// passed since its completion, removes its Job and pod once FinishedJobTTL
// has, and otherwise wakes it when the next of those is due.
func (r *CwacScanReconciler) expire(ctx context.Context, scan *cwacv1alpha1.CwacScan) (ctrl.Result, error) {
	jobLeft, err := r.removeFinishedJob(ctx, scan)
	if err != nil {
		return ctrl.Result{}, err
	}
	ttl := scan.Spec.TTLSecondsAfterFinished
	if ttl == nil || scan.Status.CompletionTime == nil || scan.DeletionTimestamp != nil {
		return ctrl.Result{RequeueAfter: jobLeft}, nil
	}
	left := scan.Status.CompletionTime.Add(time.Duration(*ttl) * time.Second).Sub(r.clock())
	if left > 0 {
		if jobLeft > 0 && jobLeft < left {
			left = jobLeft
		}
		return ctrl.Result{RequeueAfter: left}, nil // a timer for the one event due, not polling
	}
	if err := r.Delete(ctx, scan, client.PropagationPolicy(metav1.DeletePropagationBackground)); client.IgnoreNotFound(err) != nil {
		return ctrl.Result{}, fmt.Errorf("deleting the expired scan: %w", err)
	}
	return ctrl.Result{}, nil
}

// renderConfig builds the scan's ConfigMap from its spec and gives it the
// decisions that apply in its namespace (addDecisions). A spec the CRD
// accepted but CWAC cannot run ends the scan: Failed=True/InvalidSpec.
func (r *CwacScanReconciler) renderConfig(ctx context.Context, scan *cwacv1alpha1.CwacScan) (*corev1.ConfigMap, error) {
	cm, err := scanjob.ConfigMap(scan, r.JobOptions)
	var invalid *scanjob.InvalidSpecError
	if errors.As(err, &invalid) {
		r.fail(scan, cwacv1alpha1.ReasonInvalidSpec, invalid.Error())
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if err := r.addDecisions(ctx, scan, cm); err != nil {
		return nil, err
	}
	if err := controllerutil.SetControllerReference(scan, cm, r.Scheme); err != nil {
		return nil, fmt.Errorf("owning ConfigMap: %w", err)
	}
	return cm, nil
}

// addDecisions gives the scan the decisions that apply in its namespace as
// it starts (scanpod.DecisionsFile): the scan is judged by the decisions of
// its time. Those that do not fit the ConfigMap are left out, the oldest
// first, with a Warning Event (DecisionsLeftOut); sets no condition.
func (r *CwacScanReconciler) addDecisions(ctx context.Context, scan *cwacv1alpha1.CwacScan, cm *corev1.ConfigMap) error {
	var list cwacv1alpha1.CwacIssueDecisionList
	if err := r.List(ctx, &list, client.InNamespace(scan.Namespace)); err != nil {
		return fmt.Errorf("listing the decisions of %s: %w", scan.Namespace, err)
	}
	applied := make([]decision.Decision, 0, len(list.Items))
	for i := range list.Items {
		// One the API server let through but that cannot be read covers
		// nothing, here as everywhere.
		if d, ok, err := decisionapi.FromObject(&list.Items[i]); err == nil && ok {
			applied = append(applied, d)
		}
	}
	left, err := scanjob.AddDecisions(cm, applied, r.clock())
	if err != nil {
		return fmt.Errorf("giving the scan its decisions: %w", err)
	}
	if left > 0 {
		r.event(scan, corev1.EventTypeWarning, cwacv1alpha1.ReasonDecisionsLeftOut, fmt.Sprintf(
			"%d of the namespace's %d applied decisions did not fit the scan's ConfigMap and do not apply to it (the oldest): "+
				"replace issue decisions by rule decisions", left, len(applied)))
	}
	return nil
}

// startJob starts an admitted scan that has no Job yet: it adopts a Job
// this scan already owns (created before a restart lost the status patch),
// or creates the ConfigMap and Job when the concurrency cap allows
// (Started=True/JobCreated), or queues the scan (Phase Queued,
// Started=False/Queued). Failed=True/InvalidSpec, JobConflict or
// ConfigMapConflict when the Job cannot be made.
func (r *CwacScanReconciler) startJob(ctx context.Context, scan *cwacv1alpha1.CwacScan) (*batchv1.Job, error) {
	key := types.NamespacedName{Namespace: scan.Namespace, Name: scanspec.JobName(scan)}
	job := &batchv1.Job{}
	switch err := r.Get(ctx, key, job); {
	case err == nil:
		return r.adopt(scan, job), nil
	case !apierrors.IsNotFound(err):
		return nil, fmt.Errorf("getting Job %s: %w", key.Name, err)
	}
	cm, err := r.renderConfig(ctx, scan)
	if err != nil || cm == nil {
		return nil, err
	}
	baseline, err := r.resolveBaseline(ctx, scan)
	if err != nil {
		return nil, err
	}

	ok, err := r.queue.reserve(ctx, scan)
	if err != nil {
		return nil, fmt.Errorf("counting running scans: %w", err)
	}
	if !ok {
		msg := fmt.Sprintf("waiting for a free slot: at most %d scans run at once", r.queue.max)
		r.setPhase(scan, cwacv1alpha1.PhaseQueued, cwacv1alpha1.ReasonQueued, msg)
		r.setCondition(scan, cwacv1alpha1.ConditionStarted, metav1.ConditionFalse, cwacv1alpha1.ReasonQueued, msg)
		return nil, nil // a freed slot wakes the oldest waiting scans
	}
	job, err = r.createJob(ctx, scan, cm, baseline)
	if err != nil || job == nil {
		r.queue.release(scan)
	}
	return job, err
}

// createJob creates the ConfigMap and the Job (Started=True/JobCreated).
// A ConfigMap of that name that exists already is used only when this scan
// owns it (made before a restart); another's ends the scan
// Failed=True/ConfigMapConflict and is left as it is, as a Job of another
// owner is (JobConflict).
func (r *CwacScanReconciler) createJob(ctx context.Context, scan *cwacv1alpha1.CwacScan, cm *corev1.ConfigMap,
	baseline scanjob.Baseline) (*batchv1.Job, error) {
	if err := r.Create(ctx, cm); err != nil {
		if !apierrors.IsAlreadyExists(err) {
			return nil, fmt.Errorf("creating ConfigMap: %w", err)
		}
		own, err := r.ownsConfigMap(ctx, scan, cm.Name)
		if err != nil {
			return nil, err
		}
		if !own {
			r.fail(scan, cwacv1alpha1.ReasonConfigMapConflict, fmt.Sprintf("ConfigMap %s exists and does not belong to this scan", cm.Name))
			return nil, nil
		}
	}
	if r.Bucket != nil {
		if ok, err := r.createGrant(ctx, scan, baseline); err != nil || !ok {
			return nil, err
		}
	}
	job := scanjob.Job(scan, r.JobOptions, baseline)
	if err := controllerutil.SetControllerReference(scan, job, r.Scheme); err != nil {
		return nil, fmt.Errorf("owning Job: %w", err)
	}
	err := r.Create(ctx, job)
	switch {
	case err == nil:
		r.markStarted(scan, job)
		return job, nil
	case apierrors.IsAlreadyExists(err): // the cache lagged a Job made before a restart
		existing := &batchv1.Job{}
		if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(job), existing); err != nil {
			return nil, fmt.Errorf("getting Job %s: %w", job.Name, err)
		}
		return r.adopt(scan, existing), nil
	case apierrors.IsInvalid(err):
		r.fail(scan, cwacv1alpha1.ReasonInvalidSpec, fmt.Sprintf("the scan's Job was refused: %v", err))
		return nil, nil
	default:
		return nil, fmt.Errorf("creating Job: %w", err)
	}
}

// ownsConfigMap reads the ConfigMap of that name, which exists, straight
// from the API server (the operator caches no ConfigMaps) and says whether
// the scan controls it.
func (r *CwacScanReconciler) ownsConfigMap(ctx context.Context, scan *cwacv1alpha1.CwacScan, name string) (bool, error) {
	existing := &corev1.ConfigMap{}
	if err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: scan.Namespace, Name: name}, existing); err != nil {
		return false, fmt.Errorf("getting ConfigMap %s: %w", name, err)
	}
	return metav1.IsControlledBy(existing, scan), nil
}

// adopt takes over the scan's existing Job, or ends the scan
// Failed=True/JobConflict when a Job of that name belongs to something else.
func (r *CwacScanReconciler) adopt(scan *cwacv1alpha1.CwacScan, job *batchv1.Job) *batchv1.Job {
	if !metav1.IsControlledBy(job, scan) {
		r.fail(scan, cwacv1alpha1.ReasonJobConflict, fmt.Sprintf("Job %s exists and does not belong to this scan", job.Name))
		return nil
	}
	r.markStarted(scan, job)
	return job
}

// findJob returns the Job a started scan recorded. A Job that is gone before
// the scan finished fails it (Failed=True/JobDeleted).
func (r *CwacScanReconciler) findJob(ctx context.Context, scan *cwacv1alpha1.CwacScan) (*batchv1.Job, error) {
	key := types.NamespacedName{Namespace: scan.Namespace, Name: scan.Status.JobName}
	job := &batchv1.Job{}
	err := r.Get(ctx, key, job)
	if err == nil {
		return job, nil
	}
	if !apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("getting Job %s: %w", key.Name, err)
	}
	if r.queue.pending(key) {
		return nil, nil // created moments ago: the Job's own event brings it
	}
	// The cache says it is gone: confirm before ending the scan.
	if err := r.APIReader.Get(ctx, key, job); err == nil {
		return job, nil
	} else if !apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("getting Job %s: %w", key.Name, err)
	}
	r.fail(scan, cwacv1alpha1.ReasonJobDeleted, fmt.Sprintf("Job %s was deleted before the scan finished", scan.Status.JobName))
	return nil, nil
}

// markStarted records the scan's Job: Started=True/JobCreated.
func (r *CwacScanReconciler) markStarted(scan *cwacv1alpha1.CwacScan, job *batchv1.Job) {
	scan.Status.JobName = job.Name
	if scan.Status.StartTime == nil {
		t := job.CreationTimestamp
		if t.IsZero() {
			t = metav1.NewTime(r.clock())
		}
		scan.Status.StartTime = &t
	}
	scan.Status.ResultsPath = scanspec.ScanDir(scan)
	msg := fmt.Sprintf("created Job %s", job.Name)
	r.setCondition(scan, cwacv1alpha1.ConditionStarted, metav1.ConditionTrue, cwacv1alpha1.ReasonJobCreated, msg)
	r.setPhase(scan, cwacv1alpha1.PhasePending, cwacv1alpha1.ReasonJobCreated, msg)
}

// observeJob mirrors the Job and its pod into status: Running when CWAC runs;
// Degraded=True while the pod is stuck waiting (image pull, config error);
// Complete or Failed with the reason when the Job ends, once the pod's
// termination has reached the cache (podSettling).
func (r *CwacScanReconciler) observeJob(ctx context.Context, scan *cwacv1alpha1.CwacScan, job *batchv1.Job) (ctrl.Result, error) {
	if sharded(scan) {
		return r.observeShards(ctx, scan, job)
	}
	pod, err := r.scanPod(ctx, job)
	if err != nil {
		return ctrl.Result{}, err
	}
	if cond, finished := jobFinished(job); finished {
		if wait := podSettling(cond, pod, r.clock()); wait > 0 {
			return ctrl.Result{RequeueAfter: wait}, nil
		}
		r.writeEnding(scan, scanstatus.End(observedEnd(scan, job, cond, pod)))
		return ctrl.Result{}, nil
	}
	r.observePod(scan, pod, scanpod.ContainerName)
	return ctrl.Result{}, nil
}

// observePod mirrors a running scan pod (or the merge pod, by its
// container's name) into status: Degraded=True with the kubelet's reason
// while it is stuck waiting (a Warning Event when that reason is new),
// Degraded=False/PodHealthy when it no longer is, phase Running once the
// scan container runs.
func (r *CwacScanReconciler) observePod(scan *cwacv1alpha1.CwacScan, pod *corev1.Pod, container string) {
	if pod == nil {
		return
	}
	if reason, msg := stuckReason(pod); reason != "" {
		if prev := meta.FindStatusCondition(scan.Status.Conditions, cwacv1alpha1.ConditionDegraded); prev == nil || prev.Status != metav1.ConditionTrue ||
			prev.Reason != reason {
			r.event(scan, corev1.EventTypeWarning, reason, msg)
		}
		r.setCondition(scan, cwacv1alpha1.ConditionDegraded, metav1.ConditionTrue, reason, msg)
		scan.Status.Message = msg
		return
	}
	if meta.IsStatusConditionTrue(scan.Status.Conditions, cwacv1alpha1.ConditionDegraded) {
		r.setCondition(scan, cwacv1alpha1.ConditionDegraded, metav1.ConditionFalse, cwacv1alpha1.ReasonPodHealthy, "the scan pod is no longer waiting")
	}
	if container != scanpod.ContainerName {
		return
	}
	if c := containerStatus(pod, container); c != nil && c.State.Running != nil {
		if scan.Status.Phase != cwacv1alpha1.PhaseRunning {
			r.setPhase(scan, cwacv1alpha1.PhaseRunning, cwacv1alpha1.ReasonRunning, fmt.Sprintf("CWAC is running in pod %s", pod.Name))
		}
	}
}
