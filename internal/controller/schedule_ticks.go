package controller

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanspec"
	"github.com/a11y-dev/cwac-operator/internal/schedule"
)

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
	loc, err := schedule.LoadLocation(string(sched.Spec.TimeZone))
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
