//go:build integration

package controller

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanspec"
)

func timeIs(got *metav1.Time, want time.Time) bool { return got != nil && got.Time.Equal(want) }

// scheduleTable reads the namespace's schedules as kubectl get shows them:
// the API server's table, built from the CRD's printer columns. It returns
// the cells by column name, one map per schedule.
func scheduleTable(t *testing.T, ns string) map[string]map[string]any {
	t.Helper()
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := cs.RESTClient().Get().AbsPath("/apis/cwac.a11y.dev/v1alpha1/namespaces", ns, "cwacscanschedules").
		SetHeader("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io").DoRaw(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	var table metav1.Table
	if err := json.Unmarshal(raw, &table); err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for _, row := range table.Rows {
		cells := map[string]any{}
		for i, col := range table.ColumnDefinitions {
			cells[col.Name] = row.Cells[i]
		}
		out[fmt.Sprint(cells["Name"])] = cells
	}
	return out
}

// TestScheduleCreatesScanAtTick: a schedule waits for its tick — the
// requeue timer, not a poll, brings it — creates one scan for it, named by
// the tick, with the template's labels, annotations and spec, owned by the
// schedule; the scan runs like any other, and its result reaches the
// schedule's status and kubectl's columns.
func TestScheduleCreatesScanAtTick(t *testing.T) {
	clock := newTestClock()
	startScheduler(t, clock)
	ns := scheduleNamespace(t)
	sched := createSchedule(t, ns, "nightly", func(s *cwacv1alpha1.CwacScanSchedule) {
		s.Spec.ScanTemplate.Metadata = cwacv1alpha1.ScanTemplateMetadata{
			Labels: map[string]string{"team": "a11y"}, Annotations: map[string]string{"note": "hourly check"},
		}
	})
	if sp := sched.Spec; sp.ConcurrencyPolicy != cwacv1alpha1.ConcurrencyForbid || sp.Suspend ||
		*sp.SuccessfulScansHistoryLimit != 3 || *sp.FailedScansHistoryLimit != 1 || sp.StartingDeadlineSeconds != nil ||
		sp.ScanTemplate.Spec.MaxLinksPerDomain != 50 || sp.ScanTemplate.Spec.Timeout != "1h" {
		t.Errorf("defaults not applied: %+v", sp)
	}
	ticks := ticksOf(t, sched, 2)
	advance(t, clock, sched, ticks[0].Add(-1500*time.Millisecond))
	waitSchedule(t, ns, "nightly", "valid, ready, waiting for the tick", func(s *cwacv1alpha1.CwacScanSchedule) bool {
		return hasCondition(s, cwacv1alpha1.ConditionScheduleValid, metav1.ConditionTrue, cwacv1alpha1.ReasonValidSchedule) &&
			hasCondition(s, cwacv1alpha1.ConditionReady, metav1.ConditionTrue, cwacv1alpha1.ReasonScheduled) &&
			timeIs(s.Status.NextScheduleTime, ticks[0])
	})
	if n := len(scansOf(t, ns, "nightly")); n != 0 {
		t.Fatalf("%d scans before the tick", n)
	}

	var seenAt time.Time
	waitFor(t, "the tick's scan", func() (bool, error) {
		if len(scansOf(t, ns, "nightly")) == 0 {
			return false, nil
		}
		seenAt = clock.Now()
		return true, nil
	})
	if seenAt.Before(ticks[0]) || seenAt.Sub(ticks[0]) > 2*time.Second {
		t.Errorf("scan seen at %s for the tick at %s", seenAt, ticks[0])
	}
	t.Logf("tick → scan seen %s after the tick", seenAt.Sub(ticks[0]).Round(time.Millisecond))

	name := scanspec.ScheduledScanName("nightly", ticks[0])
	checkTickScan(t, sched, waitScans(t, ns, "nightly", name)[0], ticks[0])
	checkRunningThenComplete(t, sched, name, ticks)

	// The next tick's scan is compared with this one, the last that completed.
	advance(t, clock, sched, ticks[1])
	second := scanspec.ScheduledScanName("nightly", ticks[1])
	if got := waitScans(t, ns, "nightly", name, second)[1]; got.Spec.Baseline != name {
		t.Errorf("the second scan's baseline = %q, want %q", got.Spec.Baseline, name)
	}
}

// checkTickScan: the tick's scan has the template's labels, annotations and
// spec, the scheduled time, and the schedule as its controller.
func checkTickScan(t *testing.T, sched *cwacv1alpha1.CwacScanSchedule, scan cwacv1alpha1.CwacScan, tick time.Time) {
	t.Helper()
	if diff := cmp.Diff(map[string]string{"team": "a11y", cwacv1alpha1.LabelSchedule: "nightly"}, scan.Labels); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
	if scan.Annotations["note"] != "hourly check" || scan.Annotations[cwacv1alpha1.AnnotationScheduledTime] != tick.UTC().Format(time.RFC3339) {
		t.Errorf("annotations %v", scan.Annotations)
	}
	if ref := metav1.GetControllerOf(&scan); ref == nil || ref.UID != sched.UID || ref.Kind != "CwacScanSchedule" || !ptr.Deref(ref.BlockOwnerDeletion, false) {
		t.Errorf("controller reference %+v, want the schedule", ref)
	}
	if diff := cmp.Diff(sched.Spec.ScanTemplate.Spec, scan.Spec); diff != "" {
		t.Errorf("spec (-template +scan):\n%s", diff)
	}
}

// checkRunningThenComplete: the schedule's status and kubectl's columns
// while its first scan runs, and after it completes.
func checkRunningThenComplete(t *testing.T, sched *cwacv1alpha1.CwacScanSchedule, name string, ticks []time.Time) {
	t.Helper()
	ns := sched.Namespace
	scan := getScan(t, ns, name)
	s := waitSchedule(t, ns, "nightly", "the scan in status", func(s *cwacv1alpha1.CwacScanSchedule) bool {
		return timeIs(s.Status.LastScheduleTime, ticks[0]) && s.Status.LastScan == name && len(s.Status.Active) == 1 && timeIs(s.Status.NextScheduleTime, ticks[1])
	})
	if a := s.Status.Active[0]; a.Name != name || a.UID != scan.UID || a.Kind != "CwacScan" || a.APIVersion != "cwac.a11y.dev/v1alpha1" {
		t.Errorf("active = %+v", a)
	}
	waitScheduleEvent(t, sched, "Normal/ScanCreated", "created scan "+name)
	row := scheduleTable(t, ns)["nightly"]
	if row["Schedule"] != hourly || row["Suspend"] != false || row["Active"] != name || row["Last Scan"] != name || row["Last Issues"] != nil {
		t.Errorf("kubectl get row while it runs: %v", row)
	}

	// The scan controllers run it; it completes.
	finishScan(t, ns, name, true)
	done := getScan(t, ns, name)
	s = waitSchedule(t, ns, "nightly", "the result in status", func(s *cwacv1alpha1.CwacScanSchedule) bool {
		return len(s.Status.Active) == 0 && s.Status.LastResult != nil
	})
	want := &cwacv1alpha1.ScheduledScanResult{
		Name: name, ScheduledTime: metav1.NewTime(ticks[0]), CompletionTime: done.Status.CompletionTime,
		TotalIssues: 17, IssuesByImpact: done.Status.Summary.IssuesByImpact, PagesScanned: 4, UrlsScanned: done.Status.Summary.UrlsScanned,
	}
	if diff := cmp.Diff(want, s.Status.LastResult); diff != "" || s.Status.LastResult.IssuesByImpact["critical"] != 6 {
		t.Errorf("lastResult (-want +got):\n%s", diff)
	}
	if !timeIs(s.Status.LastSuccessfulTime, done.Status.CompletionTime.Time) {
		t.Errorf("lastSuccessfulTime %v, want the scan's completion %v", s.Status.LastSuccessfulTime, done.Status.CompletionTime)
	}
	row = scheduleTable(t, ns)["nightly"]
	if (row["Active"] != nil && row["Active"] != "") || row["Last Issues"] != float64(17) {
		t.Errorf("kubectl get row after the scan: %v", row)
	}
}

// TestScheduleSurvivesRestarts: the operator is down across a tick — the
// next one runs it, once; a scan the previous operator created but never
// recorded is found, not duplicated; a create that meets the tick's scan
// already there adopts it.
func TestScheduleSurvivesRestarts(t *testing.T) {
	clock := newTestClock()
	stop := startScheduler(t, clock)
	ns := scheduleNamespace(t)
	sched := createSchedule(t, ns, "restart", func(s *cwacv1alpha1.CwacScanSchedule) { s.Spec.ConcurrencyPolicy = cwacv1alpha1.ConcurrencyAllow })
	ticks := ticksOf(t, sched, 3)
	names := []string{
		scanspec.ScheduledScanName("restart", ticks[0]), scanspec.ScheduledScanName("restart", ticks[1]), scanspec.ScheduledScanName("restart", ticks[2]),
	}
	advance(t, clock, sched, ticks[0].Add(-time.Minute))
	waitSchedule(t, ns, "restart", "waiting for the first tick", func(s *cwacv1alpha1.CwacScanSchedule) bool {
		return timeIs(s.Status.NextScheduleTime, ticks[0])
	})
	stop()

	// Down across the first tick: the new operator runs it at start, once.
	clock.Set(ticks[0].Add(30 * time.Second))
	stop = startScheduler(t, clock)
	waitScans(t, ns, "restart", names[0])
	waitSchedule(t, ns, "restart", "the first tick recorded", func(s *cwacv1alpha1.CwacScanSchedule) bool { return timeIs(s.Status.LastScheduleTime, ticks[0]) })
	stillScans(t, ns, "restart", names[0])
	stop()

	// The previous operator created the second tick's scan and stopped
	// before recording it: the next operator finds it and creates nothing.
	owned := func(name string, tick *time.Time) {
		t.Helper()
		s := &cwacv1alpha1.CwacScan{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{cwacv1alpha1.LabelSchedule: "restart"}},
			Spec:       simpleSpec(),
		}
		if tick != nil {
			s.Annotations = map[string]string{cwacv1alpha1.AnnotationScheduledTime: tick.UTC().Format(time.RFC3339)}
		}
		if err := controllerutil.SetControllerReference(getSchedule(t, ns, "restart"), s, scheme); err != nil {
			t.Fatal(err)
		}
		if err := k8s.Create(ctxT(t), s); err != nil {
			t.Fatal(err)
		}
	}
	owned(names[1], &ticks[1])
	clock.Set(ticks[1].Add(20 * time.Second))
	stop = startScheduler(t, clock)
	s := waitSchedule(t, ns, "restart", "the second tick recorded", func(s *cwacv1alpha1.CwacScanSchedule) bool {
		return timeIs(s.Status.LastScheduleTime, ticks[1]) && s.Status.LastScan == names[1] && len(s.Status.Active) == 2
	})
	stillScans(t, ns, "restart", names[0], names[1])
	stop()

	// The third tick's scan exists, owned by the schedule, but nothing ties
	// it to its tick (no scheduled-time annotation, as when a cache has not
	// caught up): creating the tick's scan meets it, and adopts it.
	owned(names[2], nil)
	clock.Set(ticks[2].Add(10 * time.Second))
	startScheduler(t, clock)
	waitSchedule(t, ns, "restart", "the third tick adopted", func(s *cwacv1alpha1.CwacScanSchedule) bool {
		return timeIs(s.Status.LastScheduleTime, ticks[2]) && s.Status.LastScan == names[2] && len(s.Status.Active) == 3
	})
	stillScans(t, ns, "restart", names...)
	if n := countEvents(t, s, "Normal/ScanCreated"); n != 1 {
		t.Errorf("%d ScanCreated events, want 1: %q", n, eventLines(t, s))
	}
}

// TestScheduleMissedTicks: ticks missed while the operator was down follow
// CronJob's documented rules.
func TestScheduleMissedTicks(t *testing.T) {
	// downAcross creates a schedule, lets the operator stop, sets the clock
	// and starts a new operator.
	downAcross := func(t *testing.T, clock *testClock, name, cron string, deadline *int64,
		at func(ticks []time.Time) time.Time) (string, *cwacv1alpha1.CwacScanSchedule, []time.Time) {
		t.Helper()
		stop := startScheduler(t, clock)
		ns := scheduleNamespace(t)
		sched := createSchedule(t, ns, name, func(s *cwacv1alpha1.CwacScanSchedule) {
			s.Spec.Schedule = cwacv1alpha1.CronSchedule(cron)
			s.Spec.StartingDeadlineSeconds = deadline
		})
		waitSchedule(t, ns, name, "ready", func(s *cwacv1alpha1.CwacScanSchedule) bool { return s.Status.NextScheduleTime != nil })
		stop()
		ticks := ticksOf(t, sched, 102)
		clock.Set(at(ticks))
		startScheduler(t, clock)
		return ns, sched, ticks
	}

	t.Run("no deadline: only the most recent runs", func(t *testing.T) {
		clock := newTestClock()
		ns, sched, ticks := downAcross(t, clock, "nodeadline", hourly, nil, func(ticks []time.Time) time.Time { return ticks[2].Add(10 * time.Minute) })
		name := scanspec.ScheduledScanName("nodeadline", ticks[2])
		waitScans(t, ns, "nodeadline", name)
		// The test clock runs on from where it was set, so a loaded machine
		// may see the scan created a second or more past the 10 minutes.
		waitScheduleEvent(t, sched, "Normal/ScanCreated", name, "for the tick at", ", 10m", "s late", "2 earlier missed ticks are not run")
		stillScans(t, ns, "nodeadline", name)
	})

	t.Run("within the deadline: runs", func(t *testing.T) {
		clock := newTestClock()
		ns, _, ticks := downAcross(t, clock, "within", hourly, ptr.To[int64](600), func(ticks []time.Time) time.Time { return ticks[0].Add(590 * time.Second) })
		waitScans(t, ns, "within", scanspec.ScheduledScanName("within", ticks[0]))
	})

	t.Run("past the deadline: missed, the next tick runs", func(t *testing.T) {
		clock := newTestClock()
		ns, sched, ticks := downAcross(t, clock, "past", hourly, ptr.To[int64](600), func(ticks []time.Time) time.Time { return ticks[0].Add(610 * time.Second) })
		waitScheduleEvent(t, sched, "Warning/MissedTick", "startingDeadlineSeconds (600s) late", "not run")
		waitSchedule(t, ns, "past", "the next tick awaited", func(s *cwacv1alpha1.CwacScanSchedule) bool {
			return timeIs(s.Status.NextScheduleTime, ticks[1]) && s.Status.LastScheduleTime == nil &&
				hasCondition(s, cwacv1alpha1.ConditionReady, metav1.ConditionTrue, cwacv1alpha1.ReasonScheduled)
		})
		stillScans(t, ns, "past")
		advance(t, clock, sched, ticks[1].Add(-300*time.Millisecond))
		waitScans(t, ns, "past", scanspec.ScheduledScanName("past", ticks[1]))
	})

	t.Run("more than 100 missed: nothing starts until a deadline narrows the count", func(t *testing.T) {
		clock := newTestClock()
		ns, sched, ticks := downAcross(t, clock, "toomany", "* * * * *", nil, func(ticks []time.Time) time.Time { return ticks[100].Add(time.Second) })
		waitSchedule(t, ns, "toomany", "TooManyMissedTicks", func(s *cwacv1alpha1.CwacScanSchedule) bool {
			return hasCondition(s, cwacv1alpha1.ConditionReady, metav1.ConditionFalse, cwacv1alpha1.ReasonTooManyMissedTicks)
		})
		waitScheduleEvent(t, sched, "Warning/TooManyMissedTicks", "more than 100 ticks were missed", "startingDeadlineSeconds")
		stillScans(t, ns, "toomany")
		s := getSchedule(t, ns, "toomany")
		s.Spec.StartingDeadlineSeconds = ptr.To[int64](300)
		if err := k8s.Update(ctxT(t), s); err != nil {
			t.Fatal(err)
		}
		waitScans(t, ns, "toomany", scanspec.ScheduledScanName("toomany", ticks[100]))
		waitSchedule(t, ns, "toomany", "ready again", func(s *cwacv1alpha1.CwacScanSchedule) bool {
			return hasCondition(s, cwacv1alpha1.ConditionReady, metav1.ConditionTrue, cwacv1alpha1.ReasonScheduled)
		})
	})
}

// TestScheduleSuspend: a suspended schedule creates nothing; resumed, it
// runs the most recent tick it missed (no deadline), as a CronJob does.
func TestScheduleSuspend(t *testing.T) {
	clock := newTestClock()
	startScheduler(t, clock)
	ns := scheduleNamespace(t)
	sched := createSchedule(t, ns, "paused", func(s *cwacv1alpha1.CwacScanSchedule) { s.Spec.Suspend = true })
	ticks := ticksOf(t, sched, 2)
	waitSchedule(t, ns, "paused", "suspended", func(s *cwacv1alpha1.CwacScanSchedule) bool {
		return hasCondition(s, cwacv1alpha1.ConditionReady, metav1.ConditionFalse, cwacv1alpha1.ReasonSuspended) && s.Status.NextScheduleTime == nil
	})
	advance(t, clock, sched, ticks[1].Add(5*time.Minute))
	stillScans(t, ns, "paused")
	s := getSchedule(t, ns, "paused")
	s.Spec.Suspend = false
	if err := k8s.Update(ctxT(t), s); err != nil {
		t.Fatal(err)
	}
	waitScans(t, ns, "paused", scanspec.ScheduledScanName("paused", ticks[1]))
	waitSchedule(t, ns, "paused", "ready", func(s *cwacv1alpha1.CwacScanSchedule) bool {
		return hasCondition(s, cwacv1alpha1.ConditionReady, metav1.ConditionTrue, cwacv1alpha1.ReasonScheduled)
	})
}

// TestScheduleConcurrencyPolicy: a tick while the previous scan runs.
func TestScheduleConcurrencyPolicy(t *testing.T) {
	clock := newTestClock()
	startScheduler(t, clock)
	// twoTicks runs the first tick, then brings the second while the first
	// tick's scan still runs.
	twoTicks := func(t *testing.T, name string, policy cwacv1alpha1.ConcurrencyPolicy) (string, *cwacv1alpha1.CwacScanSchedule, []time.Time, []string) {
		t.Helper()
		clock.Set(time.Now().Add(-24 * time.Hour)) // before this schedule's ticks
		ns := scheduleNamespace(t)
		sched := createSchedule(t, ns, name, func(s *cwacv1alpha1.CwacScanSchedule) { s.Spec.ConcurrencyPolicy = policy })
		ticks := ticksOf(t, sched, 2)
		names := []string{scanspec.ScheduledScanName(name, ticks[0]), scanspec.ScheduledScanName(name, ticks[1])}
		advance(t, clock, sched, ticks[0].Add(-300*time.Millisecond))
		waitScans(t, ns, name, names[0])
		waitSchedule(t, ns, name, "first scan active", func(s *cwacv1alpha1.CwacScanSchedule) bool { return len(s.Status.Active) == 1 })
		advance(t, clock, sched, ticks[1].Add(-300*time.Millisecond))
		return ns, sched, ticks, names
	}

	t.Run("Forbid skips the tick; it starts when the running scan ends", func(t *testing.T) {
		ns, sched, ticks, names := twoTicks(t, "forbid", cwacv1alpha1.ConcurrencyForbid)
		waitScheduleEvent(t, sched, "Normal/TickSkipped", names[0]+" is still running")
		stillScans(t, ns, "forbid", names[0])
		if s := getSchedule(t, ns, "forbid"); !timeIs(s.Status.LastScheduleTime, ticks[0]) {
			t.Errorf("lastScheduleTime %v, want the first tick: the skipped one is still unmet", s.Status.LastScheduleTime)
		}
		finishScan(t, ns, names[0], true)
		waitScans(t, ns, "forbid", names...)
	})

	t.Run("Allow runs both", func(t *testing.T) {
		ns, _, ticks, names := twoTicks(t, "allow", cwacv1alpha1.ConcurrencyAllow)
		waitScans(t, ns, "allow", names...)
		s := waitSchedule(t, ns, "allow", "both active", func(s *cwacv1alpha1.CwacScanSchedule) bool {
			return len(s.Status.Active) == 2 && timeIs(s.Status.LastScheduleTime, ticks[1])
		})
		if s.Status.Active[0].Name != names[0] || s.Status.Active[1].Name != names[1] {
			t.Errorf("active %+v", s.Status.Active)
		}
		// The column shows the oldest running scan; status.active lists all.
		if got := scheduleTable(t, ns)["allow"]["Active"]; got != names[0] {
			t.Errorf("Active column %q, want %q", got, names[0])
		}
	})

	t.Run("Replace cancels the running scan and starts the new one", func(t *testing.T) {
		ns, sched, _, names := twoTicks(t, "replace", cwacv1alpha1.ConcurrencyReplace)
		waitScans(t, ns, "replace", names[0], names[1])
		waitScheduleEvent(t, sched, "Normal/ScanReplaced", "cancelled running scan "+names[0])
		waitSchedule(t, ns, "replace", "only the new scan active", func(s *cwacv1alpha1.CwacScanSchedule) bool {
			return len(s.Status.Active) == 1 && s.Status.Active[0].Name == names[1]
		})
		// The replaced scan stays, as history: Failed/Cancelled, its Job gone.
		old := waitPhase(t, ns, names[0], cwacv1alpha1.PhaseFailed)
		if old.Status.Failure == nil || old.Status.Failure.Reason != cwacv1alpha1.ReasonCancelled {
			t.Errorf("replaced scan's failure = %+v, want reason Cancelled", old.Status.Failure)
		}
		waitFor(t, "the replaced scan's Job deleted", func() (bool, error) {
			if old.Status.JobName == "" {
				return true, nil // cancelled before its Job was made
			}
			err := k8s.Get(ctxT(t), client.ObjectKey{Namespace: ns, Name: old.Status.JobName}, &batchv1.Job{})
			if apierrors.IsNotFound(err) {
				return true, nil
			}
			return false, err
		})
	})
}

// TestScheduleHistoryPruning: finished scans beyond the limits go, oldest
// first, counted apart for Complete and Failed; running ones stay.
func TestScheduleHistoryPruning(t *testing.T) {
	clock := newTestClock()
	startScheduler(t, clock)
	ns := scheduleNamespace(t)
	sched := createSchedule(t, ns, "history", func(s *cwacv1alpha1.CwacScanSchedule) {
		s.Spec.SuccessfulScansHistoryLimit = ptr.To[int32](2)
		s.Spec.FailedScansHistoryLimit = ptr.To[int32](1)
		s.Spec.ConcurrencyPolicy = cwacv1alpha1.ConcurrencyAllow
	})
	ticks := ticksOf(t, sched, 5)
	names := make([]string, 0, len(ticks))
	for _, tick := range ticks {
		names = append(names, scanspec.ScheduledScanName("history", tick))
	}
	steps := []struct {
		complete bool
		left     []string
	}{
		{true, names[:1]},
		{true, names[:2]},   // the limit of 2 Complete reached
		{true, names[1:3]},  // one over: the oldest goes
		{false, names[1:4]}, // Failed counted apart
		{false, []string{names[1], names[2], names[4]}}, // one over the Failed limit
	}
	for i, step := range steps {
		advance(t, clock, sched, ticks[i].Add(-300*time.Millisecond))
		waitFor(t, "the tick's scan", func() (bool, error) {
			return slices.Contains(scanNames(scansOf(t, ns, "history")), names[i]), nil
		})
		finishScan(t, ns, names[i], step.complete)
		waitScans(t, ns, "history", step.left...)
	}
	s := waitSchedule(t, ns, "history", "the newest Complete result", func(s *cwacv1alpha1.CwacScanSchedule) bool {
		return s.Status.LastResult != nil && s.Status.LastResult.Name == names[2] && len(s.Status.Active) == 0
	})
	if n := countEvents(t, s, "Normal/ScanPruned"); n != 2 {
		t.Errorf("%d ScanPruned events, want 2: %q", n, eventLines(t, s))
	}
}

// TestScheduleInvalidValues: what the CRD lets through but cannot be used
// sets ScheduleValid=False naming the field, records one Warning Event, and
// never creates a scan, however much time passes; fixing the spec resumes.
func TestScheduleInvalidValues(t *testing.T) {
	clock := newTestClock()
	startScheduler(t, clock)
	tests := []struct {
		name   string
		mutate func(*cwacv1alpha1.CwacScanSchedule)
		reason string
		field  string
		fix    func(*cwacv1alpha1.CwacScanSchedule)
	}{
		{"cron value out of range", func(s *cwacv1alpha1.CwacScanSchedule) { s.Spec.Schedule = "61 * * * *" },
			cwacv1alpha1.ReasonInvalidSchedule, `spec.schedule: invalid value "61 * * * *": end of range (61) above maximum (59)`,
			func(s *cwacv1alpha1.CwacScanSchedule) { s.Spec.Schedule = hourly }},
		{"a date that never comes", func(s *cwacv1alpha1.CwacScanSchedule) { s.Spec.Schedule = "0 0 31 2 *" },
			cwacv1alpha1.ReasonInvalidSchedule, "spec.schedule", nil},
		{"unknown time zone", func(s *cwacv1alpha1.CwacScanSchedule) { s.Spec.TimeZone = "Mars/Olympus_Mons" },
			cwacv1alpha1.ReasonInvalidTimeZone, `spec.timeZone: invalid value "Mars/Olympus_Mons": unknown time zone`,
			func(s *cwacv1alpha1.CwacScanSchedule) { s.Spec.TimeZone = "Pacific/Auckland" }},
		{"bad template label", func(s *cwacv1alpha1.CwacScanSchedule) {
			s.Spec.ScanTemplate.Metadata.Labels = map[string]string{"team": "a 11y"}
		}, cwacv1alpha1.ReasonInvalidTemplate, "spec.scanTemplate.metadata.labels", nil},
		{"template overrides past their bounds", func(s *cwacv1alpha1.CwacScanSchedule) {
			s.Spec.ScanTemplate.Spec.ConfigOverrides = map[string]apiextensionsv1.JSON{
				"filter_to_urls": {Raw: []byte(strings.Repeat("[", 9900) + strings.Repeat("]", 9900))},
			}
		}, cwacv1alpha1.ReasonInvalidTemplate, "spec.scanTemplate.spec.configOverrides.filter_to_urls: arrays and objects nest deeper than the limit of 8 levels",
			func(s *cwacv1alpha1.CwacScanSchedule) { s.Spec.ScanTemplate.Spec.ConfigOverrides = nil }},
		{"a template override of the image's", func(s *cwacv1alpha1.CwacScanSchedule) {
			s.Spec.ScanTemplate.Spec.ConfigOverrides = map[string]apiextensionsv1.JSON{"chrome_binary_location": {Raw: []byte(`"/bin/sh"`)}}
		}, cwacv1alpha1.ReasonInvalidTemplate, "spec.scanTemplate.spec.configOverrides.chrome_binary_location: set by the operator", nil},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ns := scheduleNamespace(t)
			name := fmt.Sprintf("invalid-%d", i)
			clock.Set(time.Now())
			sched := createSchedule(t, ns, name, tt.mutate)
			s := waitSchedule(t, ns, name, "ScheduleValid=False", func(s *cwacv1alpha1.CwacScanSchedule) bool {
				return hasCondition(s, cwacv1alpha1.ConditionScheduleValid, metav1.ConditionFalse, tt.reason) &&
					hasCondition(s, cwacv1alpha1.ConditionReady, metav1.ConditionFalse, tt.reason)
			})
			for _, c := range s.Status.Conditions {
				if !strings.Contains(c.Message, tt.field) {
					t.Errorf("%s message %q does not name %q", c.Type, c.Message, tt.field)
				}
			}
			if s.Status.NextScheduleTime != nil {
				t.Errorf("nextScheduleTime %v", s.Status.NextScheduleTime)
			}
			waitScheduleEvent(t, sched, "Warning/"+tt.reason, tt.field)
			// Hours pass (and the schedule is woken): still nothing, and no second Event.
			advance(t, clock, sched, time.Now().Add(3*time.Hour))
			stillScans(t, ns, name)
			if n := countEvents(t, sched, "Warning/"+tt.reason); n != 1 {
				t.Errorf("%d %s events, want 1", n, tt.reason)
			}
			if tt.fix == nil {
				return
			}
			s = getSchedule(t, ns, name)
			tt.fix(s)
			if err := k8s.Update(ctxT(t), s); err != nil {
				t.Fatal(err)
			}
			waitSchedule(t, ns, name, "valid again", func(s *cwacv1alpha1.CwacScanSchedule) bool {
				return hasCondition(s, cwacv1alpha1.ConditionScheduleValid, metav1.ConditionTrue, cwacv1alpha1.ReasonValidSchedule) &&
					hasCondition(s, cwacv1alpha1.ConditionReady, metav1.ConditionTrue, cwacv1alpha1.ReasonScheduled)
			})
		})
	}
}

// TestScheduleCRDValidation: the API server refuses what the CRD can
// express, naming the field; the template gets the scan spec's own rules but
// stays editable.
func TestScheduleCRDValidation(t *testing.T) {
	ns := scheduleNamespace(t)
	valid := func(name string) *cwacv1alpha1.CwacScanSchedule {
		return &cwacv1alpha1.CwacScanSchedule{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec:       cwacv1alpha1.CwacScanScheduleSpec{Schedule: "0 2 * * *", ScanTemplate: cwacv1alpha1.CwacScanTemplate{Spec: simpleSpec()}},
		}
	}
	tests := []struct {
		name   string
		mutate func(*cwacv1alpha1.CwacScanSchedule)
		want   []string // "" for accepted; else substrings of the refusal
	}{
		{"minimal", func(*cwacv1alpha1.CwacScanSchedule) {}, nil},
		{"descriptor and zone", func(s *cwacv1alpha1.CwacScanSchedule) {
			s.Spec.Schedule = "@weekly"
			s.Spec.TimeZone = "America/Argentina/Buenos_Aires"
		}, nil},
		{"names, steps and lists", func(s *cwacv1alpha1.CwacScanSchedule) { s.Spec.Schedule = "*/15 6-18/2 1,15 JAN-JUN mon-fri" }, nil},
		{"limits 0 and 100", func(s *cwacv1alpha1.CwacScanSchedule) {
			s.Spec.SuccessfulScansHistoryLimit, s.Spec.FailedScansHistoryLimit, s.Spec.StartingDeadlineSeconds = ptr.To[int32](0), ptr.To[int32](100), ptr.To[int64](0)
		}, nil},
		{"52-character name", func(s *cwacv1alpha1.CwacScanSchedule) { s.Name = strings.Repeat("n", 52) }, nil},
		{"a range out of bounds passes the shape (the controller reports it)", func(s *cwacv1alpha1.CwacScanSchedule) { s.Spec.Schedule = "61 * * * *" }, nil},
		{"empty schedule", func(s *cwacv1alpha1.CwacScanSchedule) { s.Spec.Schedule = "" }, []string{"spec.schedule", "at least 1 chars long"}},
		{"prose", func(s *cwacv1alpha1.CwacScanSchedule) { s.Spec.Schedule = "every day at 2" }, []string{"spec.schedule", "must be five cron fields"}},
		{"four fields", func(s *cwacv1alpha1.CwacScanSchedule) { s.Spec.Schedule = "0 2 * *" }, []string{"spec.schedule", "must be five cron fields"}},
		{"six fields", func(s *cwacv1alpha1.CwacScanSchedule) { s.Spec.Schedule = "0 0 2 * * *" }, []string{"spec.schedule", "must be five cron fields"}},
		{"@every", func(s *cwacv1alpha1.CwacScanSchedule) { s.Spec.Schedule = "@every 1h" }, []string{"spec.schedule", "must be five cron fields"}},
		{"zone in the schedule", func(s *cwacv1alpha1.CwacScanSchedule) { s.Spec.Schedule = "CRON_TZ=UTC 0 2 * * *" },
			[]string{"spec.schedule", "set the time zone in spec.timeZone"}},
		{"long schedule", func(s *cwacv1alpha1.CwacScanSchedule) {
			s.Spec.Schedule = cwacv1alpha1.CronSchedule("0 " + strings.Repeat("1,", 70) + "2 * * *")
		}, []string{"spec.schedule", "128"}},
		{"zone Local", func(s *cwacv1alpha1.CwacScanSchedule) { s.Spec.TimeZone = "Local" }, []string{"spec.timeZone", "Local and localtime are not allowed"}},
		{"zone localtime", func(s *cwacv1alpha1.CwacScanSchedule) { s.Spec.TimeZone = "localtime" }, []string{"spec.timeZone", "should match"}},
		{"zone LocalTime", func(s *cwacv1alpha1.CwacScanSchedule) { s.Spec.TimeZone = "LocalTime" },
			[]string{"spec.timeZone", "Local and localtime are not allowed"}},
		{"zone path", func(s *cwacv1alpha1.CwacScanSchedule) { s.Spec.TimeZone = "../../etc/passwd" }, []string{"spec.timeZone", "should match"}},
		{"zone too long", func(s *cwacv1alpha1.CwacScanSchedule) {
			s.Spec.TimeZone = cwacv1alpha1.TimeZone(strings.Repeat("A", 65))
		}, []string{"spec.timeZone", "64"}},
		{"unknown policy", func(s *cwacv1alpha1.CwacScanSchedule) { s.Spec.ConcurrencyPolicy = "Sometimes" },
			[]string{"spec.concurrencyPolicy", `supported values: "Allow", "Forbid", "Replace"`}},
		{"negative deadline", func(s *cwacv1alpha1.CwacScanSchedule) { s.Spec.StartingDeadlineSeconds = ptr.To[int64](-1) },
			[]string{"spec.startingDeadlineSeconds", "greater than or equal to 0"}},
		{"negative history", func(s *cwacv1alpha1.CwacScanSchedule) { s.Spec.SuccessfulScansHistoryLimit = ptr.To[int32](-1) },
			[]string{"spec.successfulScansHistoryLimit", "greater than or equal to 0"}},
		{"history over 100", func(s *cwacv1alpha1.CwacScanSchedule) { s.Spec.FailedScansHistoryLimit = ptr.To[int32](101) },
			[]string{"spec.failedScansHistoryLimit", "less than or equal to 100"}},
		{"template without URLs", func(s *cwacv1alpha1.CwacScanSchedule) { s.Spec.ScanTemplate.Spec = cwacv1alpha1.CwacScanSpec{} },
			[]string{"spec.scanTemplate.spec", "at least one URL is required"}},
		{"template with an unknown plugin", func(s *cwacv1alpha1.CwacScanSchedule) {
			s.Spec.ScanTemplate.Spec.Plugins = map[string]bool{"seo_audit": true}
		},
			[]string{"spec.scanTemplate.spec.plugins", "unknown plugin name"}},
		{"template with a bad timeout", func(s *cwacv1alpha1.CwacScanSchedule) { s.Spec.ScanTemplate.Spec.Timeout = "25h" },
			[]string{"spec.scanTemplate.spec.timeout", "between 1m and 24h"}},
		{"53-character name", func(s *cwacv1alpha1.CwacScanSchedule) { s.Name = strings.Repeat("n", 53) }, []string{"metadata.name must be at most 52 characters"}},
	}
	t.Run("the sample", func(t *testing.T) {
		obj, _ := loadManifest(t, filepath.Join("..", "..", "config", "samples", "cwac_v1alpha1_cwacscanschedule.yaml"))
		obj.SetNamespace(ns)
		if err := k8s.Create(ctxT(t), obj, client.DryRunAll); err != nil {
			t.Errorf("refused: %v", err)
		}
	})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := valid("v")
			tt.mutate(s)
			err := k8s.Create(ctxT(t), s, client.DryRunAll)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted, want refused with %q", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("refused with %q, want it to name %q", err, w)
				}
			}
		})
	}

	// The template is editable (a scan's spec is immutable; a schedule's
	// template is not), and still validated on update.
	s := valid("editable")
	if err := k8s.Create(ctxT(t), s); err != nil {
		t.Fatal(err)
	}
	s.Spec.ScanTemplate.Spec.URLs = append(s.Spec.ScanTemplate.Spec.URLs, "https://other.example/")
	s.Spec.ScanTemplate.Spec.MaxLinksPerDomain = 10
	if err := k8s.Update(ctxT(t), s); err != nil {
		t.Fatalf("template edit refused: %v", err)
	}
	s.Spec.ScanTemplate.Spec.URLs, s.Spec.ScanTemplate.Spec.Sites = nil, nil
	if err := k8s.Update(ctxT(t), s); err == nil || !strings.Contains(err.Error(), "at least one URL is required") {
		t.Errorf("update to a template without URLs: %v", err)
	}
}
