package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/diff"
	"github.com/a11y-dev/cwac-operator/internal/mcpapi"
	"github.com/a11y-dev/cwac-operator/internal/store"
)

// +kubebuilder:rbac:groups=cwac.a11y.dev,resources=cwacissuedecisions,verbs=create

const decideDescription = "Record a decision about findings of one organisation: FalsePositive (not a barrier), " +
	"Accepted (a barrier accepted until review_by) or WontFix, with a reason. Either one issue (issue_id, from " +
	"cwac_issue_history: the decision covers it while its element stays as it is now) or a rule (an axe rule id or a CWAC " +
	"audit's name) on every page of the organisation, or on the pages under pages (a URL prefix). The decision is a " +
	"CwacIssueDecision in the namespace, made in the caller's name; it applies once the operator has checked that the " +
	"caller may make it (its Applied condition). Needs RBAC create on cwacissuedecisions and read access to the organisation."

// DecideInput are cwac_decide's arguments.
type DecideInput struct {
	IssueID      string `json:"issue_id,omitempty" jsonschema:"an issue's id (32 hexadecimal digits, cwac_issue_history's fingerprint); or give rule"`
	Rule         string `json:"rule,omitempty" jsonschema:"an axe rule id (color-contrast) or a CWAC audit's name (focus_indicator_audit); or give issue_id"`
	Organisation string `json:"organisation,omitempty" jsonschema:"the organisation, with rule (an issue names its own)"`
	Pages        string `json:"pages,omitempty" jsonschema:"with rule: only the pages under this http(s) address, at a path boundary"`
	Kind         string `json:"kind" jsonschema:"FalsePositive, Accepted or WontFix"`
	Reason       string `json:"reason" jsonschema:"why, for whoever reviews the decision (at most 2000 characters)"`
	ReviewBy     string `json:"review_by,omitempty" jsonschema:"when the decision ends (YYYY-MM-DD, or an RFC 3339 time); required for Accepted"`
}

// DecideOutput is cwac_decide's answer.
type DecideOutput struct {
	Decision     string `json:"decision" jsonschema:"the CwacIssueDecision made: namespace/name"`
	Organisation string `json:"organisation"`
	DecidedBy    string `json:"decided_by"`
	Message      string `json:"message"`
}

func init() { defineTool("cwac_decide", decideDescription, false, (*Server).decide) }

// decide checks the arguments, finds the issue's organisation and element
// in the history, checks the caller may read that organisation, and makes
// the decision in the caller's name (the decided-by annotations, which the
// admission policy lets only this server's account set).
func (s *Server) decide(ctx context.Context, call *callInfo, in DecideInput) (DecideOutput, error) {
	d, err := decisionOf(in)
	if err != nil {
		return DecideOutput{}, err
	}
	if call.Identity == nil || call.Identity.User == "" {
		// Over stdio nobody signed in: a decision must name its decider.
		return DecideOutput{}, errors.New("cwac_decide needs a signed-in caller: call it over HTTP with a token, so the decision names who made it")
	}
	st, _, err := s.history()
	if err != nil {
		return DecideOutput{}, err
	}
	if in.IssueID != "" {
		is, err := st.Issue(ctx, []string{s.cfg.Namespace}, in.IssueID)
		if errors.Is(err, store.ErrNotFound) {
			return DecideOutput{}, fmt.Errorf("no issue %s in the issue history of namespace %s", in.IssueID, s.cfg.Namespace)
		}
		if err != nil {
			return DecideOutput{}, fmt.Errorf("reading the issue history: %w", err)
		}
		d.Spec.Organisation = is.Organisation
		d.Spec.Issue.Element = mcpapi.ElementHash(is.ElementHash)
	}
	if err := s.checkOrganisationReach(ctx, st, call, d.Spec.Organisation); err != nil {
		return DecideOutput{}, err
	}
	d.Namespace = s.cfg.Namespace
	d.GenerateName = "decision-"
	d.Annotations = map[string]string{cwacv1alpha1.AnnotationDecidedBy: call.Identity.User,
		cwacv1alpha1.AnnotationDecidedByGroups: strings.Join(call.Identity.Groups, "\n")}
	call.Target = "decision:" + s.cfg.Namespace
	if err := s.access.client.Create(ctx, d); err != nil {
		return DecideOutput{}, fmt.Errorf("making the decision: %w", err)
	}
	return DecideOutput{Decision: d.Namespace + "/" + d.Name, Organisation: d.Spec.Organisation, DecidedBy: call.Identity.User,
		Message: "decision made; it applies once the operator has checked that " + call.Identity.User + " may make it " +
			"(kubectl get cwacdecision " + d.Name + " shows Applied)"}, nil
}

// decisionOf checks cwac_decide's arguments and makes the decision's spec
// from them; the history fills an issue decision's organisation and element.
func decisionOf(in DecideInput) (*cwacv1alpha1.CwacIssueDecision, error) {
	d := &cwacv1alpha1.CwacIssueDecision{Spec: cwacv1alpha1.CwacIssueDecisionSpec{Kind: cwacv1alpha1.DecisionKind(in.Kind),
		Reason: in.Reason, Rule: in.Rule, Organisation: in.Organisation, Pages: cwacv1alpha1.PagePrefix(in.Pages)}}
	switch d.Spec.Kind {
	case cwacv1alpha1.DecisionFalsePositive, cwacv1alpha1.DecisionAccepted, cwacv1alpha1.DecisionWontFix:
	default:
		return nil, fmt.Errorf("Invalid kind: %q (FalsePositive, Accepted or WontFix)", truncate(in.Kind, 64))
	}
	switch {
	case strings.TrimSpace(in.Reason) == "":
		return nil, errors.New("Invalid reason: say why (at most 2000 characters)")
	case (in.IssueID == "") == (in.Rule == ""):
		return nil, errors.New("Invalid arguments: give issue_id or rule, not both")
	case in.IssueID != "" && (in.Organisation != "" || in.Pages != ""):
		return nil, errors.New("Invalid arguments: an issue names its own organisation and page; give organisation and pages only with rule")
	case in.Rule != "" && in.Organisation == "":
		return nil, errors.New("Invalid organisation: a rule decision names the organisation it is for")
	}
	if in.IssueID != "" {
		if _, err := diff.ParseIssueID(in.IssueID); err != nil {
			return nil, fmt.Errorf("Invalid issue_id: %w", err)
		}
		d.Spec.Issue = &cwacv1alpha1.DecidedIssue{ID: in.IssueID}
	}
	if in.ReviewBy != "" {
		t, err := parseReviewBy(in.ReviewBy)
		if err != nil {
			return nil, err
		}
		d.Spec.ReviewBy = &metav1.Time{Time: t}
	} else if d.Spec.Kind == cwacv1alpha1.DecisionAccepted {
		return nil, errors.New("Invalid review_by: an Accepted decision needs one (when it is to be looked at again)")
	}
	return d, nil
}

// parseReviewBy reads a date (the start of that day, UTC) or an RFC 3339 time.
func parseReviewBy(v string) (time.Time, error) {
	if t, err := time.Parse(time.DateOnly, v); err == nil {
		return t, nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, fmt.Errorf("Invalid review_by: %s (YYYY-MM-DD, or an RFC 3339 time)", strconv.Quote(truncate(v, 64)))
	}
	return t.UTC(), nil
}
