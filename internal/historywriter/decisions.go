package historywriter

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/store"
)

// Decisions lists a namespace's CwacIssueDecisions (the MCP server's
// informer cache).
type Decisions interface {
	List(ctx context.Context, namespace string) ([]cwacv1alpha1.CwacIssueDecision, error)
}

// DecisionRecorder keeps each decision's history in the store
// (decision_events): Kubernetes keeps only a decision's current state.
// Every change to a decision wakes one pass, which compares the decisions
// listed with each one's last recorded event and records what happened
// since: made, changed, applied, not applied, expired, withdrawn. A pass
// is idempotent, so a restart, a missed watch event or a new leader
// records each change once; a decision deleted while no recorder ran is
// recorded withdrawn when the next one starts. Run it in the elected
// writer's process, beside Writer.
type DecisionRecorder struct {
	Store     *store.Store
	Namespace string
	Decisions Decisions
	// Changes wakes the recorder when a decision changes (the informer
	// that fills the cache Decisions lists).
	Changes Changes
	Log     *slog.Logger
	// Now is the clock (nil: time.Now): when a withdrawal was seen.
	Now func() time.Time
	// Recorded, when set, is called after events are recorded (it wakes
	// the issue events' sender; it must not block).
	Recorded func()
}

// decisionsKey is the recorder's one work item: "record what changed".
const decisionsKey = "record-decision-changes"

// Run records every change to the namespace's decisions until ctx ends.
func (r *DecisionRecorder) Run(ctx context.Context) error {
	if r.Store == nil || r.Decisions == nil || r.Changes == nil {
		return errors.New("history: recording decisions needs a store, the decisions and their changes")
	}
	queue := workqueue.NewTypedRateLimitingQueueWithConfig(
		workqueue.NewTypedItemExponentialFailureRateLimiter[string](5*time.Second, 5*time.Minute),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "cwac-decision-history"})
	defer queue.ShutDown()
	wake := func(any) { queue.Add(decisionsKey) }
	reg, err := r.Changes.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc: wake, DeleteFunc: wake, UpdateFunc: func(_, obj any) { wake(obj) },
	})
	if err != nil {
		return fmt.Errorf("history: watching decisions: %w", err)
	}
	defer func() { _ = r.Changes.RemoveEventHandler(reg) }() // the informer outlives the recorder
	if !toolscache.WaitForCacheSync(ctx.Done(), reg.HasSynced) {
		return ctx.Err()
	}
	queue.Add(decisionsKey) // what changed while no recorder ran
	go func() {
		<-ctx.Done()
		queue.ShutDown()
	}()
	for {
		key, shutdown := queue.Get()
		if shutdown {
			return ctx.Err()
		}
		if err := r.Pass(ctx); err != nil && ctx.Err() == nil {
			r.log().Error("issue history: recording decision changes", "err", err)
			queue.AddRateLimited(key)
		} else {
			queue.Forget(key)
		}
		queue.Done(key)
	}
}

func (r *DecisionRecorder) log() *slog.Logger {
	if r.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return r.Log
}

// Pass records what happened to each decision since its last recorded
// event, in one transaction.
func (r *DecisionRecorder) Pass(ctx context.Context) error {
	list, err := r.Decisions.List(ctx, r.Namespace)
	if err != nil {
		return err
	}
	latest, err := r.Store.LatestDecisionEvents(ctx, r.Namespace)
	if err != nil {
		return err
	}
	now := time.Now
	if r.Now != nil {
		now = r.Now
	}
	var events []store.DecisionEvent
	seen := map[string]bool{}
	for i := range list {
		d := &list[i]
		seen[string(d.UID)] = true
		var last *store.DecisionEvent
		if e, ok := latest[string(d.UID)]; ok {
			last = &e
		}
		if e, ok := DecisionEventFor(d, last, now()); ok {
			events = append(events, e)
		}
	}
	for uid, last := range latest {
		if !seen[uid] && last.Event != store.DecisionWithdrawn {
			gone := last
			gone.Seq, gone.Event, gone.At = last.Seq+1, store.DecisionWithdrawn, now().UTC()
			events = append(events, gone)
		}
	}
	if len(events) == 0 {
		return nil
	}
	if err := r.Store.AddDecisionEvents(ctx, events); err != nil {
		return err
	}
	if r.Recorded != nil {
		r.Recorded()
	}
	return nil
}

// DecisionEventFor is what happened to a decision since its last recorded
// event (nil: none recorded), if anything: made; changed (a new
// generation); or its Applied condition's reason for this generation
// changed (applied, not applied, expired). The event holds the decision as
// it stands, at the time the object gives for the change (now when it
// gives none).
func DecisionEventFor(d *cwacv1alpha1.CwacIssueDecision, last *store.DecisionEvent, now time.Time) (store.DecisionEvent, bool) {
	applied, appliedAt := appliedOf(d)
	e := store.DecisionEvent{Namespace: d.Namespace, UID: string(d.UID), Seq: 1, Name: d.Name, Generation: d.Generation,
		Organisation: d.Spec.Organisation, Kind: string(d.Spec.Kind), Reason: d.Spec.Reason, Rule: d.Spec.Rule, Pages: string(d.Spec.Pages),
		DecidedBy: d.Annotations[cwacv1alpha1.AnnotationDecidedBy], Applied: applied, At: now}
	if d.Spec.ReviewBy != nil {
		t := d.Spec.ReviewBy.UTC()
		e.ReviewBy = &t
	}
	if is := d.Spec.Issue; is != nil {
		e.IssueID, e.Element = is.ID, is.Element
	}
	switch {
	case last == nil:
		e.Event, e.At = store.DecisionMade, d.CreationTimestamp.Time
	case last.Event == store.DecisionWithdrawn:
		return store.DecisionEvent{}, false // a UID is never reused: its history has ended
	case d.Generation != last.Generation:
		e.Event = store.DecisionChanged
		if at := d.Status.DecidedAt; at != nil && d.Status.ObservedGeneration == d.Generation {
			e.At = at.Time
		}
	case applied != "" && applied != last.Applied:
		e.Event, e.At = appliedEvent(applied), appliedAt
	default:
		return store.DecisionEvent{}, false
	}
	if last != nil {
		e.Seq = last.Seq + 1
	}
	if e.At.IsZero() {
		e.At = now
	}
	e.At = e.At.UTC()
	return e, true
}

// appliedOf is the Applied condition's reason for the decision's own
// generation ("" while the operator has not checked it) and when it was
// set.
func appliedOf(d *cwacv1alpha1.CwacIssueDecision) (string, time.Time) {
	for _, c := range d.Status.Conditions {
		if c.Type == cwacv1alpha1.ConditionApplied && c.ObservedGeneration == d.Generation {
			return c.Reason, c.LastTransitionTime.Time
		}
	}
	return "", time.Time{}
}

// appliedEvent names the event of an Applied condition's reason.
func appliedEvent(reason string) string {
	switch reason {
	case cwacv1alpha1.ReasonEntitled:
		return store.DecisionApplied
	case cwacv1alpha1.ReasonExpired:
		return store.DecisionExpired
	}
	return store.DecisionNotApplied
}
