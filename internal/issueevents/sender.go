package issueevents

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/backoff"
	"github.com/a11y-dev/cwac-operator/internal/decide"
	"github.com/a11y-dev/cwac-operator/internal/mcpapi"
	"github.com/a11y-dev/cwac-operator/internal/notify"
	"github.com/a11y-dev/cwac-operator/internal/store"
)

// Retry is how a batch the receiver did not accept is tried again.
type Retry = backoff.Doubling

// DefaultRetry tries for about ten hours: a tracker's outage or a
// rotated key has time to be mended before a scan's changes are given up.
var DefaultRetry = Retry{First: 30 * time.Second, Max: time.Hour, Attempts: 16}

// covering says which applied decision covers an issue (nil: none).
type covering = func(store.Issue) *mcpapi.HistoryDecision

// Config is what a Sender needs.
type Config struct {
	Store     *store.Store
	Receivers []Receiver
	// HTTP posts the batches, within the target policy.
	HTTP *notify.Sender
	// Decisions says which decision covers each issue; nil: none.
	Decisions decide.Lister
	Log       *slog.Logger
	Retry     Retry
	// BatchSize is the most changes one batch holds (default 100).
	BatchSize int
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Sender sends the recorded scans' changes to the receivers. Run it in
// the history's elected writer only: one sender at a time.
type Sender struct{ cfg Config }

// New checks the configuration.
func New(cfg Config) (*Sender, error) {
	if cfg.Store == nil || cfg.HTTP == nil {
		return nil, errors.New("issue events: a store and an HTTP sender are required")
	}
	if err := cfg.Retry.Check(); err != nil {
		return nil, fmt.Errorf("issue events: %w", err)
	}
	if cfg.BatchSize == 0 {
		cfg.BatchSize = 100
	}
	if cfg.BatchSize < 1 || cfg.BatchSize >= store.MaxLimit {
		return nil, fmt.Errorf("issue events: batch size %d: must be 1 to %d", cfg.BatchSize, store.MaxLimit-1)
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Sender{cfg: cfg}, nil
}

// idle is the wait when nothing is due: a recorded scan wakes the sender
// sooner.
const idle = time.Hour

// Run sends until ctx ends: a pass at start, after each wake (a scan was
// recorded) and when a retry is due. Nothing polls.
func (s *Sender) Run(ctx context.Context, wake <-chan struct{}) error {
	for {
		wait, err := s.Pass(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			s.cfg.Log.Error("issue events: a pass failed; tried again", "err", err, "retryIn", s.cfg.Retry.First)
			wait = s.cfg.Retry.First
		}
		if wait <= 0 {
			wait = idle
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-wake:
		case <-t.C:
		}
		t.Stop()
	}
}

// Pass sends what is due to every receiver and returns the wait until
// the earliest retry (0: none waits). A receiver's scans go in the order
// they were recorded: one whose batch failed holds back its later scans
// until it is sent or given up, so a tracker never hears of a fix before
// the opening.
func (s *Sender) Pass(ctx context.Context) (time.Duration, error) {
	var next time.Duration
	cache := map[string]covering{}
	var errs []error
	for _, r := range s.cfg.Receivers {
		// A receiver's scans and its decisions are apart: one waiting
		// does not hold back the other.
		scans, err := s.receiverPass(ctx, r, cache)
		if err != nil {
			errs = append(errs, fmt.Errorf("receiver %s: %w", r.Name, err))
		}
		decisions, err := s.decisionPass(ctx, r)
		if err != nil {
			errs = append(errs, fmt.Errorf("receiver %s, decisions: %w", r.Name, err))
		}
		for _, wait := range []time.Duration{scans, decisions} {
			if wait > 0 && (next == 0 || wait < next) {
				next = wait
			}
		}
	}
	return next, errors.Join(errs...)
}

// receiverPass sends the receiver's due scans, a batch at a time.
func (s *Sender) receiverPass(ctx context.Context, r Receiver, cache map[string]covering) (time.Duration, error) {
	for {
		due, err := s.cfg.Store.IssueEventsDue(ctx, r.Name, 20)
		if err != nil || len(due) == 0 {
			return 0, err
		}
		for _, d := range due {
			if wait := d.NextAttemptAt.Sub(s.cfg.Now()); wait > 0 {
				return wait, nil
			}
			if d.Pruned {
				s.cfg.Log.Warn("issue events: a scan was pruned before its changes were sent", "receiver", r.Name, "scan", d.Name)
				if err := s.cfg.Store.IssueEventsFailed(ctx, d.ScanID, r.Name, d.Attempts, time.Time{},
					"the scan was pruned from the history before its changes were sent", true); err != nil {
					return 0, err
				}
				continue
			}
			c, err := s.coveringIn(ctx, d.Namespace, cache)
			if err != nil {
				return 0, err
			}
			if wait, err := s.sendScan(ctx, r, d, c); err != nil || wait > 0 {
				return wait, err
			}
		}
	}
}

// sendScan sends one scan's batches from where the delivery stands; it
// returns the wait until a failed batch's retry (0: the scan is done).
func (s *Sender) sendScan(ctx context.Context, r Receiver, d store.IssueEventDelivery, cover covering) (time.Duration, error) {
	var within *store.Within
	if len(r.Organisations) > 0 {
		within = &store.Within{Organisations: r.Organisations}
	}
	for {
		// One more than a batch holds says whether more follow.
		page, err := s.cfg.Store.ScanChanges(ctx, store.ChangesFilter{Namespaces: []string{d.Namespace}, UID: d.ScanUID,
			After: d.After, Limit: s.cfg.BatchSize + 1, Within: within})
		if err != nil {
			return 0, err
		}
		changes, more := page.Changes, len(page.Changes) > s.cfg.BatchSize
		if more {
			changes = changes[:s.cfg.BatchSize]
		}
		if len(changes) == 0 {
			// Nothing for this receiver (or nothing left): done, unsent.
			return 0, s.cfg.Store.IssueEventsSent(ctx, d.ScanID, r.Name, d.After, 0, true)
		}
		b, err := batchOf(d, changes, more, cover)
		if err != nil {
			return 0, s.cfg.Store.IssueEventsFailed(ctx, d.ScanID, r.Name, d.Attempts+1, time.Time{}, err.Error(), true)
		}
		if err := s.cfg.HTTP.Send(ctx, r.URL, b.body, notify.Headers(Event, b.id, r.Key, b.body, s.cfg.Now())); err != nil {
			return s.failed(ctx, r, d, err)
		}
		if err := s.cfg.Store.IssueEventsSent(ctx, d.ScanID, r.Name, b.last, b.n, b.done); err != nil {
			return 0, err
		}
		if b.done {
			s.cfg.Log.Info("issue events: a scan's changes were sent", "receiver", r.Name, "scan", d.Name, "batches", d.Batches+1,
				"changes", d.Changes+int64(b.n))
			return 0, nil
		}
		d.After, d.Batches, d.Changes, d.Attempts = b.last, d.Batches+1, d.Changes+int64(b.n), 0
	}
}

// failed records a batch the receiver did not take: tried again after
// the backoff, or given up when the error is permanent or the tries are
// spent.
func (s *Sender) failed(ctx context.Context, r Receiver, d store.IssueEventDelivery, err error) (time.Duration, error) {
	wait, givenUp, why := s.backoff(r, "scan "+d.Name, d.Attempts+1, err)
	if serr := s.cfg.Store.IssueEventsFailed(ctx, d.ScanID, r.Name, d.Attempts+1, s.cfg.Now().Add(wait), why, givenUp); serr != nil {
		return 0, serr
	}
	return wait, nil
}

// coveringIn says which applied decision covers an issue of the
// namespace, read once a pass.
func (s *Sender) coveringIn(ctx context.Context, ns string, cache map[string]covering) (covering, error) {
	if c, ok := cache[ns]; ok {
		return c, nil
	}
	c := func(store.Issue) *mcpapi.HistoryDecision { return nil }
	if s.cfg.Decisions != nil {
		var err error
		if c, err = decide.CoveringIn(ctx, s.cfg.Decisions, ns, s.cfg.Now(), s.cfg.Log); err != nil {
			return nil, fmt.Errorf("reading the decisions of %s: %w", ns, err)
		}
	}
	cache[ns] = c
	return c, nil
}
