package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// The states of one scan's issue events for one receiver.
const (
	// EventsPending: batches are left to send (or to try again).
	EventsPending = "pending"
	// EventsSent: every batch was accepted.
	EventsSent = "sent"
	// EventsFailed: given up; LastError says why.
	EventsFailed = "failed"
)

// MaxEventErrorBytes bounds the error kept for a delivery.
const MaxEventErrorBytes = 512

// IssueEventDelivery is where one recorded scan's issue changes stand for
// one receiver of issue events.
type IssueEventDelivery struct {
	ScanID     int64
	ScanUID    string
	Namespace  string
	Name       string
	FinishedAt time.Time
	// Pruned: the scan's changes are gone (retention); nothing is left to send.
	Pruned   bool
	Receiver string
	// After is the last issue id sent: the next batch starts past it.
	After int64
	// Batches and Changes count what the receiver accepted.
	Batches int64
	Changes int64
	State   string
	// Attempts counts the failed tries since the last accepted batch.
	Attempts      int
	NextAttemptAt time.Time
	LastError     string
	UpdatedAt     time.Time
}

const deliveryColumns = `d.scan_id, s.uid, s.namespace, s.name, s.finished_at, s.pruned_at IS NOT NULL, d.receiver, d.after_issue_id,
	d.batches, d.changes, d.state, d.attempts, d.next_attempt_at, d.last_error, d.updated_at`

func scanDelivery(sc interface{ Scan(...any) error }) (IssueEventDelivery, error) {
	var d IssueEventDelivery
	var finished, next, updated int64
	err := sc.Scan(&d.ScanID, &d.ScanUID, &d.Namespace, &d.Name, &finished, &d.Pruned, &d.Receiver, &d.After,
		&d.Batches, &d.Changes, &d.State, &d.Attempts, &next, &d.LastError, &updated)
	d.FinishedAt, d.NextAttemptAt, d.UpdatedAt = time.Unix(finished, 0).UTC(), time.Unix(next, 0).UTC(), time.Unix(updated, 0).UTC()
	return d, err
}

// IssueEventsDue are the receiver's deliveries with batches left to send,
// oldest scan first, at most limit. A receiver seen for the first time
// starts with the scans recorded after now; each scan recorded since it
// was first seen gets its delivery here, so a scan recorded while the
// sender was down is still sent.
func (s *Store) IssueEventsDue(ctx context.Context, receiver string, limit int) ([]IssueEventDelivery, error) {
	if receiver == "" || limit < 1 || limit > MaxLimit {
		return nil, fmt.Errorf("store: issue events of receiver %q, limit %d: need a receiver and a limit of 1 to %d", receiver, limit, MaxLimit)
	}
	now := s.now().Unix()
	if err := s.seeReceiver(ctx, receiver, now); err != nil {
		return nil, err
	}
	if _, err := s.db.ExecContext(ctx, s.q(`INSERT INTO issue_event_deliveries
		(scan_id, receiver, after_issue_id, batches, changes, state, attempts, next_attempt_at, last_error, updated_at)
		SELECT s.id, r.name, 0, 0, 0, 'pending', 0, 0, '', ? FROM scans s JOIN issue_event_receivers r ON r.name = ?
		WHERE s.id > r.since_scan_id AND s.pruned_at IS NULL
			AND NOT EXISTS (SELECT 1 FROM issue_event_deliveries d WHERE d.scan_id = s.id AND d.receiver = r.name)`), now, receiver); err != nil {
		return nil, fmt.Errorf("store: adding issue-event deliveries of %q: %w", receiver, err)
	}
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT `+deliveryColumns+` FROM issue_event_deliveries d JOIN scans s ON s.id = d.scan_id
		WHERE d.receiver = ? AND d.state = 'pending' ORDER BY d.scan_id LIMIT ?`), receiver, limit)
	if err != nil {
		return nil, fmt.Errorf("store: reading issue-event deliveries of %q: %w", receiver, err)
	}
	defer func() { _ = rows.Close() }()
	var out []IssueEventDelivery
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			return nil, fmt.Errorf("store: reading issue-event deliveries of %q: %w", receiver, err)
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// seeReceiver remembers when a receiver was first seen (now): the scans
// recorded and the decision events seen after it are what it is sent.
func (s *Store) seeReceiver(ctx context.Context, receiver string, now int64) error {
	// SQLite needs a WHERE before ON CONFLICT in an INSERT … SELECT.
	if _, err := s.db.ExecContext(ctx, s.q(`INSERT INTO issue_event_receivers (name, since_scan_id, since_at)
		SELECT ?, COALESCE(MAX(id), 0), ? FROM scans WHERE true ON CONFLICT (name) DO NOTHING`), receiver, now); err != nil {
		return fmt.Errorf("store: adding issue-event receiver %q: %w", receiver, err)
	}
	return nil
}

// IssueEventsSent records a batch the receiver accepted: its last issue
// id and how many changes it held; last says it was the scan's last
// batch (the delivery is then sent). No changes is no batch: a scan with
// nothing for the receiver ends sent without one.
func (s *Store) IssueEventsSent(ctx context.Context, scanID int64, receiver string, after int64, changes int, last bool) error {
	state := EventsPending
	if last {
		state = EventsSent
	}
	batches := 0
	if changes > 0 {
		batches = 1
	}
	return s.updateDelivery(ctx, scanID, receiver, `after_issue_id = ?, batches = batches + ?, changes = changes + ?, state = ?,
		attempts = 0, next_attempt_at = 0, last_error = '', updated_at = ?`, after, batches, changes, state, s.now().Unix())
}

// IssueEventsFailed records a failed try: the tries so far, when to try
// again, and why; givenUp ends the delivery (failed).
func (s *Store) IssueEventsFailed(ctx context.Context, scanID int64, receiver string, attempts int, next time.Time, why string, givenUp bool) error {
	set, args := s.failedTry(attempts, next, why, givenUp)
	return s.updateDelivery(ctx, scanID, receiver, set, args...)
}

// failedTry is the SET clause, and its arguments, that records a failed
// try of a delivery or a decision event.
func (s *Store) failedTry(attempts int, next time.Time, why string, givenUp bool) (string, []any) {
	state := EventsPending
	if givenUp {
		state = EventsFailed
	}
	return `attempts = ?, next_attempt_at = ?, last_error = ?, state = ?, updated_at = ?`,
		[]any{attempts, next.Unix(), textcap.Head(why, MaxEventErrorBytes), state, s.now().Unix()}
}

func (s *Store) updateDelivery(ctx context.Context, scanID int64, receiver, set string, args ...any) error {
	return s.updateOne(ctx, fmt.Sprintf("scan %d's issue events for %q", scanID, receiver),
		`UPDATE issue_event_deliveries SET `+set+` WHERE scan_id = ? AND receiver = ?`, append(args, scanID, receiver)...)
}

// updateOne runs an UPDATE that must change exactly one row (what names
// it in the error).
func (s *Store) updateOne(ctx context.Context, what, query string, args ...any) error {
	res, err := s.db.ExecContext(ctx, s.q(query), args...)
	if err != nil {
		return fmt.Errorf("store: recording %s: %w", what, err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return fmt.Errorf("store: recording %s: %d rows (%v)", what, n, err)
	}
	return nil
}

// ScanIssueEvents are a scan's deliveries to each receiver, by receiver
// name (none when no receiver has seen it).
func (s *Store) ScanIssueEvents(ctx context.Context, namespaces []string, uid string) ([]IssueEventDelivery, error) {
	inNS, nsArgs, err := inNamespaces("s.namespace", namespaces)
	if err != nil {
		return nil, err
	}
	args := append([]any{uid}, nsArgs...)
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT `+deliveryColumns+` FROM issue_event_deliveries d JOIN scans s ON s.id = d.scan_id
		WHERE s.uid = ? AND `+inNS+` ORDER BY d.receiver`), args...)
	if err != nil {
		return nil, fmt.Errorf("store: reading scan %s's issue events: %w", uid, err)
	}
	defer func() { _ = rows.Close() }()
	var out []IssueEventDelivery
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			return nil, fmt.Errorf("store: reading scan %s's issue events: %w", uid, err)
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// decisionEventColumnsOfE are decisionEventColumns of the table named e
// in a join.
var decisionEventColumnsOfE = "e." + strings.ReplaceAll(strings.Join(strings.Fields(decisionEventColumns), " "), ", ", ", e.")

// SentDecisionEvents are the decision events receivers are sent: those
// that start a decision's effect on issues (applied) or end it.
var SentDecisionEvents = []string{DecisionApplied, DecisionNotApplied, DecisionExpired, DecisionWithdrawn}

// DecisionEventDelivery is one decision event due to one receiver.
type DecisionEventDelivery struct {
	Event         DecisionEvent
	Receiver      string
	Attempts      int
	NextAttemptAt time.Time
	LastError     string
}

// DecisionEventsDue are the decision events (of SentDecisionEvents) left
// to send to the receiver, in the order they were seen, at most limit:
// those seen since the receiver was first seen, each once, and only those
// about organisations when it is given some.
func (s *Store) DecisionEventsDue(ctx context.Context, receiver string, organisations []string, limit int) ([]DecisionEventDelivery, error) {
	if receiver == "" || limit < 1 || limit > MaxLimit || len(organisations) > MaxWithinNames {
		return nil, fmt.Errorf("store: decision events of receiver %q, limit %d, %d organisations: need a receiver, a limit of 1 to %d "+
			"and at most %d organisations", receiver, limit, len(organisations), MaxLimit, MaxWithinNames)
	}
	now := s.now().Unix()
	if err := s.seeReceiver(ctx, receiver, now); err != nil {
		return nil, err
	}
	kinds := make([]any, len(SentDecisionEvents))
	for i, k := range SentDecisionEvents {
		kinds[i] = k
	}
	args := append([]any{now, receiver}, kinds...)
	within := ""
	if len(organisations) > 0 {
		within = ` AND e.organisation IN (` + strings.TrimSuffix(strings.Repeat("?, ", len(organisations)), ", ") + `)`
		for _, o := range organisations {
			args = append(args, o)
		}
	}
	if _, err := s.db.ExecContext(ctx, s.q(`INSERT INTO issue_event_decisions
		(receiver, namespace, uid, seq, state, attempts, next_attempt_at, last_error, updated_at)
		SELECT r.name, e.namespace, e.uid, e.seq, 'pending', 0, 0, '', ? FROM decision_events e JOIN issue_event_receivers r ON r.name = ?
		WHERE e.at >= r.since_at AND e.event IN (`+strings.TrimSuffix(strings.Repeat("?, ", len(kinds)), ", ")+`)`+within+`
			AND NOT EXISTS (SELECT 1 FROM issue_event_decisions d
				WHERE d.receiver = r.name AND d.namespace = e.namespace AND d.uid = e.uid AND d.seq = e.seq)`), args...); err != nil {
		return nil, fmt.Errorf("store: adding decision events for %q: %w", receiver, err)
	}
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT d.attempts, d.next_attempt_at, d.last_error, `+decisionEventColumnsOfE+`
		FROM issue_event_decisions d JOIN decision_events e ON e.namespace = d.namespace AND e.uid = d.uid AND e.seq = d.seq
		WHERE d.receiver = ? AND d.state = 'pending' ORDER BY e.at, e.namespace, e.uid, e.seq LIMIT ?`), receiver, limit)
	if err != nil {
		return nil, fmt.Errorf("store: reading decision events for %q: %w", receiver, err)
	}
	defer func() { _ = rows.Close() }()
	var out []DecisionEventDelivery
	for rows.Next() {
		d := DecisionEventDelivery{Receiver: receiver}
		var next int64
		if d.Event, err = scanDecisionEvent(rows, &d.Attempts, &next, &d.LastError); err != nil {
			return nil, fmt.Errorf("store: reading decision events for %q: %w", receiver, err)
		}
		d.NextAttemptAt = time.Unix(next, 0).UTC()
		out = append(out, d)
	}
	return out, rows.Err()
}

// DecisionEventSent records that the receiver accepted the event.
func (s *Store) DecisionEventSent(ctx context.Context, receiver string, e DecisionEvent) error {
	return s.updateDecisionDelivery(ctx, receiver, e, `state = 'sent', last_error = '', updated_at = ?`, s.now().Unix())
}

// DecisionEventFailed records a failed try: the tries so far, when to try
// again, and why; givenUp ends it (failed).
func (s *Store) DecisionEventFailed(ctx context.Context, receiver string, e DecisionEvent, attempts int, next time.Time, why string, givenUp bool) error {
	set, args := s.failedTry(attempts, next, why, givenUp)
	return s.updateDecisionDelivery(ctx, receiver, e, set, args...)
}

func (s *Store) updateDecisionDelivery(ctx context.Context, receiver string, e DecisionEvent, set string, args ...any) error {
	return s.updateOne(ctx, fmt.Sprintf("decision %s/%s's event %d for %q", e.Namespace, e.Name, e.Seq, receiver),
		`UPDATE issue_event_decisions SET `+set+` WHERE receiver = ? AND namespace = ? AND uid = ? AND seq = ?`,
		append(args, receiver, e.Namespace, e.UID, e.Seq)...)
}
