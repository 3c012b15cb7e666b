package historywriter

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
)

// fakeDecisions is the namespace's decisions and the informer that tells
// of their changes.
type fakeDecisions struct {
	mu        sync.Mutex
	decisions []cwacv1alpha1.CwacIssueDecision
	handler   toolscache.ResourceEventHandler
}

func (f *fakeDecisions) List(_ context.Context, ns string) ([]cwacv1alpha1.CwacIssueDecision, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []cwacv1alpha1.CwacIssueDecision
	for _, d := range f.decisions {
		if d.Namespace == ns {
			out = append(out, *d.DeepCopy())
		}
	}
	return out, nil
}

func (f *fakeDecisions) set(ds ...cwacv1alpha1.CwacIssueDecision) {
	f.mu.Lock()
	f.decisions = ds
	h := f.handler
	f.mu.Unlock()
	if h != nil {
		h.OnAdd(nil, false) // any change wakes one pass
	}
}

func (f *fakeDecisions) AddEventHandler(h toolscache.ResourceEventHandler) (toolscache.ResourceEventHandlerRegistration, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.handler = h
	return synced{}, nil
}

func (f *fakeDecisions) RemoveEventHandler(toolscache.ResourceEventHandlerRegistration) error {
	return nil
}

var t0 = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

// aDecision is a rule decision of the Ministry of Health, made at t0.
func aDecision(name string, generation int64) cwacv1alpha1.CwacIssueDecision {
	return cwacv1alpha1.CwacIssueDecision{
		ObjectMeta: metav1.ObjectMeta{Namespace: "a11y", Name: name, UID: types.UID("uid-" + name), Generation: generation,
			CreationTimestamp: metav1.NewTime(t0), Annotations: map[string]string{cwacv1alpha1.AnnotationDecidedBy: "lead"}},
		Spec: cwacv1alpha1.CwacIssueDecisionSpec{Organisation: "Ministry of Health", Kind: cwacv1alpha1.DecisionWontFix, Reason: "a widget",
			Rule: "color-contrast", Pages: "https://health.example/book"},
	}
}

// withApplied sets the Applied condition for the decision's generation.
func withApplied(d cwacv1alpha1.CwacIssueDecision, reason string, at time.Time) cwacv1alpha1.CwacIssueDecision {
	status := metav1.ConditionFalse
	if reason == cwacv1alpha1.ReasonEntitled {
		status = metav1.ConditionTrue
	}
	d.Status.ObservedGeneration, d.Status.DecidedAt = d.Generation, &metav1.Time{Time: at}
	d.Status.Conditions = []metav1.Condition{{Type: cwacv1alpha1.ConditionApplied, Status: status, Reason: reason,
		ObservedGeneration: d.Generation, LastTransitionTime: metav1.NewTime(at)}}
	return d
}

// TestDecisionEventFor: each change is one event, at the time the object
// gives for it; nothing else is.
func TestDecisionEventFor(t *testing.T) {
	now := t0.Add(time.Hour)
	made := &store.DecisionEvent{Seq: 1, Event: store.DecisionMade, Generation: 1}
	applied := &store.DecisionEvent{Seq: 2, Event: store.DecisionApplied, Generation: 1, Applied: cwacv1alpha1.ReasonEntitled}
	changed := withApplied(aDecision("d", 2), cwacv1alpha1.ReasonEntitled, t0.Add(30*time.Minute))
	for _, tc := range []struct {
		name  string
		d     cwacv1alpha1.CwacIssueDecision
		last  *store.DecisionEvent
		event string
		seq   int64
		at    time.Time
	}{
		{"first seen", aDecision("d", 1), nil, store.DecisionMade, 1, t0},
		{"first seen, applied already", withApplied(aDecision("d", 1), cwacv1alpha1.ReasonEntitled, t0.Add(time.Minute)), nil, store.DecisionMade, 1, t0},
		{"checked: applies", withApplied(aDecision("d", 1), cwacv1alpha1.ReasonEntitled, t0.Add(time.Minute)), made, store.DecisionApplied, 2, t0.Add(time.Minute)},
		{"checked: not entitled", withApplied(aDecision("d", 1), cwacv1alpha1.ReasonNotEntitled, t0.Add(time.Minute)), made,
			store.DecisionNotApplied, 2, t0.Add(time.Minute)},
		{"review date came", withApplied(aDecision("d", 1), cwacv1alpha1.ReasonExpired, t0.Add(48*time.Hour)), applied,
			store.DecisionExpired, 3, t0.Add(48 * time.Hour)},
		{"changed, checked again", changed, applied, store.DecisionChanged, 3, t0.Add(30 * time.Minute)},
		{"changed, not checked yet", aDecision("d", 2), applied, store.DecisionChanged, 3, now},
		{"nothing new", withApplied(aDecision("d", 1), cwacv1alpha1.ReasonEntitled, t0), applied, "", 0, time.Time{}},
		{"not checked yet, as recorded", aDecision("d", 1), made, "", 0, time.Time{}},
		{"withdrawn before", aDecision("d", 1), &store.DecisionEvent{Seq: 3, Event: store.DecisionWithdrawn, Generation: 1}, "", 0, time.Time{}},
	} {
		e, ok := DecisionEventFor(&tc.d, tc.last, now)
		if ok != (tc.event != "") || e.Event != tc.event || e.Seq != tc.seq || !e.At.Equal(tc.at) {
			t.Errorf("%s: %v %q #%d at %v, want %q #%d at %v", tc.name, ok, e.Event, e.Seq, e.At, tc.event, tc.seq, tc.at)
		}
	}
	e, _ := DecisionEventFor(&changed, nil, now)
	if e.Organisation != "Ministry of Health" || e.Kind != "WontFix" || e.Reason != "a widget" || e.Rule != "color-contrast" ||
		e.Pages != "https://health.example/book" || e.DecidedBy != "lead" || e.Applied != "Entitled" || e.Generation != 2 || e.UID != "uid-d" {
		t.Errorf("the decision as it stands: %+v", e)
	}
}

// TestDecisionRecorder: the recorder keeps each decision's history from
// its changes, once each whatever wakes it, and records a decision
// deleted while it did not run as withdrawn when it starts.
func TestDecisionRecorder(t *testing.T) {
	st := storetest.OpenSQLite(t)
	src := &fakeDecisions{}
	src.set(aDecision("gone-before", 1), aDecision("stays", 1))
	now := t0.Add(time.Hour)
	rec := &DecisionRecorder{Store: st, Namespace: "a11y", Decisions: src, Changes: src, Now: func() time.Time { return now }}
	ctx := context.Background()
	if err := rec.Pass(ctx); err != nil { // an earlier term
		t.Fatal(err)
	}
	src.set(aDecision("stays", 1))

	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- rec.Run(runCtx) }()
	history := func() string {
		t.Helper()
		events, err := st.DecisionEventsAbout(ctx, "a11y", "", "Ministry of Health", "color-contrast")
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, name := range []string{"gone-before", "stays", "new"} {
			for _, e := range events {
				if e.Name == name {
					out = append(out, name+":"+e.Event)
				}
			}
		}
		return strings.Join(out, ",")
	}
	wait := func(want string) {
		t.Helper()
		for range 200 {
			if history() == want {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Fatalf("history %s, want %s", history(), want)
	}
	wait("gone-before:made,gone-before:withdrawn,stays:made")
	src.set(withApplied(aDecision("stays", 1), cwacv1alpha1.ReasonEntitled, t0.Add(time.Minute)), aDecision("new", 1))
	wait("gone-before:made,gone-before:withdrawn,stays:made,stays:applied,new:made")
	src.set(withApplied(aDecision("stays", 1), cwacv1alpha1.ReasonEntitled, t0.Add(time.Minute)), aDecision("new", 1)) // nothing new
	src.set(aDecision("stays", 2), aDecision("new", 1))
	wait("gone-before:made,gone-before:withdrawn,stays:made,stays:applied,stays:changed,new:made")
	src.set(aDecision("stays", 2))
	wait("gone-before:made,gone-before:withdrawn,stays:made,stays:applied,stays:changed,new:made,new:withdrawn")
	cancel()
	if err := <-done; err != nil && err != context.Canceled {
		t.Fatal(err)
	}
	events, _ := st.DecisionEventsAbout(ctx, "a11y", "", "Ministry of Health", "color-contrast")
	seqs := map[string][]int64{}
	for _, e := range events {
		seqs[e.Name] = append(seqs[e.Name], e.Seq)
	}
	if !slices.Equal(seqs["stays"], []int64{1, 2, 3}) {
		t.Errorf("stays' events are numbered %v", seqs["stays"])
	}
}
