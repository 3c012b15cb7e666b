//go:build integration

package controller

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
	"github.com/a11y-dev/cwac-operator/internal/schedule"
)

// testClock is the operator's clock in schedule tests: set to any instant,
// it runs on in real time from there, so the controller's requeue at the
// next tick fires for real a moment after the test sets the clock just
// before that tick. No test waits for real minutes.
type testClock struct {
	mu     sync.Mutex
	offset time.Duration
}

// newTestClock starts a day behind real time: nothing a test creates is due
// until the test moves the clock.
func newTestClock() *testClock {
	return &testClock{offset: -24 * time.Hour}
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.offset)
}

func (c *testClock) Set(at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.offset = time.Until(at)
}

// startScheduler runs the operator (every controller, as cmd/manager wires
// them) on the test clock.
func startScheduler(t *testing.T, clock *testClock) (stop func()) {
	t.Helper()
	return startManagerWith(t, Options{JobOptions: testOpts, Policy: testPolicy(), Now: clock.Now})
}

// scheduleNamespace is a fresh namespace whose schedules are deleted before
// its scans when the test ends, so that no schedule outlives its test.
func scheduleNamespace(t *testing.T) string {
	t.Helper()
	ns := newNamespace(t)
	t.Cleanup(func() {
		_ = k8s.DeleteAllOf(context.Background(), &cwacv1alpha1.CwacScanSchedule{}, client.InNamespace(ns))
	})
	return ns
}

const hourly = "0 * * * *"

// createSchedule creates an hourly schedule of simpleSpec scans; mutate
// changes it first.
func createSchedule(t *testing.T, ns, name string, mutate func(*cwacv1alpha1.CwacScanSchedule)) *cwacv1alpha1.CwacScanSchedule {
	t.Helper()
	s := &cwacv1alpha1.CwacScanSchedule{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: cwacv1alpha1.CwacScanScheduleSpec{
			Schedule:     hourly,
			ScanTemplate: cwacv1alpha1.CwacScanTemplate{Spec: simpleSpec()},
		},
	}
	if mutate != nil {
		mutate(s)
	}
	if err := k8s.Create(ctxT(t), s); err != nil {
		t.Fatalf("creating schedule %s: %v", name, err)
	}
	return s
}

func getSchedule(t *testing.T, ns, name string) *cwacv1alpha1.CwacScanSchedule {
	t.Helper()
	s := &cwacv1alpha1.CwacScanSchedule{}
	if err := k8s.Get(ctxT(t), client.ObjectKey{Namespace: ns, Name: name}, s); err != nil {
		t.Fatal(err)
	}
	return s
}

// ticksOf returns the schedule's first n ticks after its creation.
func ticksOf(t *testing.T, s *cwacv1alpha1.CwacScanSchedule, n int) []time.Time {
	t.Helper()
	cron, err := schedule.Parse(string(s.Spec.Schedule), string(s.Spec.TimeZone))
	if err != nil {
		t.Fatal(err)
	}
	out := []time.Time{cron.Next(s.CreationTimestamp.Time)}
	for len(out) < n {
		out = append(out, cron.Next(out[len(out)-1]))
	}
	return out
}

// advance sets the clock and wakes the schedule, as its requeue timer would
// when that time came (the timer runs on real time: a jump of an hour would
// otherwise wait an hour).
func advance(t *testing.T, clock *testClock, s *cwacv1alpha1.CwacScanSchedule, at time.Time) {
	t.Helper()
	clock.Set(at)
	patch := fmt.Sprintf(`{"metadata":{"annotations":{"test.cwac.a11y.dev/now":%q}}}`, at.Format(time.RFC3339Nano))
	if err := k8s.Patch(ctxT(t), s.DeepCopy(), client.RawPatch("application/merge-patch+json", []byte(patch))); err != nil {
		t.Fatal(err)
	}
}

// scansOf lists the schedule's scans, oldest tick first.
func scansOf(t *testing.T, ns, name string) []cwacv1alpha1.CwacScan {
	t.Helper()
	list := &cwacv1alpha1.CwacScanList{}
	if err := k8s.List(ctxT(t), list, client.InNamespace(ns), client.MatchingLabels{cwacv1alpha1.LabelSchedule: name}); err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(list.Items, func(a, b cwacv1alpha1.CwacScan) int { return strings.Compare(a.Name, b.Name) })
	return list.Items
}

func scanNames(scans []cwacv1alpha1.CwacScan) []string {
	out := make([]string, 0, len(scans))
	for _, s := range scans {
		out = append(out, s.Name)
	}
	return out
}

// waitScans waits until the schedule's scans are exactly names.
func waitScans(t *testing.T, ns, sched string, names ...string) []cwacv1alpha1.CwacScan {
	t.Helper()
	var got []cwacv1alpha1.CwacScan
	slices.Sort(names)
	waitFor(t, fmt.Sprintf("scans %v", names), func() (bool, error) {
		got = scansOf(t, ns, sched)
		return slices.Equal(scanNames(got), names), fmt.Errorf("scans %v", scanNames(got))
	})
	return got
}

// stillScans checks, for a moment, that the schedule's scans stay exactly names.
func stillScans(t *testing.T, ns, sched string, names ...string) {
	t.Helper()
	slices.Sort(names)
	for range 10 {
		if got := scanNames(scansOf(t, ns, sched)); !slices.Equal(got, names) {
			t.Fatalf("scans %v, want %v", got, names)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitSchedule waits until cond holds for the schedule's status.
func waitSchedule(t *testing.T, ns, name, what string, cond func(s *cwacv1alpha1.CwacScanSchedule) bool) *cwacv1alpha1.CwacScanSchedule {
	t.Helper()
	var s *cwacv1alpha1.CwacScanSchedule
	waitFor(t, what, func() (bool, error) {
		s = getSchedule(t, ns, name)
		return cond(s), fmt.Errorf("status %+v", s.Status)
	})
	return s
}

// hasCondition: the schedule's condition has that status and reason, for its
// current generation.
func hasCondition(s *cwacv1alpha1.CwacScanSchedule, condType string, status metav1.ConditionStatus, reason string) bool {
	c := meta.FindStatusCondition(s.Status.Conditions, condType)
	return c != nil && c.Status == status && c.Reason == reason && c.ObservedGeneration == s.Generation
}

// scheduleEvents lists the Events recorded about a schedule.
func scheduleEvents(t *testing.T, s *cwacv1alpha1.CwacScanSchedule) []eventsv1.Event {
	t.Helper()
	list := &eventsv1.EventList{}
	if err := k8s.List(ctxT(t), list, client.InNamespace(s.Namespace)); err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(list.Items, func(a, b eventsv1.Event) int { return a.EventTime.Compare(b.EventTime.Time) })
	return slices.DeleteFunc(list.Items, func(e eventsv1.Event) bool { return e.Regarding.UID != s.UID })
}

func eventLine(e eventsv1.Event) string { return e.Type + "/" + e.Reason + ": " + e.Note }

// eventLines lists the schedule's Events as "Type/Reason: note".
func eventLines(t *testing.T, s *cwacv1alpha1.CwacScanSchedule) []string {
	t.Helper()
	evs := scheduleEvents(t, s)
	out := make([]string, 0, len(evs))
	for _, e := range evs {
		out = append(out, eventLine(e))
	}
	return out
}

// waitScheduleEvent waits for an Event about the schedule whose
// "Type/Reason: note" holds every part.
func waitScheduleEvent(t *testing.T, s *cwacv1alpha1.CwacScanSchedule, parts ...string) {
	t.Helper()
	waitFor(t, fmt.Sprintf("an event with %q", parts), func() (bool, error) {
		var lines []string
		for _, e := range scheduleEvents(t, s) {
			line := eventLine(e)
			lines = append(lines, line)
			all := true
			for _, p := range parts {
				all = all && strings.Contains(line, p)
			}
			if all {
				return true, nil
			}
		}
		return false, fmt.Errorf("events: %q", lines)
	})
}

// countEvents counts how often the schedule's Events of that "Type/Reason"
// happened (a repeated Event is one object with a series count).
func countEvents(t *testing.T, s *cwacv1alpha1.CwacScanSchedule, typeReason string) int {
	t.Helper()
	n := 0
	for _, e := range scheduleEvents(t, s) {
		if e.Type+"/"+e.Reason != typeReason {
			continue
		}
		if e.Series != nil {
			n += int(e.Series.Count)
		} else {
			n++
		}
	}
	return n
}

// finishScan plays the scan's Job to its end, as the Job controller and
// kubelet would: Complete with the real summary, or Failed.
func finishScan(t *testing.T, ns, name string, complete bool) {
	t.Helper()
	job := waitJob(t, ns, name)
	if complete {
		startPod(t, job, terminatedStatus(0, "Completed", report(scanpod.Report{
			Outcome: scanpod.OutcomeComplete, ResultsDir: "2026-11-22_02-00-00_" + name, Summary: realSummary(t),
		})))
		finishJob(t, job, true, "", "")
		waitPhase(t, ns, name, cwacv1alpha1.PhaseComplete)
		return
	}
	finishJob(t, job, false, "BackoffLimitExceeded", "Job has reached the specified backoff limit")
	waitPhase(t, ns, name, cwacv1alpha1.PhaseFailed)
}
