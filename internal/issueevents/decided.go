package issueevents

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/notify"
	"github.com/a11y-dev/cwac-operator/internal/store"
)

// DecidedEvent is the X-Cwac-Event header of a decision's message.
const DecidedEvent = "IssueDecided"

// The changes a decision's message says.
const (
	// ChangeDecided: the decision now covers what it names (applied).
	ChangeDecided = "decided"
	// ChangeUndecided: it no longer does (expired, withdrawn, or found not
	// to apply): the issues it covered count again.
	ChangeUndecided = "undecided"
)

// DecidedMessage is the JSON body sent when a decision starts or stops
// covering issues: per issue (a decision about one issue) or per
// organisation and rule (on a page prefix).
type DecidedMessage struct {
	SchemaVersion string `json:"schemaVersion"`
	// ID is "<namespace>/<decision uid>/<event seq>/<receiver>": the same on
	// every retry; drop repeats.
	ID       string       `json:"id"`
	Receiver string       `json:"receiver"`
	Decided  DecidedFacts `json:"decided"`
}

// DecidedFacts are the decision as it stood at the event.
type DecidedFacts struct {
	Change string `json:"change"`
	// Event is the decision's history event: applied, not applied,
	// expired or withdrawn (docs/decisions.md).
	Event string    `json:"event"`
	At    time.Time `json:"at"`
	// Decision is the CwacIssueDecision, namespace/name.
	Decision     string     `json:"decision"`
	Organisation string     `json:"organisation"`
	Kind         string     `json:"kind"`
	Reason       string     `json:"reason"`
	DecidedBy    string     `json:"decidedBy,omitempty"`
	ReviewBy     *time.Time `json:"reviewBy,omitempty"`
	// Issue is the one issue it is about; else Rule (and Pages) are.
	Issue *DecidedIssue `json:"issue,omitempty"`
	Rule  string        `json:"rule,omitempty"`
	Pages string        `json:"pages,omitempty"`
}

// DecidedIssue names one issue by the history's identity and its element.
type DecidedIssue struct {
	Fingerprint string `json:"fingerprint"`
	Element     string `json:"element"`
}

// decidedOf is the message of one decision event for a receiver.
func decidedOf(receiver string, e store.DecisionEvent) DecidedMessage {
	change := ChangeUndecided
	if e.Event == store.DecisionApplied {
		change = ChangeDecided
	}
	f := DecidedFacts{Change: change, Event: e.Event, At: e.At, Decision: e.Namespace + "/" + e.Name, Organisation: e.Organisation,
		Kind: e.Kind, Reason: e.Reason, DecidedBy: e.DecidedBy, ReviewBy: e.ReviewBy, Rule: e.Rule, Pages: e.Pages}
	if e.IssueID != "" {
		f.Issue, f.Rule, f.Pages = &DecidedIssue{Fingerprint: e.IssueID, Element: e.Element}, "", ""
	}
	return DecidedMessage{SchemaVersion: SchemaVersion, ID: fmt.Sprintf("%s/%s/%d/%s", e.Namespace, e.UID, e.Seq, receiver),
		Receiver: receiver, Decided: f}
}

// decisionPass sends the receiver's due decision events, in the order
// they were seen: one being retried holds back the later ones (an expiry
// never arrives before the decision). It returns the wait until a retry.
func (s *Sender) decisionPass(ctx context.Context, r Receiver) (time.Duration, error) {
	for {
		due, err := s.cfg.Store.DecisionEventsDue(ctx, r.Name, r.Organisations, 50)
		if err != nil || len(due) == 0 {
			return 0, err
		}
		for _, d := range due {
			if wait := d.NextAttemptAt.Sub(s.cfg.Now()); wait > 0 {
				return wait, nil
			}
			m := decidedOf(r.Name, d.Event)
			body, err := notify.Marshal(m)
			if err != nil {
				// A decision's texts are bounded far below the cap: never
				// sendable as it stands, so given up.
				if err := s.cfg.Store.DecisionEventFailed(ctx, r.Name, d.Event, d.Attempts+1, time.Time{}, err.Error(), true); err != nil {
					return 0, err
				}
				continue
			}
			if err := s.cfg.HTTP.Send(ctx, r.URL, body, notify.Headers(DecidedEvent, m.ID, r.Key, body, s.cfg.Now())); err != nil {
				wait, givenUp, why := s.backoff(r, d.Event.Name, d.Attempts+1, err)
				if err := s.cfg.Store.DecisionEventFailed(ctx, r.Name, d.Event, d.Attempts+1, s.cfg.Now().Add(wait), why, givenUp); err != nil {
					return 0, err
				}
				if !givenUp {
					return wait, nil
				}
				continue
			}
			if err := s.cfg.Store.DecisionEventSent(ctx, r.Name, d.Event); err != nil {
				return 0, err
			}
		}
	}
}

// backoff says, after a failed try, how long until the next (0 when given
// up), whether it is given up (a permanent error, or the tries spent), and
// why, as kept.
func (s *Sender) backoff(r Receiver, what string, attempts int, err error) (time.Duration, bool, string) {
	var ne *notify.Error
	givenUp := int32(attempts) >= s.cfg.Retry.Attempts || (errors.As(err, &ne) && ne.Permanent)
	wait := s.cfg.Retry.After(int32(attempts))
	if givenUp {
		wait = 0
	}
	s.cfg.Log.Warn("issue events: not accepted", "receiver", r.Name, "about", what, "attempts", attempts, "givenUp", givenUp, "err", err)
	return wait, givenUp, err.Error()
}
