package mcpserver

import (
	"context"
	"errors"
	"fmt"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/decide"
)

// +kubebuilder:rbac:groups=cwac.a11y.dev,resources=cwacissuedecisions,verbs=create

const decideDescription = "Record a decision about findings of one organisation: FalsePositive (not a barrier), " +
	"Accepted (a barrier accepted until review_by) or WontFix, with a reason. Either one issue (issue_id, from " +
	"cwac_issue_history: the decision covers it while its element stays as it is now) or a rule (an axe rule id or a CWAC " +
	"audit's name) on every page of the organisation, or on the pages under pages (a URL prefix). The decision is a " +
	"CwacIssueDecision in the namespace, made in the caller's name; it applies once the operator has checked that the " +
	"caller may make it (its Applied condition). Needs RBAC create on cwacissuedecisions and read access to the organisation."

// DecideInput are cwac_decide's arguments (decide.Request's fields, by
// the same names).
type DecideInput struct {
	IssueID      string `json:"issue_id,omitempty" jsonschema:"an issue's id (32 hexadecimal digits, cwac_issue_history's fingerprint); or give rule"`
	Rule         string `json:"rule,omitempty" jsonschema:"an axe rule id (color-contrast) or a CWAC audit's name (focus_indicator_audit); or give issue_id"`
	Organisation string `json:"organisation,omitempty" jsonschema:"the organisation, with rule (an issue names its own)"`
	Pages        string `json:"pages,omitempty" jsonschema:"with rule: only the pages under this http(s) address, at a path boundary"`
	Kind         string `json:"kind" jsonschema:"FalsePositive, Accepted or WontFix"`
	Reason       string `json:"reason" jsonschema:"why, for whoever reviews the decision (at most 2000 characters)"`
	ReviewBy     string `json:"review_by,omitempty" jsonschema:"when the decision ends, a later day (YYYY-MM-DD, or an RFC 3339 time); required for Accepted"`
}

// DecideOutput is cwac_decide's answer.
type DecideOutput struct {
	Decision     string `json:"decision" jsonschema:"the CwacIssueDecision made: namespace/name"`
	Organisation string `json:"organisation"`
	DecidedBy    string `json:"decided_by"`
	Message      string `json:"message"`
}

func init() { defineTool("cwac_decide", decideDescription, false, (*Server).decide) }

// decide makes the decision through internal/decide, the dashboard's
// form's path too: the arguments checked, the issue's organisation and
// element from the history, the caller's reach checked, the decision made
// in the caller's name (the decided-by annotations, which the admission
// policy lets only this server's account set).
func (s *Server) decide(ctx context.Context, call *callInfo, in DecideInput) (DecideOutput, error) {
	req := decide.Request{IssueID: in.IssueID, Rule: in.Rule, Organisation: in.Organisation, Pages: in.Pages,
		Kind: in.Kind, Reason: in.Reason, ReviewBy: in.ReviewBy}
	if _, err := decide.Check(req, s.now()); err != nil {
		return DecideOutput{}, err // bad arguments first, whether or not the history answers
	}
	if call.Identity == nil || call.Identity.User == "" {
		// Over stdio nobody signed in: a decision must name its decider.
		return DecideOutput{}, errors.New("cwac_decide needs a signed-in caller: call it over HTTP with a token, so the decision names who made it")
	}
	st, _, err := s.history()
	if err != nil {
		return DecideOutput{}, err
	}
	call.Target = "decision:" + s.cfg.Namespace
	maker := decide.Maker{Namespace: s.cfg.Namespace, Store: st, Now: s.now,
		Create: func(ctx context.Context, d *cwacv1alpha1.CwacIssueDecision) error {
			return s.access.client.Create(ctx, d)
		}}
	d, err := maker.Make(ctx, decide.Decider{User: call.Identity.User, Groups: call.Identity.Groups, Reach: call.reach}, req)
	if err != nil {
		return DecideOutput{}, err
	}
	return DecideOutput{Decision: d.Namespace + "/" + d.Name, Organisation: d.Spec.Organisation, DecidedBy: call.Identity.User,
		Message: fmt.Sprintf("decision made; it applies once the operator has checked that %s may make it "+
			"(kubectl get cwacdecision %s shows Applied)", call.Identity.User, d.Name)}, nil
}
