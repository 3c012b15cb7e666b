// Package decision says which decision, if any, covers an issue. A
// decision is a person's or an agent's judgement about findings of one
// organisation: a false positive, accepted until a review date, or will not
// be fixed, with who made it, when and why. It covers one issue (by the
// product's one issue identity, and only while the issue's element is the
// element decided about), or one rule on the pages under a URL prefix, or
// one rule on every page of the organisation.
//
// Everything that applies decisions (scores, gates, notifications, CI
// reports, the history, the dashboard, the MCP server) asks a Set, so that
// one finding is decided the same way everywhere. The package is pure: it
// holds no decision source and reads no clock; callers pass the time.
package decision

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/diff"
)

// Kind is what was decided. The values are the API's (the CRD's enum,
// held to these by a test in internal/decide), declared here again so
// that what applies decisions — the scan pod's runner among them — needs
// no API types.
type Kind string

// The kinds of decision.
const (
	// FalsePositive: the finding is no barrier.
	FalsePositive Kind = "FalsePositive"
	// Accepted: a barrier accepted until the decision's review date.
	Accepted Kind = "Accepted"
	// WontFix: a barrier that will not be fixed.
	WontFix Kind = "WontFix"
)

// Kinds are the kinds of decision, in the order forms offer them.
var Kinds = []Kind{FalsePositive, Accepted, WontFix}

// Issue is a decision's one issue: its id, and the element it was decided
// about (diff.ElementHash of the element's HTML). An issue keeps its id
// when its element is edited in place; the decision then no longer covers
// it, so that a changed element is looked at again.
type Issue struct {
	ID      diff.IssueID
	Element uint64
}

// Decision is one decision as the product applies it.
type Decision struct {
	// Ref names the decision where it is kept ("namespace/name").
	Ref string
	// Namespace and Organisation are whose findings it decides about: an
	// organisation's history is its namespace's.
	Namespace, Organisation string
	Kind                    Kind
	Reason                  string
	// ReviewBy, when set, is when the decision stops covering anything:
	// the findings are open again until someone decides anew.
	ReviewBy time.Time
	// DecidedBy and DecidedAt are who made (or last changed) the decision
	// and when.
	DecidedBy string
	DecidedAt time.Time

	// The scope: Issue, or else Rule (the rule as the history names it:
	// an axe rule id, or the name of one of CWAC's own audits) on the
	// pages under Pages (a URL prefix; empty: every page).
	Issue *Issue
	Rule  string
	Pages string
}

// ActiveAt reports whether the decision covers anything at the instant:
// not once its review date has come.
func (d *Decision) ActiveAt(now time.Time) bool {
	return d.ReviewBy.IsZero() || now.Before(d.ReviewBy)
}

// Finding is what a decision may cover: one issue of one organisation as a
// scan or the history sees it (defined beside the issue identity).
type Finding = diff.Finding

// orgRule is where rule decisions are filed.
type orgRule struct{ namespace, organisation, rule string }

// Set is decisions filed for lookup. The zero Set covers nothing.
type Set struct {
	byIssue map[diff.IssueID][]*Decision
	byRule  map[orgRule]*ruleDecisions
}

// ruleDecisions are one rule's decisions for one organisation, filed by
// page prefix (pagesKey; "" for every page), each list latest decided
// first: a finding looks up only the prefixes its page is under, however
// many decisions there are.
type ruleDecisions struct {
	byPages map[string][]*Decision
	// longest is the length of the longest prefix: no longer part of a
	// page is looked up.
	longest int
}

// NewSet files the decisions. Each keeps its place in the order that
// breaks ties (most specific first, then the latest decided, then by
// Ref), so that a finding covered by several is always given the same.
func NewSet(decisions []Decision) *Set {
	s := &Set{byIssue: map[diff.IssueID][]*Decision{}, byRule: map[orgRule]*ruleDecisions{}}
	for i := range decisions {
		d := &decisions[i]
		if d.Issue != nil {
			s.byIssue[d.Issue.ID] = append(s.byIssue[d.Issue.ID], d)
			continue
		}
		k := orgRule{d.Namespace, d.Organisation, d.Rule}
		rd := s.byRule[k]
		if rd == nil {
			rd = &ruleDecisions{byPages: map[string][]*Decision{}}
			s.byRule[k] = rd
		}
		prefix := pagesKey(d.Pages)
		rd.byPages[prefix] = append(rd.byPages[prefix], d)
		rd.longest = max(rd.longest, len(prefix))
	}
	for _, ds := range s.byIssue {
		slices.SortFunc(ds, latestFirst)
	}
	for _, rd := range s.byRule {
		for _, ds := range rd.byPages {
			slices.SortFunc(ds, latestFirst)
		}
	}
	return s
}

func latestFirst(a, b *Decision) int {
	return cmp.Or(b.DecidedAt.Compare(a.DecidedAt), strings.Compare(a.Ref, b.Ref))
}

// Covering is the decision that covers the finding at the instant, if any:
// one about its issue and element first, then the rule decision with the
// longest matching page prefix. Decisions past their review date cover
// nothing.
func (s *Set) Covering(f Finding, now time.Time) (*Decision, bool) {
	if s == nil {
		return nil, false
	}
	for _, d := range s.byIssue[f.ID] {
		if d.Namespace == f.Namespace && d.Organisation == f.Organisation && d.Issue.Element == f.Element && d.ActiveAt(now) {
			return d, true
		}
	}
	rd := s.byRule[orgRule{f.Namespace, f.Organisation, f.Rule}]
	if rd == nil {
		return nil, false
	}
	return rd.covering(diff.PageKey(f.URL), now)
}

// covering is the active decision of the longest prefix the page is
// under (underPrefix's rule, read from the page's end): the page itself,
// then at each path boundary from the last, the page up to and with a "/"
// (a prefix ending in "/" covers what follows it) and the page up to a
// "/", "?" or "#"; last, every page's.
func (rd *ruleDecisions) covering(page string, now time.Time) (*Decision, bool) {
	if d, ok := rd.at(page, now); ok {
		return d, true
	}
	for i := len(page) - 1; i >= 0; i-- {
		switch page[i] {
		case '/':
			if d, ok := rd.at(page[:i+1], now); ok {
				return d, true
			}
			fallthrough
		case '?', '#':
			if d, ok := rd.at(page[:i], now); ok {
				return d, true
			}
		}
	}
	return rd.at("", now)
}

// at is the active decision filed under the prefix, if any; a prefix
// longer than any filed is not looked up.
func (rd *ruleDecisions) at(prefix string, now time.Time) (*Decision, bool) {
	if len(prefix) > rd.longest {
		return nil, false
	}
	return firstActive(rd.byPages[prefix], now)
}

func firstActive(ds []*Decision, now time.Time) (*Decision, bool) {
	for _, d := range ds {
		if d.ActiveAt(now) {
			return d, true
		}
	}
	return nil, false
}

// UnderPages reports whether the page is under the page prefix as a
// decision's pages field reads it (empty: every page): what an owner's
// pages cover too.
func UnderPages(page, prefix string) bool {
	return underPrefix(diff.PageKey(page), pagesKey(prefix))
}

// pagesKey is a decision's page prefix in the form pages are compared in
// (diff.PageKey: scheme and host in lower case, no default port); empty
// stays empty (every page).
func pagesKey(prefix string) string {
	if prefix == "" {
		return ""
	}
	return diff.PageKey(prefix)
}

// underPrefix reports whether the page is the prefix or under it at a
// path boundary: "https://a.example/news" covers /news, /news/ and
// /news/2026 and /news?page=2, never /newsletter. A prefix ending in "/"
// covers what follows it.
func underPrefix(page, prefix string) bool {
	if prefix == "" {
		return true
	}
	rest, ok := strings.CutPrefix(page, prefix)
	if !ok {
		return false
	}
	return rest == "" || strings.HasSuffix(prefix, "/") || strings.ContainsRune("/?#", rune(rest[0]))
}

// DueForReview are the decisions whose review date falls before the
// instant until (those already past it included), soonest first: what a
// digest asks its reader to look at again.
func DueForReview(decisions []Decision, until time.Time) []Decision {
	var due []Decision
	for _, d := range decisions {
		if !d.ReviewBy.IsZero() && d.ReviewBy.Before(until) {
			due = append(due, d)
		}
	}
	slices.SortStableFunc(due, func(a, b Decision) int {
		return cmp.Or(a.ReviewBy.Compare(b.ReviewBy), strings.Compare(a.Ref, b.Ref))
	})
	return due
}
