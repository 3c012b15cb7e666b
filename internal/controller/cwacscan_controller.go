// Package controller reconciles CwacScans into a ConfigMap and a Job that
// runs CWAC, and mirrors the Job's and pod's state back into status.
package controller

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/cwac"
	"github.com/a11y-dev/cwac-operator/internal/scanjob"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
	"github.com/a11y-dev/cwac-operator/internal/scanstatus"
	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

// QueueRecheckInterval is how often a queued scan looks for a free slot even
// without an event (events normally wake it sooner).
const QueueRecheckInterval = 15 * time.Second

// CwacScanReconciler runs CwacScans as Jobs.
type CwacScanReconciler struct {
	client.Client
	// APIReader reads straight from the API server, for decisions a stale
	// cache must not make: counting running scans, and concluding a Job is gone.
	APIReader client.Reader
	Scheme    *runtime.Scheme
	Recorder  events.EventRecorder
	// JobOptions shape every scan pod.
	JobOptions scanjob.Options
	// MaxConcurrentScans caps running scans across the watched namespaces (0 = no cap).
	MaxConcurrentScans int
	// WatchNamespaces limits the operator to these namespaces (empty = all);
	// running scans are then counted per namespace, within RBAC.
	WatchNamespaces []string
	// Policy decides which URLs scans may target (nil: no policy — tests only).
	Policy *urlpolicy.Policy
	// MaxURLsPerScan refuses larger scans (0: the CRD's limit only).
	MaxURLsPerScan int
	// Now is the clock (tests may replace it).
	Now func() time.Time
	// SkipNameValidation lets tests start several managers in one process.
	SkipNameValidation bool
}

// +kubebuilder:rbac:groups=cwac.a11y.dev,resources=cwacscans,verbs=get;list;watch
// +kubebuilder:rbac:groups=cwac.a11y.dev,resources=cwacscans/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=cwac.a11y.dev,resources=cwacscans/finalizers,verbs=update
// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=get;list;watch;create
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=create
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile moves one CwacScan forward: get → ignore not-found → defer one
// status patch → ordered steps.
func (r *CwacScanReconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, err error) {
	log := logf.FromContext(ctx)
	scan := &cwacv1alpha1.CwacScan{}
	if err := r.Get(ctx, req.NamespacedName, scan); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if scan.Status.Phase.Finished() {
		return ctrl.Result{}, nil // a finished scan is never run again
	}
	original := scan.DeepCopy()
	defer func() {
		if equality.Semantic.DeepEqual(original.Status, scan.Status) {
			return
		}
		if perr := r.Status().Patch(ctx, scan, client.MergeFrom(original)); perr != nil {
			log.Error(perr, "patching status")
			err = errors.Join(err, fmt.Errorf("patching status: %w", perr))
		}
	}()
	scan.Status.ObservedGeneration = scan.Generation
	if scan.Status.Phase == "" {
		r.setPhase(scan, cwacv1alpha1.PhasePending, cwacv1alpha1.ReasonPending, "scan accepted")
	}

	// The ConfigMap and the policy check matter only until the Job exists:
	// not on every pod update of a running scan.
	var cm *corev1.ConfigMap
	if scan.Status.JobName == "" {
		if cm, err = r.renderConfig(scan); err != nil || cm == nil {
			return ctrl.Result{}, err
		}
		if !r.admitURLs(ctx, scan) {
			return ctrl.Result{}, nil
		}
	}
	job, requeue, err := r.ensureJob(ctx, scan, cm)
	if err != nil || job == nil {
		return requeue, err
	}
	return r.observeJob(ctx, scan, job)
}

// renderConfig builds the scan's ConfigMap from its spec. A spec the CRD
// accepted but CWAC cannot run ends the scan: Failed=True/InvalidSpec.
func (r *CwacScanReconciler) renderConfig(scan *cwacv1alpha1.CwacScan) (*corev1.ConfigMap, error) {
	cm, err := scanjob.ConfigMap(scan)
	var invalid *scanjob.InvalidSpecError
	if errors.As(err, &invalid) {
		r.fail(scan, cwacv1alpha1.ReasonInvalidSpec, invalid.Error())
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if err := controllerutil.SetControllerReference(scan, cm, r.Scheme); err != nil {
		return nil, fmt.Errorf("owning ConfigMap: %w", err)
	}
	return cm, nil
}

// admitURLs checks every URL against the scan-target policy before anything
// runs: Admitted=True/URLsAllowed, or the scan ends Failed=True/PolicyDenied
// (naming the URL and the rule) or Failed=True/TooManyURLs. Spec is
// immutable, so the verdict is recorded once and not re-checked.
func (r *CwacScanReconciler) admitURLs(ctx context.Context, scan *cwacv1alpha1.CwacScan) bool {
	if meta.IsStatusConditionTrue(scan.Status.Conditions, cwacv1alpha1.ConditionAdmitted) {
		return true
	}
	sites, err := scanjob.Sites(scan)
	if err != nil {
		r.fail(scan, cwacv1alpha1.ReasonInvalidSpec, err.Error())
		return false
	}
	if r.MaxURLsPerScan > 0 && len(sites) > r.MaxURLsPerScan {
		r.fail(scan, cwacv1alpha1.ReasonTooManyURLs, fmt.Sprintf("the scan has %d base URLs; this operator allows at most %d per scan: split it", len(sites), r.MaxURLsPerScan))
		return false
	}
	if r.Policy != nil {
		urls := make([]string, len(sites))
		for i, s := range sites {
			urls[i] = s.URL
		}
		if d := r.Policy.CheckAll(ctx, urls); d != nil {
			r.setCondition(scan, cwacv1alpha1.ConditionAdmitted, metav1.ConditionFalse, cwacv1alpha1.ReasonPolicyDenied, d.Error())
			r.fail(scan, cwacv1alpha1.ReasonPolicyDenied, d.Error())
			return false
		}
	}
	r.setCondition(scan, cwacv1alpha1.ConditionAdmitted, metav1.ConditionTrue, cwacv1alpha1.ReasonURLsAllowed, fmt.Sprintf("%d base URLs allowed by the scan-target policy", len(sites)))
	return true
}

// ensureJob finds the scan's Job, or starts one from cm (nil only once the
// scan has recorded its Job) when the concurrency cap allows
// (Started=True/JobCreated), or queues the scan (Started=False/Queued).
// A Job that vanished before the scan finished fails it (Failed=True/JobDeleted).
func (r *CwacScanReconciler) ensureJob(ctx context.Context, scan *cwacv1alpha1.CwacScan, cm *corev1.ConfigMap) (*batchv1.Job, ctrl.Result, error) {
	name := scanjob.JobName(scan)
	key := types.NamespacedName{Namespace: scan.Namespace, Name: name}
	job := &batchv1.Job{}
	err := r.Get(ctx, key, job)
	if apierrors.IsNotFound(err) {
		// The cache may lag a Job created moments ago: ask the API server.
		err = r.APIReader.Get(ctx, key, job)
	}
	switch {
	case err == nil:
		if !metav1.IsControlledBy(job, scan) {
			r.fail(scan, cwacv1alpha1.ReasonJobConflict, fmt.Sprintf("Job %s exists and does not belong to this scan", name))
			return nil, ctrl.Result{}, nil
		}
		if scan.Status.JobName == "" { // created before a restart lost the status patch
			r.markStarted(scan, job)
		}
		return job, ctrl.Result{}, nil
	case !apierrors.IsNotFound(err):
		return nil, ctrl.Result{}, fmt.Errorf("getting Job %s: %w", name, err)
	}

	if scan.Status.JobName != "" {
		r.fail(scan, cwacv1alpha1.ReasonJobDeleted, fmt.Sprintf("Job %s was deleted before the scan finished", scan.Status.JobName))
		return nil, ctrl.Result{}, nil
	}

	position, running, err := r.queuePosition(ctx, scan)
	if err != nil {
		return nil, ctrl.Result{}, err
	}
	if r.MaxConcurrentScans > 0 && running+position >= r.MaxConcurrentScans {
		msg := fmt.Sprintf("waiting for a free slot: %d of %d scans running, %d queued ahead", running, r.MaxConcurrentScans, position)
		if scan.Status.Phase != cwacv1alpha1.PhaseQueued {
			r.setPhase(scan, cwacv1alpha1.PhaseQueued, cwacv1alpha1.ReasonQueued, msg)
		}
		scan.Status.Message = msg
		r.setCondition(scan, cwacv1alpha1.ConditionStarted, metav1.ConditionFalse, cwacv1alpha1.ReasonQueued, msg)
		return nil, ctrl.Result{RequeueAfter: QueueRecheckInterval}, nil
	}

	if err := r.Create(ctx, cm); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, ctrl.Result{}, fmt.Errorf("creating ConfigMap: %w", err)
	}
	job = scanjob.Job(scan, r.JobOptions)
	if err := controllerutil.SetControllerReference(scan, job, r.Scheme); err != nil {
		return nil, ctrl.Result{}, fmt.Errorf("owning Job: %w", err)
	}
	if err := r.Create(ctx, job); err != nil {
		if apierrors.IsAlreadyExists(err) {
			return nil, ctrl.Result{Requeue: true}, nil // adopt it on the next pass
		}
		if apierrors.IsInvalid(err) {
			r.fail(scan, cwacv1alpha1.ReasonInvalidSpec, fmt.Sprintf("the scan's Job was refused: %v", err))
			return nil, ctrl.Result{}, nil
		}
		return nil, ctrl.Result{}, fmt.Errorf("creating Job: %w", err)
	}
	r.markStarted(scan, job)
	return job, ctrl.Result{}, nil
}

func (r *CwacScanReconciler) markStarted(scan *cwacv1alpha1.CwacScan, job *batchv1.Job) {
	scan.Status.JobName = job.Name
	if scan.Status.StartTime == nil {
		t := job.CreationTimestamp
		if t.IsZero() {
			t = metav1.NewTime(r.now())
		}
		scan.Status.StartTime = &t
	}
	scan.Status.ResultsPath = scanjob.ScanDir(scan)
	msg := fmt.Sprintf("created Job %s", job.Name)
	r.setCondition(scan, cwacv1alpha1.ConditionStarted, metav1.ConditionTrue, cwacv1alpha1.ReasonJobCreated, msg)
	if scan.Status.Phase == cwacv1alpha1.PhasePending {
		scan.Status.Message = msg
		r.event(scan, corev1.EventTypeNormal, cwacv1alpha1.ReasonJobCreated, msg)
	} else {
		r.setPhase(scan, cwacv1alpha1.PhasePending, cwacv1alpha1.ReasonJobCreated, msg)
	}
}

// queuePosition counts running scan Jobs (from the API server, not the cache)
// and how many not-yet-started scans are ahead of this one, oldest first.
func (r *CwacScanReconciler) queuePosition(ctx context.Context, scan *cwacv1alpha1.CwacScan) (position, running int, err error) {
	if r.MaxConcurrentScans <= 0 {
		return 0, 0, nil
	}
	namespaces := r.WatchNamespaces
	if len(namespaces) == 0 {
		namespaces = []string{metav1.NamespaceAll}
	}
	for _, ns := range namespaces {
		jobs := &batchv1.JobList{}
		if err := r.APIReader.List(ctx, jobs, client.InNamespace(ns), client.MatchingLabels{scanjob.LabelManagedBy: scanjob.ManagedByValue}); err != nil {
			return 0, 0, fmt.Errorf("listing scan Jobs: %w", err)
		}
		for i := range jobs.Items {
			if _, finished := jobFinished(&jobs.Items[i]); !finished {
				running++
			}
		}
	}
	scans := &cwacv1alpha1.CwacScanList{}
	if err := r.List(ctx, scans); err != nil {
		return 0, 0, fmt.Errorf("listing scans: %w", err)
	}
	var waiting []cwacv1alpha1.CwacScan
	for _, s := range scans.Items {
		if s.Status.JobName == "" && !s.Status.Phase.Finished() && s.DeletionTimestamp == nil {
			waiting = append(waiting, s)
		}
	}
	sort.Slice(waiting, func(i, j int) bool { return olderFirst(&waiting[i], &waiting[j]) })
	for _, s := range waiting {
		if s.UID == scan.UID {
			break
		}
		position++
	}
	return position, running, nil
}

func olderFirst(a, b *cwacv1alpha1.CwacScan) bool {
	if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return a.CreationTimestamp.Before(&b.CreationTimestamp)
	}
	if a.Namespace != b.Namespace {
		return a.Namespace < b.Namespace
	}
	return a.Name < b.Name
}

// observeJob mirrors the Job and its pod into status: Running when CWAC runs;
// Degraded=True while the pod is stuck waiting (image pull, config error);
// Complete or Failed with the reason when the Job ends.
func (r *CwacScanReconciler) observeJob(ctx context.Context, scan *cwacv1alpha1.CwacScan, job *batchv1.Job) (ctrl.Result, error) {
	pod, err := r.scanPod(ctx, job)
	if err != nil {
		return ctrl.Result{}, err
	}
	if cond, finished := jobFinished(job); finished {
		r.finish(scan, job, cond, pod)
		return ctrl.Result{}, nil
	}
	if pod == nil {
		return ctrl.Result{}, nil
	}
	if reason, msg := stuckReason(pod); reason != "" {
		if prev := meta.FindStatusCondition(scan.Status.Conditions, cwacv1alpha1.ConditionDegraded); prev == nil || prev.Status != metav1.ConditionTrue || prev.Reason != reason {
			r.event(scan, corev1.EventTypeWarning, reason, msg)
		}
		r.setCondition(scan, cwacv1alpha1.ConditionDegraded, metav1.ConditionTrue, reason, msg)
		scan.Status.Message = msg
		return ctrl.Result{}, nil
	}
	if meta.IsStatusConditionTrue(scan.Status.Conditions, cwacv1alpha1.ConditionDegraded) {
		r.setCondition(scan, cwacv1alpha1.ConditionDegraded, metav1.ConditionFalse, cwacv1alpha1.ReasonPodHealthy, "the scan pod is no longer waiting")
	}
	if c := containerStatus(pod, scanpod.ContainerName); c != nil && c.State.Running != nil {
		if scan.Status.Phase != cwacv1alpha1.PhaseRunning {
			r.setPhase(scan, cwacv1alpha1.PhaseRunning, cwacv1alpha1.ReasonRunning, fmt.Sprintf("CWAC is running in pod %s", pod.Name))
		}
	}
	return ctrl.Result{}, nil
}

// finish ends the scan from the Job's final condition and the pod's
// termination report: Complete=True/Succeeded (with AllSitesScanned), or
// Failed=True with DeadlineExceeded, OOMKilled, CWACExitedNonZero,
// NoPagesScanned, RunnerError, ImagePullBackOff or JobFailed.
func (r *CwacScanReconciler) finish(scan *cwacv1alpha1.CwacScan, job *batchv1.Job, cond batchv1.JobCondition, pod *corev1.Pod) {
	var term *corev1.ContainerStateTerminated
	if c := containerStatus(pod, scanpod.ContainerName); c != nil {
		term = c.State.Terminated
		if term == nil {
			term = c.LastTerminationState.Terminated
		}
	}
	var report scanpod.Report
	var haveReport bool
	if term != nil {
		code := term.ExitCode
		scan.Status.ExitCode = &code
		report, haveReport = scanpod.Decode(term.Message)
		if haveReport && report.ResultsDir != "" {
			scan.Status.ResultsPath = scanjob.ScanDir(scan) + "/" + report.ResultsDir
		}
		if haveReport && report.Summary != nil {
			scan.Status.Summary = scanstatus.ToAPI(report.Summary)
		}
	}

	if cond.Type == batchv1.JobComplete {
		switch {
		case !haveReport:
			r.complete(scan, "CWAC finished, but its report could not be read (the scan pod is gone or wrote none)")
		case report.Outcome == scanpod.OutcomeNoPages:
			r.fail(scan, cwacv1alpha1.ReasonNoPagesScanned, report.Message)
		default:
			r.complete(scan, report.Message)
		}
		return
	}

	// The Job failed.
	switch {
	case cond.Reason == batchv1.JobReasonDeadlineExceeded:
		msg := fmt.Sprintf("the scan ran past its %s timeout and was stopped", scanjob.Timeout(scan))
		if c := meta.FindStatusCondition(scan.Status.Conditions, cwacv1alpha1.ConditionDegraded); c != nil && c.Status == metav1.ConditionTrue {
			msg += "; its pod never started: " + c.Message
		}
		r.fail(scan, cwacv1alpha1.ReasonDeadlineExceeded, msg)
	case term != nil && term.Reason == cwacv1alpha1.ReasonOOMKilled:
		r.fail(scan, cwacv1alpha1.ReasonOOMKilled, fmt.Sprintf("CWAC ran out of memory (limit %s): raise spec.resources.limits.memory or lower spec.threadCount", memoryLimit(pod)))
	case haveReport && report.Outcome == scanpod.OutcomeRunnerError:
		r.fail(scan, cwacv1alpha1.ReasonRunnerError, report.Message)
	case haveReport:
		r.failCWAC(scan, report.ExitCode, report.StderrTail)
	case term != nil: // no report: the kubelet put the log's tail in its place
		r.failCWAC(scan, int(term.ExitCode), term.Message)
	case meta.IsStatusConditionTrue(scan.Status.Conditions, cwacv1alpha1.ConditionDegraded):
		c := meta.FindStatusCondition(scan.Status.Conditions, cwacv1alpha1.ConditionDegraded)
		r.fail(scan, c.Reason, "the scan pod never started: "+c.Message)
	default:
		r.fail(scan, cwacv1alpha1.ReasonJobFailed, fmt.Sprintf("Job %s failed: %s: %s", job.Name, cond.Reason, cond.Message))
	}
}

func (r *CwacScanReconciler) complete(scan *cwacv1alpha1.CwacScan, msg string) {
	if s := scan.Status.Summary; s != nil {
		if len(s.UnscannedBaseURLs) > 0 {
			r.setCondition(scan, cwacv1alpha1.ConditionAllSitesScanned, metav1.ConditionFalse, cwacv1alpha1.ReasonSomeSitesUnscanned,
				"base URLs that yielded no page: "+strings.Join(s.UnscannedBaseURLs, ", "))
		} else {
			r.setCondition(scan, cwacv1alpha1.ConditionAllSitesScanned, metav1.ConditionTrue, cwacv1alpha1.ReasonAllSitesScanned, "every base URL yielded pages")
		}
	}
	r.setCondition(scan, cwacv1alpha1.ConditionComplete, metav1.ConditionTrue, cwacv1alpha1.ReasonSucceeded, msg)
	r.end(scan, cwacv1alpha1.PhaseComplete, cwacv1alpha1.ReasonSucceeded, msg)
}

// fail ends the scan as Failed with a reason (Failed=True/<reason>) and
// records the reason and exit code in status.failure.
func (r *CwacScanReconciler) fail(scan *cwacv1alpha1.CwacScan, reason, msg string) {
	scan.Status.Failure = &cwacv1alpha1.ScanFailure{Reason: reason, ExitCode: scan.Status.ExitCode}
	r.setCondition(scan, cwacv1alpha1.ConditionFailed, metav1.ConditionTrue, reason, msg)
	r.end(scan, cwacv1alpha1.PhaseFailed, reason, msg)
}

// failCWAC ends a scan whose CWAC exited non-zero
// (Failed=True/CWACExitedNonZero): the message names the cause picked from
// CWAC's error output, and status.failure keeps the output's tail.
func (r *CwacScanReconciler) failCWAC(scan *cwacv1alpha1.CwacScan, exitCode int, stderrTail string) {
	cause := cwac.FailureCause(stderrTail)
	msg := fmt.Sprintf("CWAC exited with code %d", exitCode)
	if cause != "" {
		msg += ": " + cause
	}
	r.fail(scan, cwacv1alpha1.ReasonCWACExitedNonZero, msg)
	scan.Status.Failure.Cause = truncate(cause, 1024)
	scan.Status.Failure.LogTail = truncateStart(strings.TrimSpace(stderrTail), 2048)
}

func (r *CwacScanReconciler) end(scan *cwacv1alpha1.CwacScan, phase cwacv1alpha1.Phase, reason, msg string) {
	now := metav1.NewTime(r.now())
	scan.Status.CompletionTime = &now
	if meta.IsStatusConditionTrue(scan.Status.Conditions, cwacv1alpha1.ConditionDegraded) && phase == cwacv1alpha1.PhaseComplete {
		r.setCondition(scan, cwacv1alpha1.ConditionDegraded, metav1.ConditionFalse, cwacv1alpha1.ReasonPodHealthy, "the scan finished")
	}
	r.setPhase(scan, phase, reason, msg)
}

// setPhase moves the phase and records an Event for the change.
func (r *CwacScanReconciler) setPhase(scan *cwacv1alpha1.CwacScan, phase cwacv1alpha1.Phase, reason, msg string) {
	scan.Status.Message = msg
	if scan.Status.Phase == phase {
		return
	}
	scan.Status.Phase = phase
	eventType := corev1.EventTypeNormal
	if phase == cwacv1alpha1.PhaseFailed {
		eventType = corev1.EventTypeWarning
	}
	r.event(scan, eventType, reason, fmt.Sprintf("%s: %s", phase, msg))
}

func (r *CwacScanReconciler) event(scan *cwacv1alpha1.CwacScan, eventType, reason, msg string) {
	if r.Recorder != nil {
		r.Recorder.Eventf(scan, nil, eventType, reason, "Reconcile", "%s", truncate(msg, 1024))
	}
}

func (r *CwacScanReconciler) setCondition(scan *cwacv1alpha1.CwacScan, condType string, status metav1.ConditionStatus, reason, msg string) {
	meta.SetStatusCondition(&scan.Status.Conditions, metav1.Condition{
		Type:               condType,
		Status:             status,
		Reason:             reason,
		Message:            truncate(msg, 32*1024),
		ObservedGeneration: scan.Generation,
	})
}

func (r *CwacScanReconciler) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

// scanPod returns the Job's pod (the newest, should there be several).
func (r *CwacScanReconciler) scanPod(ctx context.Context, job *batchv1.Job) (*corev1.Pod, error) {
	pods := &corev1.PodList{}
	if err := r.List(ctx, pods, client.InNamespace(job.Namespace), client.MatchingLabels{batchv1.JobNameLabel: job.Name}); err != nil {
		return nil, fmt.Errorf("listing pods of Job %s: %w", job.Name, err)
	}
	var newest *corev1.Pod
	for i := range pods.Items {
		p := &pods.Items[i]
		if !metav1.IsControlledBy(p, job) {
			continue
		}
		if newest == nil || newest.CreationTimestamp.Before(&p.CreationTimestamp) {
			newest = p
		}
	}
	return newest, nil
}

// jobFinished returns the Job's terminal condition, if it has one.
func jobFinished(job *batchv1.Job) (batchv1.JobCondition, bool) {
	for _, c := range job.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return c, true
		}
	}
	return batchv1.JobCondition{}, false
}

// stuckReason reports a container (init or main) stuck waiting for a reason
// that needs attention.
func stuckReason(pod *corev1.Pod) (string, string) {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			return cwacv1alpha1.ReasonUnschedulable, fmt.Sprintf("pod %s cannot be scheduled: %s", pod.Name, truncate(c.Message, 512))
		}
	}
	statuses := append(append([]corev1.ContainerStatus{}, pod.Status.InitContainerStatuses...), pod.Status.ContainerStatuses...)
	for _, c := range statuses {
		if w := c.State.Waiting; w != nil && waitingReasons[w.Reason] {
			return w.Reason, fmt.Sprintf("container %s of pod %s is waiting: %s: %s", c.Name, pod.Name, w.Reason, truncate(w.Message, 512))
		}
	}
	return "", ""
}

func containerStatus(pod *corev1.Pod, name string) *corev1.ContainerStatus {
	if pod == nil {
		return nil
	}
	for i := range pod.Status.ContainerStatuses {
		if pod.Status.ContainerStatuses[i].Name == name {
			return &pod.Status.ContainerStatuses[i]
		}
	}
	return nil
}

func memoryLimit(pod *corev1.Pod) string {
	if pod != nil {
		for _, c := range pod.Spec.Containers {
			if c.Name == scanpod.ContainerName {
				if q, ok := c.Resources.Limits[corev1.ResourceMemory]; ok {
					return q.String()
				}
			}
		}
	}
	return "unknown"
}

// ellipsis marks text that was cut.
const ellipsis = "…"

// truncate cuts s to at most n bytes, the ellipsis included, on a UTF-8
// boundary: the API server counts an Event's or condition's limit in bytes.
// n is at least the ellipsis' length (3 bytes).
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := max(n-len(ellipsis), 0)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + ellipsis
}

// truncateStart keeps the last bytes of s, at most n with the ellipsis, on a
// UTF-8 boundary.
func truncateStart(s string, n int) string {
	if len(s) <= n {
		return s
	}
	from := len(s) - max(n-len(ellipsis), 0)
	for from < len(s) && !utf8.RuneStart(s[from]) {
		from++
	}
	return ellipsis + s[from:]
}

// SetupWithManager watches CwacScans, their Jobs and pods, and wakes queued
// scans whenever a scan Job changes (one may have finished or been deleted).
func (r *CwacScanReconciler) SetupWithManager(mgr ctrl.Manager) error {
	managed := predicate.NewPredicateFuncs(func(o client.Object) bool {
		return o.GetLabels()[scanjob.LabelManagedBy] == scanjob.ManagedByValue
	})
	return ctrl.NewControllerManagedBy(mgr).
		For(&cwacv1alpha1.CwacScan{}).
		Owns(&batchv1.Job{}).
		Watches(&batchv1.Job{}, handler.EnqueueRequestsFromMapFunc(r.queuedScans), builder.WithPredicates(managed)).
		Watches(&corev1.Pod{}, handler.EnqueueRequestsFromMapFunc(podToScan), builder.WithPredicates(managed)).
		Named("cwacscan").
		WithOptions(controller.Options{SkipNameValidation: &r.SkipNameValidation}).
		Complete(r)
}

func podToScan(_ context.Context, o client.Object) []reconcile.Request {
	name := o.GetAnnotations()[scanjob.AnnotationScanName]
	if name == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: name}}}
}

func (r *CwacScanReconciler) queuedScans(ctx context.Context, _ client.Object) []reconcile.Request {
	if r.MaxConcurrentScans <= 0 {
		return nil
	}
	scans := &cwacv1alpha1.CwacScanList{}
	if err := r.List(ctx, scans); err != nil {
		logf.FromContext(ctx).Error(err, "listing queued scans")
		return nil
	}
	var reqs []reconcile.Request
	for _, s := range scans.Items {
		if s.Status.Phase == cwacv1alpha1.PhaseQueued {
			reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: s.Namespace, Name: s.Name}})
		}
	}
	return reqs
}
