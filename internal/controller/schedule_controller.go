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
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanjob"
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
	cron, err := schedule.Parse(string(sched.Spec.Schedule), string(sched.Spec.TimeZone))
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
