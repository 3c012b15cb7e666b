package dashboard

import (
	"fmt"
	"net/http"

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
}

// issue is /issues/{ns}/{id}: one issue's life.
func (h *Handler) issue(w http.ResponseWriter, r *http.Request, v *viewer) {
	ns, id := r.PathValue("ns"), r.PathValue("id")
	err := checkQuery(r.URL.Query())
	if err == nil {
		err = checkName(fieldNamespace, ns)
	}
	if err == nil {
		_, err = diff.ParseIssueID(id) // the one form of an issue's id
	}
	if err != nil {
		h.badRequest(w, r, v, err.Error())
		return
	}
	notFound := fmt.Sprintf("No issue %s in the issue history of namespace %s that you may read.", id, ns)
	if !v.may(ns) {
		h.refused(r, v, "may not read namespace "+ns)
		h.fail(w, r, v, http.StatusNotFound, "Not found", notFound)
		return
	}
	st := h.needStore(w, r, v)
	if st == nil {
		return
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
		return
	}
	p := issuePage{Namespace: ns, Issue: d}
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
	h.render(w, r, http.StatusOK, "issue", page{Title: "Issue: " + d.Rule + " on " + d.Page, Nav: navOrganisations, Viewer: v, Data: p})
}
