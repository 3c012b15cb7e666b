package dashboard

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/decide"
	"github.com/a11y-dev/cwac-operator/internal/decision"
	"github.com/a11y-dev/cwac-operator/internal/store"
)

// Decisions reads and makes a namespace's CwacIssueDecisions for the
// dashboard: cmd/mcp-server's, with the MCP server's client, so that this
// package links no Kubernetes client. The decision itself is made by
// internal/decide, as cwac_decide makes it; this only creates the object.
type Decisions interface {
	// List is the namespace's decisions (from the server's cache).
	List(ctx context.Context, namespace string) ([]cwacv1alpha1.CwacIssueDecision, error)
	// MayDecide reports whether RBAC lets the user, with their groups,
	// create CwacIssueDecisions in the namespace (as cwac_decide needs).
	MayDecide(ctx context.Context, user string, groups []string, namespace string) (bool, error)
	// Create makes the decision with the MCP server's account, the one
	// account the admission policy lets name its decider; it returns once
	// List shows it, so the page redirected to lists it.
	Create(ctx context.Context, d *cwacv1alpha1.CwacIssueDecision) error
}

// decisionView is one decision as the issue page shows it.
type decisionView struct {
	decide.Record
	// Scope says what it covers, in words.
	Scope string
	// Covers: this is the decision that covers the issue now.
	Covers bool
	// Why it does not cover the issue (empty when it does): not applied
	// (with the reason), past its review date, about another element, or
	// a more specific decision wins.
	Why string
	// ElementDecided is set for a decision about this issue: whether its
	// element is still the one decided about.
	ElementDecided *bool
}

// records reads the namespace's decisions; one that does not parse is
// logged and left out (it covers nothing: the product never applies it).
func (h *Handler) records(ctx context.Context, ns string) ([]decide.Record, error) {
	objs, err := h.opts.Decisions.List(ctx, ns)
	if err != nil {
		return nil, err
	}
	records, errs := decide.RecordsOf(objs)
	for _, err := range errs {
		h.opts.Log.Warn("dashboard: a decision that cannot be read", "err", err)
	}
	return records, nil
}

// about reports whether the decision is about the finding at all, whatever
// its condition, review date or element: its scope asked of
// internal/decision alone (a Set of it, undated and with the finding's
// element), so that the page matches scopes exactly as the product does.
func about(r decide.Record, f decision.Finding, now time.Time) bool {
	probe := r.Decision
	probe.ReviewBy = time.Time{}
	if probe.Issue != nil {
		is := *probe.Issue
		is.Element = f.Element
		probe.Issue = &is
	}
	_, ok := decision.NewSet([]decision.Decision{probe}).Covering(f, now)
	return ok
}

// issueDecisions are the decisions about the issue, the covering one
// first, then the latest decided.
func issueDecisions(records []decide.Record, f decision.Finding, now time.Time) []decisionView {
	covering, _ := decide.AppliedSet(records).Covering(f, now)
	var out []decisionView
	for _, r := range records {
		if !about(r, f, now) {
			continue
		}
		v := decisionView{Record: r, Scope: scopeWords(r)}
		if r.Issue != nil {
			same := r.Issue.Element == f.Element
			v.ElementDecided = &same
		}
		switch {
		case covering != nil && covering.Ref == r.Ref:
			v.Covers = true
		case r.AppliedReason == "":
			v.Why = "not applied yet: the operator has not checked it"
		case !r.Applied:
			v.Why = "not applied: " + r.AppliedReason
			if r.AppliedMessage != "" {
				v.Why += " (" + r.AppliedMessage + ")"
			}
		case !r.ActiveAt(now):
			v.Why = "its review date has passed"
		case v.ElementDecided != nil && !*v.ElementDecided:
			v.Why = "the element has changed since the decision"
		default:
			v.Why = "a more specific decision covers the issue"
		}
		out = append(out, v)
	}
	slices.SortStableFunc(out, func(a, b decisionView) int {
		if a.Covers != b.Covers {
			if a.Covers {
				return -1
			}
			return 1
		}
		return b.DecidedAt.Compare(a.DecidedAt)
	})
	return out
}

// scopeWords says what a decision covers.
func scopeWords(r decide.Record) string {
	switch {
	case r.Issue != nil:
		return "this issue, while its element is the one decided about"
	case r.Pages != "":
		return fmt.Sprintf("rule %s on the pages under %s", r.Rule, r.Pages)
	}
	return fmt.Sprintf("rule %s on every page of %s", r.Rule, r.Organisation)
}

// KindName is how a decision's kind reads to people.
func KindName(k decision.Kind) string {
	switch k {
	case decision.FalsePositive:
		return "False positive"
	case decision.WontFix:
		return "Won't fix"
	}
	return string(k)
}

// decidedIssues marks which of a list's issues a decision covers: one
// list of the namespace's decisions for the whole page, not one per row.
func (h *Handler) decidedIssues(ctx context.Context, ns string, lists ...[]store.Issue) (map[string]string, error) {
	if h.opts.Decisions == nil {
		return nil, nil
	}
	records, err := h.records(ctx, ns)
	if err != nil || len(records) == 0 {
		return nil, err
	}
	set, now := decide.AppliedSet(records), time.Now()
	out := map[string]string{}
	for _, list := range lists {
		for _, is := range list {
			if d, ok := set.Covering(decide.FindingOf(ns, is), now); ok {
				out[is.Fingerprint] = strings.ToLower(KindName(d.Kind))
			}
		}
	}
	return out, nil
}

// pastDecision is a decision withdrawn since (deleted): its history is
// all that is left of it.
type pastDecision struct {
	Last store.DecisionEvent
	// Kind and Scope say what it was, in words.
	Kind, Scope string
	Events      []store.DecisionEvent
}

// decisionHistory reads the recorded history of the decisions ever about
// the issue: the listed ones' by UID, and the withdrawn ones'.
func decisionHistory(ctx context.Context, st *store.Store, ns string, is store.Issue, listed []decisionView,
	now time.Time) (map[string][]store.DecisionEvent, []pastDecision, error) {
	events, err := st.DecisionEventsAbout(ctx, ns, is.Fingerprint, is.Organisation, is.Rule)
	if err != nil {
		return nil, nil, err
	}
	byUID := map[string][]store.DecisionEvent{}
	var order []string
	for _, e := range events {
		if _, ok := byUID[e.UID]; !ok {
			order = append(order, e.UID)
		}
		byUID[e.UID] = append(byUID[e.UID], e)
	}
	history := map[string][]store.DecisionEvent{}
	for _, v := range listed {
		if h, ok := byUID[v.UID]; ok {
			history[v.UID] = h
		}
	}
	f := decide.FindingOf(ns, is)
	var past []pastDecision
	for _, uid := range order {
		h := byUID[uid]
		last := h[len(h)-1]
		if _, ok := history[uid]; ok || last.Event != store.DecisionWithdrawn {
			continue // listed, or not listed yet (the cache is behind the history)
		}
		d := decide.Record{Decision: decision.Decision{Namespace: ns, Organisation: last.Organisation, Rule: last.Rule, Pages: last.Pages}}
		switch {
		case last.IssueID == is.Fingerprint:
			d.Issue = &decision.Issue{ID: f.ID}
		case last.IssueID != "" || !about(d, f, now):
			continue // another issue, or another page prefix
		}
		past = append(past, pastDecision{Last: last, Kind: KindName(decision.Kind(last.Kind)), Scope: scopeWords(d), Events: h})
	}
	slices.SortFunc(past, func(a, b pastDecision) int { return b.Last.At.Compare(a.Last.At) })
	return history, past, nil
}

// EventWords says what happened in one event of a decision's history.
func EventWords(e store.DecisionEvent) string {
	what := KindName(decision.Kind(e.Kind))
	if e.ReviewBy != nil {
		what += " until " + e.ReviewBy.Format(time.DateOnly)
	}
	switch e.Event {
	case store.DecisionMade:
		who := e.DecidedBy
		if who == "" {
			who = "nobody recorded"
		}
		return fmt.Sprintf("made by %s: %s", who, what)
	case store.DecisionChanged:
		return fmt.Sprintf("changed by %s: now %s", e.DecidedBy, what)
	case store.DecisionApplied:
		return "applied: the operator found its decider may make it"
	case store.DecisionNotApplied:
		return "not applied: " + e.Applied
	case store.DecisionExpired:
		return "expired: its review date came"
	case store.DecisionWithdrawn:
		return "withdrawn (deleted)"
	}
	return e.Event
}
