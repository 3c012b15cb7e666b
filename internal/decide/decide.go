// Package decide makes a CwacIssueDecision from what someone asked for:
// the one home of the checks, wordings and limits of the MCP tool
// cwac_decide (internal/mcpserver) and of the dashboard's decide form
// (internal/dashboard), so that the two cannot drift. It reads the issue
// history for an issue's organisation and element and hands the object to
// a creator it is given; it holds no Kubernetes client, so the dashboard
// can call it without linking controller-runtime.
package decide

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/diff"
	"github.com/a11y-dev/cwac-operator/internal/mcpapi"
	"github.com/a11y-dev/cwac-operator/internal/orgaccess"
	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// Request is a decision as asked for: cwac_decide's arguments, and the
// dashboard form's fields (which carry the same names, the Field
// constants), as given.
type Request struct {
	IssueID, Rule, Organisation, Pages string
	Kind, Reason, ReviewBy             string
}

// The fields a refusal names: cwac_decide's argument names, which the
// dashboard's form fields share. FieldArguments is the choice between an
// issue and a rule (the form's scope).
const (
	FieldIssueID      = "issue_id"
	FieldRule         = "rule"
	FieldOrganisation = "organisation"
	FieldPages        = "pages"
	FieldKind         = "kind"
	FieldReason       = "reason"
	FieldReviewBy     = "review_by"
	FieldArguments    = "arguments"
)

// The API's limits (CwacIssueDecisionSpec's markers, held to the CRD by
// limits_test.go), checked here first so that a refusal names its field in
// these words rather than the API server's. Lengths are in characters, as
// the API server counts them.
const (
	MaxReason       = 2000
	MaxOrganisation = 1000
	MaxRule         = 256
	MaxPages        = 2048
)

// The API's patterns of a rule and of a page prefix (the CRD's, held to it
// by limits_test.go).
var (
	ruleRE  = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)
	pagesRE = regexp.MustCompile(`^https?://[^/?#@ ]+([/?#].*)?$`)
)

// quoted is how a refusal quotes what was given: cut, so a refusal stays short.
func quoted(v string) string { return strconv.Quote(textcap.Head(v, 64)) }

// Error is a refusal of what was asked, naming the field at fault and the
// problem; nothing was made.
type Error struct {
	Field, Problem string
}

// Error is "Invalid <field>: <problem>", the words cwac_decide has always
// answered with (MCP clients match them).
func (e *Error) Error() string { return "Invalid " + e.Field + ": " + e.Problem }

func invalid(field, format string, args ...any) error {
	return &Error{Field: field, Problem: fmt.Sprintf(format, args...)}
}

// Check refuses a request that makes no decision, naming the field, and
// makes the decision's spec from one that does. An issue decision's
// organisation and element are the history's (Maker.Make fills them).
// now is the clock a review date must lie after.
func Check(in Request, now time.Time) (*cwacv1alpha1.CwacIssueDecision, error) {
	d := &cwacv1alpha1.CwacIssueDecision{Spec: cwacv1alpha1.CwacIssueDecisionSpec{Kind: cwacv1alpha1.DecisionKind(in.Kind),
		Reason: in.Reason, Rule: in.Rule, Organisation: in.Organisation, Pages: cwacv1alpha1.PagePrefix(in.Pages)}}
	if err := checkKindAndReason(in); err != nil {
		return nil, err
	}
	if err := checkScope(in); err != nil {
		return nil, err
	}
	if in.IssueID != "" {
		if _, err := diff.ParseIssueID(in.IssueID); err != nil {
			return nil, invalid(FieldIssueID, "%v", err)
		}
		d.Spec.Issue = &cwacv1alpha1.DecidedIssue{ID: in.IssueID}
	}
	switch {
	case in.ReviewBy != "":
		t, err := ParseReviewBy(in.ReviewBy)
		if err != nil {
			return nil, err
		}
		if !t.After(now) {
			return nil, invalid(FieldReviewBy, "%s has passed: a decision stops covering anything at its review date, so give a later one",
				quoted(in.ReviewBy))
		}
		d.Spec.ReviewBy = &metav1.Time{Time: t}
	case d.Spec.Kind == cwacv1alpha1.DecisionAccepted:
		return nil, invalid(FieldReviewBy, "an Accepted decision needs one (when it is to be looked at again)")
	}
	return d, nil
}

func checkKindAndReason(in Request) error {
	switch cwacv1alpha1.DecisionKind(in.Kind) {
	case cwacv1alpha1.DecisionFalsePositive, cwacv1alpha1.DecisionAccepted, cwacv1alpha1.DecisionWontFix:
	case "":
		return invalid(FieldKind, "choose one (FalsePositive, Accepted or WontFix)")
	default:
		return invalid(FieldKind, "%s (FalsePositive, Accepted or WontFix)", quoted(in.Kind))
	}
	if strings.TrimSpace(in.Reason) == "" {
		return invalid(FieldReason, "say why (at most %d characters)", MaxReason)
	}
	if n := utf8.RuneCountInString(in.Reason); n > MaxReason {
		return invalid(FieldReason, "%d characters; at most %d", n, MaxReason)
	}
	return nil
}

// checkScope checks what the decision covers: one issue, or a rule of an
// organisation (on the pages under a prefix).
func checkScope(in Request) error {
	switch {
	case (in.IssueID == "") == (in.Rule == ""):
		return invalid(FieldArguments, "give issue_id or rule, not both")
	case in.IssueID != "" && (in.Organisation != "" || in.Pages != ""):
		return invalid(FieldArguments, "an issue names its own organisation and page; give organisation and pages only with rule")
	case in.IssueID != "":
		return nil
	case in.Organisation == "":
		return invalid(FieldOrganisation, "a rule decision names the organisation it is for")
	case utf8.RuneCountInString(in.Organisation) > MaxOrganisation:
		return invalid(FieldOrganisation, "longer than %d characters", MaxOrganisation)
	case len(in.Rule) > MaxRule || !ruleRE.MatchString(in.Rule):
		return invalid(FieldRule, "%s is not an axe rule id or a CWAC audit's name (letters, digits, '_', '.' and '-', at most %d)",
			quoted(in.Rule), MaxRule)
	case in.Pages != "" && (utf8.RuneCountInString(in.Pages) > MaxPages || !pagesRE.MatchString(in.Pages)):
		return invalid(FieldPages, "%s: pages is an http(s) address without user information, such as https://example.govt.nz/news "+
			"(at most %d characters)", quoted(in.Pages), MaxPages)
	}
	return nil
}

// ParseReviewBy reads a review date: a day (YYYY-MM-DD, the start of that
// day in UTC: what a form's date field sends) or an RFC 3339 time.
func ParseReviewBy(v string) (time.Time, error) {
	if t, err := time.Parse(time.DateOnly, v); err == nil {
		return t, nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, invalid(FieldReviewBy, "%s (YYYY-MM-DD, or an RFC 3339 time)", quoted(v))
	}
	return t.UTC(), nil
}

// Decider is whom a decision is made for: a signed-in user and their
// groups (recorded in the decided-by annotations, which the admission
// policy lets only the MCP server's account set), and what they may read
// of the namespace.
type Decider struct {
	User   string
	Groups []string
	Reach  orgaccess.Reach
}

// ErrNoDecider refuses a decision for nobody: a decision names who made it.
var ErrNoDecider = errors.New("a decision needs a signed-in decider, so that it names who made it")

// Maker makes decisions in one namespace.
type Maker struct {
	Namespace string
	// Store is the namespace's issue history: an issue decision's
	// organisation and element, and the organisations a grant covers.
	Store *store.Store
	// Create makes the object, with the MCP server's client.
	Create func(context.Context, *cwacv1alpha1.CwacIssueDecision) error
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// Make checks the request (Check), finds an issue's organisation and
// element in the history, refuses an organisation outside the decider's
// reach (orgaccess.ErrNotCovered, in the same words whether or not the
// history holds it) and creates the decision in the decider's name. A
// refusal of the request is an *Error; nothing is made on any error.
func (m Maker) Make(ctx context.Context, who Decider, in Request) (*cwacv1alpha1.CwacIssueDecision, error) {
	now := time.Now
	if m.Now != nil {
		now = m.Now
	}
	d, err := Check(in, now())
	if err != nil {
		return nil, err
	}
	if who.User == "" {
		return nil, ErrNoDecider
	}
	if in.IssueID != "" {
		is, err := m.Store.Issue(ctx, []string{m.Namespace}, in.IssueID)
		if errors.Is(err, store.ErrNotFound) {
			return nil, invalid(FieldIssueID, "no issue %s in the issue history of namespace %s", in.IssueID, m.Namespace)
		}
		if err != nil {
			return nil, fmt.Errorf("reading the issue history: %w", err)
		}
		d.Spec.Organisation = is.Organisation
		d.Spec.Issue.Element = mcpapi.ElementHash(is.ElementHash)
	}
	ok, err := who.Reach.CoversRecorded(ctx, m.Store, m.Namespace, d.Spec.Organisation)
	if err != nil {
		return nil, fmt.Errorf("reading the issue history: %w", err)
	}
	if !ok {
		return nil, orgaccess.NotCovered("this organisation")
	}
	d.Namespace = m.Namespace
	d.GenerateName = "decision-"
	d.Annotations = map[string]string{cwacv1alpha1.AnnotationDecidedBy: who.User,
		cwacv1alpha1.AnnotationDecidedByGroups: strings.Join(who.Groups, "\n")}
	if err := m.Create(ctx, d); err != nil {
		return nil, fmt.Errorf("making the decision: %w", err)
	}
	return d, nil
}
