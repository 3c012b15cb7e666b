package dashboard

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/decide"
	"github.com/a11y-dev/cwac-operator/internal/decision"
	"github.com/a11y-dev/cwac-operator/internal/orgaccess"
	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/websession"
)

// The decide form on the issue page: a plain form POSTed to
// /issues/{ns}/{id}/decisions, carrying the session's CSRF token, which
// makes the decision through internal/decide exactly as cwac_decide does.

// The form's own fields beside decide's (which share cwac_decide's names:
// kind, reason, review_by, pages).
const (
	fieldCSRF  = "csrf"
	fieldScope = "scope"
	// The scopes the form offers: this issue, its rule on the pages under
	// a prefix, its rule on every page of the organisation.
	scopeIssue        = "issue"
	scopePages        = "pages"
	scopeOrganisation = "organisation"
	// maxDecideForm bounds the form's body: a reason and a prefix at
	// their limits in four-byte characters fit with room to spare.
	maxDecideForm = 64 << 10
	// decidedParam names the decision just made on the page redirected to.
	decidedParam = "decided"
)

// errNoScope is the form's refusal of a scope it does not offer.
var errNoScope = &decide.Error{Field: fieldScope, Problem: "choose what the decision covers: this issue, its rule on the pages under an address, " +
	"or its rule on every page of the organisation"}

// decideForm is the form as shown: what was entered, and the refusal of
// it, if any.
type decideForm struct {
	// Action is where the form posts; CSRF the session's token.
	Action, CSRF string
	// Rule and Organisation are the issue's, which a rule decision names.
	Rule, Organisation            string
	Kind, Reason, ReviewBy, Scope string
	Pages                         string
	Kinds                         []decision.Kind
	// MinReviewBy is the first day a review date may be (tomorrow).
	MinReviewBy string
	MaxReason   int
	// Error is the refusal, and ErrorField, ErrorTarget and ErrorMsg
	// where and how the form shows it.
	Error                             *decide.Error
	ErrorField, ErrorTarget, ErrorMsg string
}

// decideFormFor is an empty form for an issue: the prefix suggested is the
// issue's page.
func decideFormFor(v *viewer, ns string, is store.Issue, now time.Time) *decideForm {
	return &decideForm{Action: IssuePath(ns, is.Fingerprint) + "/decisions", CSRF: v.SignOutToken, Rule: is.Rule, Organisation: is.Organisation,
		Scope: scopeIssue, Pages: is.Page, Kinds: decision.Kinds, MinReviewBy: now.UTC().AddDate(0, 0, 1).Format(time.DateOnly), MaxReason: decide.MaxReason}
}

// KindMeaning is what each kind of decision says, as the form offers it.
func KindMeaning(k decision.Kind) string {
	switch k {
	case decision.FalsePositive:
		return "not an accessibility barrier: the check is wrong here"
	case decision.Accepted:
		return "a real barrier, accepted until the review date"
	case decision.WontFix:
		return "a real barrier that will not be fixed"
	}
	return ""
}

// refuse shows the refusal beside the field it names: the form's scope
// stands for decide's issue, rule, organisation and their combination,
// which the form sets from the issue, not from what was typed.
func (f *decideForm) refuse(e *decide.Error) {
	f.Error, f.ErrorMsg = e, e.Problem
	switch e.Field {
	case decide.FieldKind:
		f.ErrorField, f.ErrorTarget = decide.FieldKind, "decide-kind-"+string(decision.Kinds[0])
	case decide.FieldReason:
		f.ErrorField, f.ErrorTarget = decide.FieldReason, "decide-reason"
	case decide.FieldReviewBy:
		f.ErrorField, f.ErrorTarget = decide.FieldReviewBy, "decide-review-by"
	case decide.FieldPages:
		f.ErrorField, f.ErrorTarget = decide.FieldPages, "decide-pages"
	default:
		f.ErrorField, f.ErrorTarget = fieldScope, "decide-scope-"+scopeIssue
	}
}

// FieldLabel is the label of the field a refusal names, for the error
// summary ("Review by: …").
func (f *decideForm) FieldLabel() string {
	switch f.ErrorField {
	case decide.FieldKind:
		return "Decision"
	case decide.FieldReason:
		return "Reason"
	case decide.FieldReviewBy:
		return "Review by"
	case decide.FieldPages:
		return "Pages under"
	}
	return "Covers"
}

// request is the decision the form asks for: the scope chosen sets the
// issue, or its rule and organisation (and the prefix typed).
func (f *decideForm) request(id string, is store.Issue) (decide.Request, error) {
	req := decide.Request{Kind: f.Kind, Reason: f.Reason, ReviewBy: f.ReviewBy}
	switch f.Scope {
	case scopeIssue:
		req.IssueID = id
	case scopePages:
		req.Rule, req.Organisation, req.Pages = is.Rule, is.Organisation, f.Pages
		if req.Pages == "" {
			// An empty prefix would silently widen the decision to every page.
			return req, &decide.Error{Field: decide.FieldPages, Problem: "give the address the pages are under, such as " + is.Page}
		}
	case scopeOrganisation:
		req.Rule, req.Organisation = is.Rule, is.Organisation
	default:
		return req, errNoScope
	}
	return req, nil
}

// decider is the signed-in person a decision is made for: only a session
// (a sign-in with the provider) names one and carries a CSRF token; a
// bearer token's script decides with cwac_decide.
func (v *viewer) decider() (SessionUser, bool) {
	u, ok := v.Subject.(SessionUser)
	return u, ok && v.SignOutToken != "" && u.User != ""
}

// decideHow says why a viewer is offered no form (empty: offered).
func (h *Handler) decideHow(ctx context.Context, v *viewer, ns string) (string, error) {
	u, ok := v.decider()
	switch {
	case v.Anonymous && h.opts.SignIn == nil:
		return "This dashboard has no sign-in, so it cannot record who made a decision: make decisions with kubectl " +
			"(a CwacIssueDecision) or the MCP tool cwac_decide.", nil
	case !ok:
		return "Decisions are recorded in the name of a person signed in to the dashboard. With a token, use the MCP tool " +
			"cwac_decide or kubectl (a CwacIssueDecision).", nil
	}
	may, err := h.opts.Decisions.MayDecide(ctx, u.User, u.Groups, ns)
	if err != nil {
		return "", err
	}
	if !may {
		return fmt.Sprintf("%s may not make decisions in namespace %s: that needs RBAC create on cwacissuedecisions there.", u.User, ns), nil
	}
	return "", nil
}

// decideIssue is POST /issues/{ns}/{id}/decisions: the form's decision,
// made in the signed-in person's name, then back to the issue page (303)
// with the decision named; a refusal shows the form again with the
// field at fault, and nothing is made.
func (h *Handler) decideIssue(w http.ResponseWriter, r *http.Request, v *viewer) {
	if err := websession.CheckSameOrigin(r); err != nil {
		h.refused(r, v, err.Error())
		h.fail(w, r, v, http.StatusForbidden, "Decision refused", "This form was sent from another site: "+err.Error()+". Nothing was recorded.")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxDecideForm)
	if err := r.ParseForm(); err != nil {
		h.badRequest(w, r, v, "The decision form could not be read (at most 64 KiB). Nothing was recorded.")
		return
	}
	u, ok := v.decider()
	if !ok {
		h.refused(r, v, "a decision needs a signed-in session")
		h.fail(w, r, v, http.StatusForbidden, "Decision refused", "Decisions are recorded in the name of a person signed in to "+
			"the dashboard; this request carries no sign-in session. Nothing was recorded.")
		return
	}
	if err := (websession.Session{CSRF: v.SignOutToken}).CheckCSRF(r.PostForm.Get(fieldCSRF)); err != nil {
		h.refused(r, v, "the decision form's CSRF token does not match the session")
		h.fail(w, r, v, http.StatusForbidden, "Decision refused", "The form's token does not match your session, so it was not "+
			"sent by this dashboard's page. Nothing was recorded: reload the issue's page and decide again.")
		return
	}
	ns, id := r.PathValue("ns"), r.PathValue("id")
	ip, st, ok := h.loadIssue(w, r, v, ns, id)
	if !ok {
		return
	}
	if how, err := h.decideHow(r.Context(), v, ns); err != nil || how != "" {
		if err != nil {
			h.unavailable(w, r, v, err)
			return
		}
		h.refused(r, v, "may not create cwacissuedecisions in "+ns)
		h.fail(w, r, v, http.StatusForbidden, "Decision refused", how+" Nothing was recorded.")
		return
	}
	form := decideFormFor(v, ns, ip.Issue.Issue, time.Now())
	form.Kind, form.Reason, form.ReviewBy = r.PostForm.Get(decide.FieldKind), r.PostForm.Get(decide.FieldReason), r.PostForm.Get(decide.FieldReviewBy)
	form.Scope, form.Pages = r.PostForm.Get(fieldScope), r.PostForm.Get(decide.FieldPages)
	req, err := form.request(id, ip.Issue.Issue)
	if err == nil {
		maker := decide.Maker{Namespace: ns, Store: st, Create: h.opts.Decisions.Create}
		var d *cwacv1alpha1.CwacIssueDecision
		if d, err = maker.Make(r.Context(), decide.Decider{User: u.User, Groups: u.Groups, Reach: v.reachOf(ns)}, req); err == nil {
			h.opts.Log.Info("dashboard: decision made", "audit", true, "who", u.User, "decision", ns+"/"+d.Name, "issue", id)
			http.Redirect(w, r, IssuePath(ns, id)+"?"+decidedParam+"="+url.QueryEscape(d.Name)+"#decisions", http.StatusSeeOther)
			return
		}
	}
	var refusal *decide.Error
	switch {
	case errors.As(err, &refusal):
		form.refuse(refusal)
		ip.Form = form
		h.showIssue(w, r, v, ip, http.StatusBadRequest)
	case errors.Is(err, orgaccess.ErrNotCovered):
		// Read the issue a moment ago: the grant has gone since.
		h.refused(r, v, "the issue's organisation is not covered by the viewer's grants")
		h.fail(w, r, v, http.StatusNotFound, "Not found", fmt.Sprintf("No issue %s in the issue history of namespace %s that you may read.", id, ns))
	default:
		h.unavailable(w, r, v, err)
	}
}

// unavailable answers a decision the store or the API server could not
// make or check (the cause in the log, never on the page).
func (h *Handler) unavailable(w http.ResponseWriter, r *http.Request, v *viewer, err error) {
	if errors.Is(err, context.Canceled) {
		return
	}
	h.opts.Log.Error("dashboard: decisions", "path", r.URL.Path, "err", err)
	h.fail(w, r, v, http.StatusServiceUnavailable, "Decisions unavailable",
		"The decision could not be made or checked just now (the Kubernetes API server or the issue history did not answer). "+
			"Nothing was recorded: try again shortly.")
}
