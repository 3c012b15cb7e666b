package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// The events of a decision's history (decision_events, migration 0009).
const (
	// DecisionMade: first seen.
	DecisionMade = "made"
	// DecisionChanged: its spec changed (a new generation).
	DecisionChanged = "changed"
	// DecisionApplied: the operator found its decider may make it.
	DecisionApplied = "applied"
	// DecisionNotApplied: the operator found it may not apply (Applied
	// says why: no decider recorded, or not entitled).
	DecisionNotApplied = "not applied"
	// DecisionExpired: its review date came.
	DecisionExpired = "expired"
	// DecisionWithdrawn: it was deleted.
	DecisionWithdrawn = "withdrawn"
)

// MaxDecisionTextBytes bounds each text kept of a decision (a reason is at
// most 2000 characters, which is at most 8000 bytes).
const MaxDecisionTextBytes = 8192

// DecisionEvent is one change to a decision, with the decision as it
// stood after it.
type DecisionEvent struct {
	Namespace, UID string
	// Seq numbers the decision's events from 1, in the order they happened.
	Seq        int64
	Name       string
	Event      string
	At         time.Time
	Generation int64
	// The decision: whose, what, why, who, until when, and its scope (an
	// issue by id and element, or a rule on the pages under a prefix).
	Organisation, Kind, Reason, DecidedBy string
	ReviewBy                              *time.Time
	IssueID, Element, Rule, Pages         string
	// Applied is the Applied condition's reason then ("" not checked yet).
	Applied string
}

const decisionEventColumns = `namespace, uid, seq, name, event, at, generation, organisation, kind, reason, review_by, decided_by,
	issue_id, element, rule, pages, applied`

// AddDecisionEvents records events, all or none.
func (s *Store) AddDecisionEvents(ctx context.Context, events []DecisionEvent) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: recording decision events: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	for _, e := range events {
		var review any
		if e.ReviewBy != nil {
			review = e.ReviewBy.Unix()
		}
		text := func(v string) string { return textcap.Head(v, MaxDecisionTextBytes) }
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO decision_events (`+decisionEventColumns+`)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
			e.Namespace, e.UID, e.Seq, e.Name, e.Event, e.At.Unix(), e.Generation, text(e.Organisation), e.Kind, text(e.Reason), review,
			text(e.DecidedBy), e.IssueID, e.Element, e.Rule, text(e.Pages), e.Applied); err != nil {
			return fmt.Errorf("store: recording decision %s/%s's event %d: %w", e.Namespace, e.Name, e.Seq, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: recording decision events: %w", err)
	}
	return nil
}

// LatestDecisionEvents are each decision's last event in the namespace,
// by UID (withdrawn ones included: their history has ended).
func (s *Store) LatestDecisionEvents(ctx context.Context, namespace string) (map[string]DecisionEvent, error) {
	events, err := s.decisionEvents(ctx, `WHERE e.namespace = ? AND e.seq = (SELECT MAX(l.seq) FROM decision_events l
		WHERE l.namespace = e.namespace AND l.uid = e.uid)`, namespace)
	if err != nil {
		return nil, err
	}
	out := make(map[string]DecisionEvent, len(events))
	for _, e := range events {
		out[e.UID] = e
	}
	return out, nil
}

// DecisionEventsAbout are the events of every decision that was ever
// about the issue (by its id) or about its organisation's rule, each
// decision's in order: the caller matches a rule decision's pages.
func (s *Store) DecisionEventsAbout(ctx context.Context, namespace, issueID, organisation, rule string) ([]DecisionEvent, error) {
	return s.decisionEvents(ctx, `WHERE e.namespace = ? AND e.uid IN (SELECT a.uid FROM decision_events a WHERE a.namespace = ?
		AND (a.issue_id = ? OR (a.issue_id = '' AND a.organisation = ? AND a.rule = ?)))`,
		namespace, namespace, issueID, organisation, rule)
}

func (s *Store) decisionEvents(ctx context.Context, where string, args ...any) ([]DecisionEvent, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT `+decisionEventColumns+` FROM decision_events e `+where+` ORDER BY e.uid, e.seq`), args...)
	if err != nil {
		return nil, fmt.Errorf("store: reading decision events: %w", err)
	}
	defer func() { _ = rows.Close() }()
	var out []DecisionEvent
	for rows.Next() {
		e, err := scanDecisionEvent(rows)
		if err != nil {
			return nil, fmt.Errorf("store: reading decision events: %w", err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: reading decision events: %w", err)
	}
	return out, nil
}

// scanDecisionEvent reads a row of decisionEventColumns, after the
// columns before it (into before).
func scanDecisionEvent(sc interface{ Scan(...any) error }, before ...any) (DecisionEvent, error) {
	var e DecisionEvent
	var at int64
	var review sql.NullInt64
	dest := append(before, &e.Namespace, &e.UID, &e.Seq, &e.Name, &e.Event, &at, &e.Generation, &e.Organisation, &e.Kind, &e.Reason,
		&review, &e.DecidedBy, &e.IssueID, &e.Element, &e.Rule, &e.Pages, &e.Applied)
	if err := sc.Scan(dest...); err != nil {
		return DecisionEvent{}, err
	}
	e.At = time.Unix(at, 0).UTC()
	if review.Valid {
		t := time.Unix(review.Int64, 0).UTC()
		e.ReviewBy = &t
	}
	return e, nil
}
