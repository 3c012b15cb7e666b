package mcpserver

import (
	"context"
	"errors"
	"fmt"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/decide"
	"github.com/a11y-dev/cwac-operator/internal/mcpapi"
)

// +kubebuilder:rbac:groups=cwac.a11y.dev,resources=cwacissuedecisions,verbs=create

const decideDescription = "Record a decision about findings of one organisation: FalsePositive (not a barrier), " +
	"Accepted (a barrier accepted until review_by) or WontFix, with a reason. Either one issue (issue_id, from " +
	"cwac_issue_history: the decision covers it while its element stays as it is now) or a rule (an axe rule id or a CWAC " +
	"audit's name) on every page of the organisation, or on the pages under pages (a URL prefix). The decision is a " +
	"CwacIssueDecision in the namespace, made in the caller's name; it applies once the operator has checked that the " +
	"caller may make it (its Applied condition). Needs RBAC create on cwacissuedecisions and read access to the organisation."

func init() { defineTool("cwac_decide", decideDescription, false, (*Server).decide) }

// decide makes the decision through internal/decide, the dashboard's
// form's path too: the arguments checked, the issue's organisation and
// element from the history, the caller's reach checked, the decision made
// in the caller's name (the decided-by annotations, which the admission
// policy lets only this server's account set).
func (s *Server) decide(ctx context.Context, call *callInfo, in mcpapi.DecideInput) (mcpapi.DecideOutput, error) {
	req := decide.Request{IssueID: in.IssueID, Rule: in.Rule, Organisation: in.Organisation, Pages: in.Pages,
		Kind: in.Kind, Reason: in.Reason, ReviewBy: in.ReviewBy}
	if _, err := decide.Check(req, s.now()); err != nil {
		return mcpapi.DecideOutput{}, err // bad arguments first, whether or not the history answers
	}
	if call.Identity == nil || call.Identity.User == "" {
		// Over stdio nobody signed in: a decision must name its decider.
		return mcpapi.DecideOutput{}, errors.New("cwac_decide needs a signed-in caller: call it over HTTP with a token, so the decision names who made it")
	}
	st, _, err := s.history()
	if err != nil {
		return mcpapi.DecideOutput{}, err
	}
	call.Target = "decision:" + s.cfg.Namespace
	maker := decide.Maker{Namespace: s.cfg.Namespace, Store: st, Now: s.now,
		Create: func(ctx context.Context, d *cwacv1alpha1.CwacIssueDecision) error {
			return s.access.client.Create(ctx, d)
		}}
	d, err := maker.Make(ctx, decide.Decider{User: call.Identity.User, Groups: call.Identity.Groups, Reach: call.reach}, req)
	if err != nil {
		return mcpapi.DecideOutput{}, err
	}
	return mcpapi.DecideOutput{Decision: d.Namespace + "/" + d.Name, Organisation: d.Spec.Organisation, DecidedBy: call.Identity.User,
		Message: fmt.Sprintf("decision made; it applies once the operator has checked that %s may make it "+
			"(kubectl get cwacdecision %s shows Applied)", call.Identity.User, d.Name)}, nil
}
