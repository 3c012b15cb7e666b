package dashboard

import (
	"fmt"
	"net/http"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/decide"
	"github.com/a11y-dev/cwac-operator/internal/diff"
	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/wcag"
)

// criterion is one WCAG criterion an issue's rule tests, as the page
// shows it (an unknown number is shown as it is, without a link).
type criterion struct {
	Number, Name, Level, URL string
}

type issuePage struct {
	Namespace string
	Issue     store.IssueDetail
	Criteria  []criterion
	Present   int
	// Decisions is set when the dashboard reads decisions: those about
	// the issue, the covering one first.
	Decisions *issueDecisionsPage
	// Form is the decide form, when the viewer is offered it (after a
	// refusal, with what was entered and the field at fault).
	Form *decideForm
	// Owners answer for the issue's page (its organisation's, and those
	// whose page prefix covers it); HasOwners is whether the dashboard
	// reads owners at all.
	Owners    []ownerView
	HasOwners bool
	// st is the store the issue was read from.
	st *store.Store
}

// issueDecisionsPage is the issue page's decisions section.
type issueDecisionsPage struct {
	List []decisionView
	// Covering is the decision that covers the issue now, if any.
	Covering *decisionView
	// Made names the decision just made (after the form's redirect).
	Made string
	// NoForm says why the viewer is offered no form (empty: offered).
	NoForm string
	// History is each listed decision's recorded events (by UID), and
	// Withdrawn the decisions about the issue deleted since, with theirs.
	History   map[string][]store.DecisionEvent
	Withdrawn []pastDecision
}

// issue is /issues/{ns}/{id}: one issue's life, and the decisions about it.
func (h *Handler) issue(w http.ResponseWriter, r *http.Request, v *viewer) {
	if err := checkQuery(r.URL.Query(), decidedParam); err != nil {
		h.badRequest(w, r, v, err.Error())
		return
	}
	p, _, ok := h.loadIssue(w, r, v, r.PathValue("ns"), r.PathValue("id"))
	if ok {
		h.showIssue(w, r, v, p, http.StatusOK)
	}
}

// loadIssue reads the issue a viewer may read (answering the request, and
// false, when it cannot): its path checked, its namespace and organisation
// in the viewer's reach.
func (h *Handler) loadIssue(w http.ResponseWriter, r *http.Request, v *viewer, ns, id string) (issuePage, *store.Store, bool) {
	err := checkName(fieldNamespace, ns)
	if err == nil {
		_, err = diff.ParseIssueID(id) // the one form of an issue's id
	}
	if err != nil {
		h.badRequest(w, r, v, err.Error())
		return issuePage{}, nil, false
	}
	notFound := fmt.Sprintf("No issue %s in the issue history of namespace %s that you may read.", id, ns)
	if !v.may(ns) {
		h.refused(r, v, "may not read namespace "+ns)
		h.fail(w, r, v, http.StatusNotFound, "Not found", notFound)
		return issuePage{}, nil, false
	}
	st := h.needStore(w, r, v)
	if st == nil {
		return issuePage{}, nil, false
	}
	d, err := st.Issue(r.Context(), []string{ns}, id)
	if err == nil {
		// By grant: another organisation's issue reads as one not there.
		var ok bool
		if ok, err = h.covers(r.Context(), st, v, ns, d.Organisation); err == nil && !ok {
			h.refused(r, v, "the issue's organisation is not covered by the viewer's grants")
			err = store.ErrNotFound
		}
	}
	if err != nil {
		h.storeFailed(w, r, v, notFound, err)
		return issuePage{}, nil, false
	}
	p := issuePage{Namespace: ns, Issue: d, st: st, HasOwners: h.opts.Owners != nil}
	if p.Owners, err = h.ownersOf(r.Context(), ns, d.Organisation, d.Page); err != nil {
		h.unavailable(w, r, v, err)
		return issuePage{}, nil, false
	}
	for _, n := range d.WCAG {
		if c, ok := wcag.Lookup(n); ok {
			p.Criteria = append(p.Criteria, criterion{Number: c.Number, Name: c.Name, Level: string(c.Level), URL: c.UnderstandingURL()})
		} else {
			p.Criteria = append(p.Criteria, criterion{Number: n})
		}
	}
	for _, s := range d.Scans {
		if s.Present {
			p.Present++
		}
	}
	return p, st, true
}

// showIssue renders the issue page with its decisions and, for a viewer
// who may decide, the form (p.Form when it is being shown again).
func (h *Handler) showIssue(w http.ResponseWriter, r *http.Request, v *viewer, p issuePage, code int) {
	title := "Issue: " + p.Issue.Rule + " on " + p.Issue.Page
	if h.opts.Decisions != nil {
		if err := h.issueDecisions(r, v, &p); err != nil {
			h.unavailable(w, r, v, err)
			return
		}
	}
	status := ""
	switch {
	case p.Form != nil && p.Form.Error != nil:
		status = "Error"
	case p.Decisions != nil && p.Decisions.Made != "":
		status = "Decision recorded"
	}
	h.render(w, r, code, "issue", page{Title: title, Status: status, Nav: navOrganisations, Viewer: v, Data: p})
}

// issueDecisions fills the page's decisions section: the decisions about
// the issue, the one just made, their recorded history, and the form or
// why none.
func (h *Handler) issueDecisions(r *http.Request, v *viewer, p *issuePage) error {
	ctx, now := r.Context(), time.Now()
	records, err := h.records(ctx, p.Namespace)
	if err != nil {
		return err
	}
	sec := &issueDecisionsPage{List: issueDecisions(records, decide.FindingOf(p.Namespace, p.Issue.Issue), now)}
	if len(sec.List) > 0 && sec.List[0].Covers {
		sec.Covering = &sec.List[0]
	}
	if made := r.URL.Query().Get(decidedParam); made != "" {
		for _, rec := range records {
			if rec.Name == made {
				sec.Made = made // only a decision that exists is announced
			}
		}
	}
	if sec.NoForm, err = h.decideHow(ctx, v, p.Namespace); err != nil {
		return err
	}
	if sec.History, sec.Withdrawn, err = decisionHistory(ctx, p.st, p.Namespace, p.Issue.Issue, sec.List, now); err != nil {
		return err
	}
	if sec.NoForm == "" && p.Form == nil {
		p.Form = decideFormFor(v, p.Namespace, p.Issue.Issue, now)
	}
	p.Decisions = sec
	return nil
}
