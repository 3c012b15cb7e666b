package controller

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
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
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanjob"
	"github.com/a11y-dev/cwac-operator/internal/scanspec"
	"github.com/a11y-dev/cwac-operator/internal/schedule"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// indexScanSchedule holds the name of the CwacScanSchedule that controls a scan.
const indexScanSchedule = "cwac.a11y.dev/scan-schedule"

// The history limits when a schedule sets none (the CRD defaults them too).
const (
	defaultSuccessfulScansHistoryLimit = 3
	defaultFailedScansHistoryLimit     = 1
)

// tickSlack is how long after a tick the schedule wakes, so that the tick
// is due by then on any clock reading.
const tickSlack = 100 * time.Millisecond

// ScheduleReconciler creates a CwacScanSchedule's scans at its ticks, by the
// CronJob controller's rules, and keeps its history within the limits. The
// scans are then run by the scan controllers like any other.
type ScheduleReconciler struct {
	client.Client
	// APIReader reads straight from the API server, only for scans the
	// cache does not show yet.
	APIReader client.Reader
	Scheme    *runtime.Scheme
	Recorder  events.EventRecorder
	// Now is the clock (tests may replace it).
	Now func() time.Time
	// SkipNameValidation lets tests start several managers in one process.
	SkipNameValidation bool
}

// setupSchedules wires the schedule controller into mgr.
func setupSchedules(mgr ctrl.Manager, o Options) error {
	return (&ScheduleReconciler{
		Client:             mgr.GetClient(),
		APIReader:          mgr.GetAPIReader(),
		Scheme:             mgr.GetScheme(),
		Recorder:           mgr.GetEventRecorder("cwac-operator"),
		Now:                o.Now,
		SkipNameValidation: o.SkipNameValidation,
	}).SetupWithManager(mgr)
}

// +kubebuilder:rbac:groups=cwac.a11y.dev,resources=cwacscanschedules,verbs=get;list;watch
// +kubebuilder:rbac:groups=cwac.a11y.dev,resources=cwacscanschedules/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=cwac.a11y.dev,resources=cwacscanschedules/finalizers,verbs=update
// +kubebuilder:rbac:groups=cwac.a11y.dev,resources=cwacscans,verbs=get;list;watch;create;delete;patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile moves one schedule forward: get → ignore not-found and deleted
// schedules → defer one status patch (only if changed) → observe its scans →
// prune history → validate → suspended? → act on the due tick → requeue at
// the next tick.
func (r *ScheduleReconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, err error) {
	sched := &cwacv1alpha1.CwacScanSchedule{}
	if err := r.Get(ctx, req.NamespacedName, sched); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !sched.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil // its scans go with it: they are owned
	}
	patch := beginStatusPatch(sched, scheduleStatus)
	defer patch.writeOnReturn(ctx, r.Client, sched, &err)
	sched.Status.ObservedGeneration = sched.Generation

	scans, err := r.observeScans(ctx, sched)
	if err != nil {
		return ctrl.Result{}, err
	}
	if scans, err = r.pruneHistory(ctx, sched, scans, patch.original.Status.LastScheduleTime); err != nil {
		return ctrl.Result{}, err
	}
	cron := r.validate(sched)
	if cron == nil {
		return ctrl.Result{}, nil // only a spec change wakes an invalid schedule
	}
	if sched.Spec.Suspend {
		r.suspend(sched)
		return ctrl.Result{}, nil // only a spec change wakes a suspended schedule
	}
	now := r.clock()
	due := schedule.Due(cron, lastTick(sched), now, startingDeadline(sched))
	problem, err := r.runTick(ctx, sched, scans, due, now)
	if err != nil {
		return ctrl.Result{}, err
	}
	return r.untilNextTick(sched, cron, due, now, problem), nil
}

func (r *ScheduleReconciler) clock() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

// observeScans lists the schedule's scans — from the cache, and from the API
// server for active ones the cache does not show yet — and records what they
// say: status.active (those not finished), lastScheduleTime and lastScan
// when a scan is newer than the status knows (its patch was lost),
// lastSuccessfulTime and lastResult. It sets no condition.
func (r *ScheduleReconciler) observeScans(ctx context.Context, sched *cwacv1alpha1.CwacScanSchedule) ([]cwacv1alpha1.CwacScan, error) {
	list := &cwacv1alpha1.CwacScanList{}
	if err := r.List(ctx, list, client.InNamespace(sched.Namespace), client.MatchingFields{indexScanSchedule: sched.Name}); err != nil {
		return nil, fmt.Errorf("listing the schedule's scans: %w", err)
	}
	var scans []cwacv1alpha1.CwacScan
	seen := map[types.UID]bool{}
	for _, s := range list.Items {
		if metav1.IsControlledBy(&s, sched) {
			scans = append(scans, s)
			seen[s.UID] = true
		}
	}
	for _, ref := range sched.Status.Active {
		if seen[ref.UID] {
			continue
		}
		// Created moments ago, or gone: ask the API server.
		s := &cwacv1alpha1.CwacScan{}
		err := r.APIReader.Get(ctx, types.NamespacedName{Namespace: sched.Namespace, Name: ref.Name}, s)
		switch {
		case apierrors.IsNotFound(err):
		case err != nil:
			return nil, fmt.Errorf("getting scan %s: %w", ref.Name, err)
		case s.UID == ref.UID && metav1.IsControlledBy(s, sched):
			scans = append(scans, *s)
			seen[s.UID] = true
		}
	}
	slices.SortFunc(scans, func(a, b cwacv1alpha1.CwacScan) int {
		if c := scanTick(&a).Compare(scanTick(&b)); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})

	sched.Status.Active = nil
	for i := range scans {
		s := &scans[i]
		if running(s) {
			sched.Status.Active = append(sched.Status.Active, scanRef(s))
		}
		if tick := scanTick(s); sched.Status.LastScheduleTime == nil || tick.After(sched.Status.LastScheduleTime.Time) {
			t := metav1.NewTime(tick)
			sched.Status.LastScheduleTime = &t
			sched.Status.LastScan = s.Name
		}
		if s.Status.Phase == cwacv1alpha1.PhaseComplete {
			if err := r.recordResult(ctx, sched, s); err != nil {
				return nil, err
			}
		}
	}
	return scans, nil
}

// recordResult keeps lastSuccessfulTime and lastResult on the newest
// Complete scan. The cache keeps little of a finished scan's summary
// (finished_cache.go), so a scan newer than lastResult is read whole from
// the API server: once, when it is recorded.
func (r *ScheduleReconciler) recordResult(ctx context.Context, sched *cwacv1alpha1.CwacScanSchedule, s *cwacv1alpha1.CwacScan) error {
	if done := s.Status.CompletionTime; done != nil && (sched.Status.LastSuccessfulTime == nil || done.After(sched.Status.LastSuccessfulTime.Time)) {
		sched.Status.LastSuccessfulTime = done.DeepCopy()
	}
	tick := scanTick(s)
	if last := sched.Status.LastResult; s.Status.Summary == nil || (last != nil && (last.Name == s.Name || !tick.After(last.ScheduledTime.Time))) {
		return nil // no results, recorded already, or older than the one recorded
	}
	whole, err := finishedScanDetails(ctx, r.APIReader, s)
	if apierrors.IsNotFound(err) {
		return nil // deleted since the cache listed it
	}
	if err != nil {
		return err
	}
	sum := whole.Status.Summary
	if sum == nil {
		return nil
	}
	sched.Status.LastResult = &cwacv1alpha1.ScheduledScanResult{
		Name:           s.Name,
		ScheduledTime:  metav1.NewTime(tick),
		CompletionTime: s.Status.CompletionTime.DeepCopy(),
		TotalIssues:    sum.TotalIssues,
		IssuesByImpact: maps.Clone(sum.IssuesByImpact),
		PagesScanned:   sum.PagesScanned,
		UrlsScanned:    sum.UrlsScanned,
	}
	if d := sum.Diff; d != nil {
		newIssues, fixed := d.New, d.Fixed
		sched.Status.LastResult.NewIssues, sched.Status.LastResult.FixedIssues = &newIssues, &fixed
	}
	return nil
}

// pruneHistory deletes the finished scans beyond the history limits, oldest
// first (their Jobs go with them), and returns the scans left. A scan whose
// tick the stored status does not show yet is kept for now: deleting it
// before its tick is recorded could let the tick run twice. It sets no
// condition; each deletion is a ScanPruned Event.
func (r *ScheduleReconciler) pruneHistory(ctx context.Context, sched *cwacv1alpha1.CwacScanSchedule, scans []cwacv1alpha1.CwacScan,
	stored *metav1.Time) ([]cwacv1alpha1.CwacScan, error) {
	var candidates []schedule.Scan
	for i := range scans {
		s := &scans[i]
		if s.DeletionTimestamp.IsZero() && stored != nil && !scanTick(s).After(stored.Time) {
			candidates = append(candidates, ruleScan(s))
		}
	}
	doomed := schedule.Prune(candidates,
		int(ptrOr(sched.Spec.SuccessfulScansHistoryLimit, defaultSuccessfulScansHistoryLimit)),
		int(ptrOr(sched.Spec.FailedScansHistoryLimit, defaultFailedScansHistoryLimit)))
	if len(doomed) == 0 {
		return scans, nil
	}
	gone := map[string]bool{}
	for _, name := range doomed {
		i := slices.IndexFunc(scans, func(s cwacv1alpha1.CwacScan) bool { return s.Name == name })
		s := &scans[i]
		err := r.Delete(ctx, s, client.PropagationPolicy(metav1.DeletePropagationBackground), client.Preconditions{UID: &s.UID})
		if client.IgnoreNotFound(err) != nil {
			return nil, fmt.Errorf("deleting scan %s: %w", name, err)
		}
		gone[name] = true
		r.event(sched, s, corev1.EventTypeNormal, cwacv1alpha1.ReasonScanPruned,
			fmt.Sprintf("deleted scan %s (%s, tick %s): beyond the history limit", name, s.Status.Phase, formatTick(sched, scanTick(s))))
	}
	return slices.DeleteFunc(scans, func(s cwacv1alpha1.CwacScan) bool { return gone[s.Name] }), nil
}

// checkTemplateOverrides holds the template's configOverrides to the
// bounds admission holds each scan's to (scanjob.CheckConfigOverrides), so
// that a schedule does not create, tick after tick, scans bound to be
// refused.
func checkTemplateOverrides(sched *cwacv1alpha1.CwacScanSchedule) error {
	if err := scanjob.CheckConfigOverrides(&cwacv1alpha1.CwacScan{Spec: sched.Spec.ScanTemplate.Spec}); err != nil {
		return fmt.Errorf("spec.scanTemplate.%w", err)
	}
	return nil
}

// validate parses the schedule in its time zone and checks the template's
// metadata and configOverrides: ScheduleValid=True/ValidSchedule; or ScheduleValid=False and
// Ready=False with InvalidSchedule, InvalidTimeZone or InvalidTemplate (the
// message names the field) and a Warning Event once per spec, and nil: no
// scan is ever created for that spec.
func (r *ScheduleReconciler) validate(sched *cwacv1alpha1.CwacScanSchedule) *schedule.Schedule {
	cron, err := schedule.Parse(sched.Spec.Schedule, sched.Spec.TimeZone)
	if err == nil {
		md := sched.Spec.ScanTemplate.Metadata
		err = schedule.ValidateTemplateMetadata(md.Labels, md.Annotations)
	}
	if err == nil {
		err = checkTemplateOverrides(sched)
	}
	if err != nil {
		reason := cwacv1alpha1.ReasonInvalidTemplate
		var fe *schedule.FieldError
		if errors.As(err, &fe) {
			switch fe.Field {
			case schedule.FieldSchedule:
				reason = cwacv1alpha1.ReasonInvalidSchedule
			case schedule.FieldTimeZone:
				reason = cwacv1alpha1.ReasonInvalidTimeZone
			}
		}
		msg := err.Error() + "; no scan is created until the spec is fixed"
		if r.setCondition(sched, cwacv1alpha1.ConditionScheduleValid, metav1.ConditionFalse, reason, msg) {
			r.event(sched, nil, corev1.EventTypeWarning, reason, msg)
		}
		r.setCondition(sched, cwacv1alpha1.ConditionReady, metav1.ConditionFalse, reason, msg)
		sched.Status.NextScheduleTime = nil
		return nil
	}
	r.setCondition(sched, cwacv1alpha1.ConditionScheduleValid, metav1.ConditionTrue, cwacv1alpha1.ReasonValidSchedule,
		fmt.Sprintf("%q in %s", sched.Spec.Schedule, cron.Location()))
	return cron
}

// suspend: Ready=False/Suspended, and no next tick.
func (r *ScheduleReconciler) suspend(sched *cwacv1alpha1.CwacScanSchedule) {
	sched.Status.NextScheduleTime = nil
	r.setCondition(sched, cwacv1alpha1.ConditionReady, metav1.ConditionFalse, cwacv1alpha1.ReasonSuspended,
		"spec.suspend is true: no scan is created; ticks that pass count as missed")
}

// notReady is why a schedule did not do what its tick asked.
type notReady struct {
	reason, msg string
	// warn: record a Warning Event when the condition changes.
	warn bool
}

// runTick acts on the due tick. More than 100 missed ticks start nothing
// (returned as TooManyMissedTicks); ticks past the starting deadline are a
// MissedTick Event. The due tick, if any, by concurrencyPolicy: skipped while
// a scan runs (Forbid, a TickSkipped Event), or the running scans deleted
// (Replace, a ScanReplaced Event each), then its scan started (startScan).
func (r *ScheduleReconciler) runTick(ctx context.Context, sched *cwacv1alpha1.CwacScanSchedule, scans []cwacv1alpha1.CwacScan,
	due schedule.Decision, now time.Time) (*notReady, error) {
	if due.TooMany {
		return &notReady{reason: cwacv1alpha1.ReasonTooManyMissedTicks, warn: true, msg: fmt.Sprintf(
			"more than %d ticks were missed since %s: none is started, as for a CronJob; set or lower spec.startingDeadlineSeconds, or check the clocks",
			schedule.MaxMissedTicks, formatTick(sched, lastTick(sched)))}, nil
	}
	if !due.Late.IsZero() {
		r.event(sched, nil, corev1.EventTypeWarning, cwacv1alpha1.ReasonMissedTick, fmt.Sprintf(
			"no scan for the ticks from %s to %s: more than startingDeadlineSeconds (%ds) late, they are not run",
			formatTick(sched, due.Late), formatTick(sched, now.Add(-*startingDeadline(sched))), *sched.Spec.StartingDeadlineSeconds))
	}
	if due.Tick.IsZero() {
		return nil, nil
	}
	var active []*cwacv1alpha1.CwacScan
	for i := range scans {
		if running(&scans[i]) {
			active = append(active, &scans[i])
		}
	}
	switch schedule.Admit(schedule.Policy(sched.Spec.ConcurrencyPolicy), len(active)) {
	case schedule.Skip:
		r.event(sched, active[0], corev1.EventTypeNormal, cwacv1alpha1.ReasonTickSkipped, fmt.Sprintf(
			"the tick at %s waits: scan %s is still running (concurrencyPolicy Forbid)", formatTick(sched, due.Tick), active[0].Name))
		return nil, nil
	case schedule.ReplaceRunning:
		for _, s := range active {
			if err := requestCancel(ctx, r.Client, s); client.IgnoreNotFound(err) != nil {
				return nil, fmt.Errorf("cancelling running scan %s: %w", s.Name, err)
			}
			r.event(sched, s, corev1.EventTypeNormal, cwacv1alpha1.ReasonScanReplaced, fmt.Sprintf(
				"cancelled running scan %s for the tick at %s (concurrencyPolicy Replace); it ends Failed/Cancelled, its results so far kept",
				s.Name, formatTick(sched, due.Tick)))
		}
		sched.Status.Active = nil
	case schedule.Start:
	}
	return r.startScan(ctx, sched, due, now)
}

// startScan creates the due tick's scan, or adopts it when it exists and is
// this schedule's (created before a restart lost the status), and records
// it: lastScheduleTime, lastScan, active, a ScanCreated Event. A name taken
// by something else (ScanConflict) or a scan the API server refuses
// (ScanRefused) is a Warning Event and makes Ready False until a later tick
// succeeds; the tick counts as scheduled, so it is not retried.
func (r *ScheduleReconciler) startScan(ctx context.Context, sched *cwacv1alpha1.CwacScanSchedule, due schedule.Decision, now time.Time) (*notReady, error) {
	scan, err := r.scanFor(sched, due.Tick)
	if err != nil {
		return nil, err
	}
	at := formatTick(sched, due.Tick)
	err = r.Create(ctx, scan)
	switch {
	case err == nil:
		msg := fmt.Sprintf("created scan %s for the tick at %s", scan.Name, at)
		// A catch-up says how late it is; an on-time start is a few
		// hundred milliseconds after its tick, which is not news.
		if late := now.Sub(due.Tick); late >= time.Second {
			msg += fmt.Sprintf(", %s late", late.Round(time.Second))
		}
		switch {
		case due.Skipped == 1:
			msg += "; 1 earlier missed tick is not run"
		case due.Skipped > 1:
			msg += fmt.Sprintf("; %d earlier missed ticks are not run", due.Skipped)
		}
		r.event(sched, scan, corev1.EventTypeNormal, cwacv1alpha1.ReasonScanCreated, msg)
	case apierrors.IsAlreadyExists(err):
		existing, err := r.existingScan(ctx, sched.Namespace, scan.Name)
		if err != nil {
			return nil, err
		}
		if !metav1.IsControlledBy(existing, sched) {
			msg := fmt.Sprintf("the tick at %s is not run: a CwacScan named %s exists and does not belong to this schedule", at, scan.Name)
			r.event(sched, existing, corev1.EventTypeWarning, cwacv1alpha1.ReasonScanConflict, msg)
			r.recordTick(sched, due.Tick, nil)
			return &notReady{reason: cwacv1alpha1.ReasonScanConflict, msg: msg}, nil
		}
		scan = existing // the same tick's scan: adopt it
	case apierrors.IsInvalid(err) || apierrors.IsForbidden(err) || apierrors.IsBadRequest(err):
		msg := fmt.Sprintf("the scan for the tick at %s was refused: %v", at, err)
		r.event(sched, nil, corev1.EventTypeWarning, cwacv1alpha1.ReasonScanRefused, msg)
		r.recordTick(sched, due.Tick, nil)
		return &notReady{reason: cwacv1alpha1.ReasonScanRefused, msg: msg}, nil
	default:
		return nil, fmt.Errorf("creating scan %s: %w", scan.Name, err)
	}
	r.recordTick(sched, due.Tick, scan)
	return nil, nil
}

// scanFor builds the scan of a tick from the template.
func (r *ScheduleReconciler) scanFor(sched *cwacv1alpha1.CwacScanSchedule, tick time.Time) (*cwacv1alpha1.CwacScan, error) {
	tmpl := sched.Spec.ScanTemplate
	labels := maps.Clone(tmpl.Metadata.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[cwacv1alpha1.LabelSchedule] = sched.Name
	annotations := maps.Clone(tmpl.Metadata.Annotations)
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[cwacv1alpha1.AnnotationScheduledTime] = tick.UTC().Format(time.RFC3339)
	scan := &cwacv1alpha1.CwacScan{
		ObjectMeta: metav1.ObjectMeta{
			Name:        scanspec.ScheduledScanName(sched.Name, tick),
			Namespace:   sched.Namespace,
			Labels:      labels,
			Annotations: annotations,
		},
		Spec: *tmpl.Spec.DeepCopy(),
	}
	// Each scan is compared with the one before it that completed, unless
	// the template names a baseline of its own.
	if scan.Spec.Baseline == "" && sched.Status.LastResult != nil {
		scan.Spec.Baseline = sched.Status.LastResult.Name
	}
	if err := controllerutil.SetControllerReference(sched, scan, r.Scheme); err != nil {
		return nil, fmt.Errorf("owning scan: %w", err)
	}
	return scan, nil
}

// existingScan gets a scan a create found existing: from the cache, or the
// API server when the cache lags.
func (r *ScheduleReconciler) existingScan(ctx context.Context, namespace, name string) (*cwacv1alpha1.CwacScan, error) {
	key := types.NamespacedName{Namespace: namespace, Name: name}
	s := &cwacv1alpha1.CwacScan{}
	err := r.Get(ctx, key, s)
	if apierrors.IsNotFound(err) {
		err = r.APIReader.Get(ctx, key, s)
	}
	if err != nil {
		return nil, fmt.Errorf("getting scan %s: %w", name, err)
	}
	return s, nil
}

// recordTick records that a tick was acted on, and its scan if one runs.
func (r *ScheduleReconciler) recordTick(sched *cwacv1alpha1.CwacScanSchedule, tick time.Time, scan *cwacv1alpha1.CwacScan) {
	t := metav1.NewTime(tick)
	sched.Status.LastScheduleTime = &t
	if scan == nil {
		return
	}
	sched.Status.LastScan = scan.Name
	if running(scan) && !slices.ContainsFunc(sched.Status.Active, func(ref corev1.ObjectReference) bool { return ref.UID == scan.UID }) {
		sched.Status.Active = append(sched.Status.Active, scanRef(scan))
	}
}

// untilNextTick records the next tick and sets Ready: True/Scheduled, or
// False with what runTick met (a Warning Event when it changes and asks for
// one). The result wakes the schedule just after its next tick: the timer of
// its next event, not polling.
func (r *ScheduleReconciler) untilNextTick(sched *cwacv1alpha1.CwacScanSchedule, cron *schedule.Schedule, due schedule.Decision, now time.Time,
	problem *notReady) ctrl.Result {
	sched.Status.NextScheduleTime = nil
	if !due.Next.IsZero() {
		next := metav1.NewTime(due.Next)
		sched.Status.NextScheduleTime = &next
	}
	switch {
	case problem != nil:
		if r.setCondition(sched, cwacv1alpha1.ConditionReady, metav1.ConditionFalse, problem.reason, problem.msg) && problem.warn {
			r.event(sched, nil, corev1.EventTypeWarning, problem.reason, problem.msg)
		}
	case due.Next.IsZero():
		r.setCondition(sched, cwacv1alpha1.ConditionReady, metav1.ConditionTrue, cwacv1alpha1.ReasonScheduled, "no further tick in the next five years")
	default:
		r.setCondition(sched, cwacv1alpha1.ConditionReady, metav1.ConditionTrue, cwacv1alpha1.ReasonScheduled,
			fmt.Sprintf("next scan at %s (%s)", formatTick(sched, due.Next), cron.Location()))
	}
	if due.Next.IsZero() {
		return ctrl.Result{}
	}
	return ctrl.Result{RequeueAfter: due.Next.Sub(now) + tickSlack}
}

// setCondition sets a condition on the schedule; it reports whether the
// condition changed (status, reason, message or generation).
func (r *ScheduleReconciler) setCondition(sched *cwacv1alpha1.CwacScanSchedule, condType string, status metav1.ConditionStatus, reason, msg string) bool {
	return meta.SetStatusCondition(&sched.Status.Conditions, metav1.Condition{
		Type:               condType,
		Status:             status,
		Reason:             reason,
		Message:            textcap.Head(msg, maxConditionMessageBytes),
		ObservedGeneration: sched.Generation,
	})
}

// event records an Event about the schedule (and the scan it concerns, if
// any) whose note always fits the API server's limit.
func (r *ScheduleReconciler) event(sched *cwacv1alpha1.CwacScanSchedule, related runtime.Object, eventType, reason, msg string) {
	if r.Recorder == nil {
		return
	}
	if s, ok := related.(*cwacv1alpha1.CwacScan); ok && s == nil {
		related = nil
	}
	r.Recorder.Eventf(sched, related, eventType, reason, "Reconcile", "%s", textcap.Head(msg, maxEventNoteBytes))
}

// lastTick is the last scheduled time, or the schedule's creation before
// its first scan.
func lastTick(sched *cwacv1alpha1.CwacScanSchedule) time.Time {
	if t := sched.Status.LastScheduleTime; t != nil {
		return t.Time
	}
	return sched.CreationTimestamp.Time
}

func startingDeadline(sched *cwacv1alpha1.CwacScanSchedule) *time.Duration {
	if s := sched.Spec.StartingDeadlineSeconds; s != nil {
		d := time.Duration(*s) * time.Second
		return &d
	}
	return nil
}

// formatTick shows an instant in the schedule's time zone (UTC when it has
// none or it is unknown).
func formatTick(sched *cwacv1alpha1.CwacScanSchedule, t time.Time) string {
	loc, err := schedule.LoadLocation(sched.Spec.TimeZone)
	if err != nil {
		loc = time.UTC
	}
	return t.In(loc).Format(time.RFC3339)
}

// scanTick is the tick a scan was created for: its annotation, or its
// creation time when that is missing or unreadable.
func scanTick(s *cwacv1alpha1.CwacScan) time.Time {
	if v, ok := s.Annotations[cwacv1alpha1.AnnotationScheduledTime]; ok {
		if t, err := time.Parse(time.RFC3339, v); err == nil {
			return t
		}
	}
	return s.CreationTimestamp.Time
}

// running: not finished and not being deleted.
func running(s *cwacv1alpha1.CwacScan) bool {
	return !s.Status.Phase.Finished() && s.DeletionTimestamp.IsZero() && !cancelRequested(s)
}

func ruleScan(s *cwacv1alpha1.CwacScan) schedule.Scan {
	state := schedule.Running
	switch s.Status.Phase {
	case cwacv1alpha1.PhaseComplete:
		state = schedule.Complete
	case cwacv1alpha1.PhaseFailed:
		state = schedule.Failed
	}
	return schedule.Scan{Name: s.Name, Tick: scanTick(s), State: state}
}

func scanRef(s *cwacv1alpha1.CwacScan) corev1.ObjectReference {
	return corev1.ObjectReference{
		APIVersion: cwacv1alpha1.GroupVersion.String(),
		Kind:       "CwacScan",
		Namespace:  s.Namespace,
		Name:       s.Name,
		UID:        s.UID,
	}
}

func ptrOr[T any](p *T, def T) T {
	if p != nil {
		return *p
	}
	return def
}

// SetupWithManager watches schedules (spec and annotation changes: the
// schedule's own status writes do not wake it) and the scans they own. Ticks
// come from the requeue at each next tick.
func (r *ScheduleReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &cwacv1alpha1.CwacScan{}, indexScanSchedule, func(o client.Object) []string {
		if ref := metav1.GetControllerOf(o); ref != nil && ref.Kind == "CwacScanSchedule" && ref.APIVersion == cwacv1alpha1.GroupVersion.String() {
			return []string{ref.Name}
		}
		return nil
	}); err != nil {
		return err
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(&cwacv1alpha1.CwacScanSchedule{}, builder.WithPredicates(predicate.Or(predicate.GenerationChangedPredicate{}, predicate.AnnotationChangedPredicate{}))).
		Owns(&cwacv1alpha1.CwacScan{}).
		Named("cwacscanschedule").
		WithOptions(controller.Options{SkipNameValidation: &r.SkipNameValidation}).
		Complete(r)
}
