package dashboard

import (
	"net/http"
)

// organisations is the home page: the leaderboard, sector by sector.
func (h *Handler) organisations(w http.ResponseWriter, r *http.Request, v *viewer) {
	if err := checkQuery(r.URL.Query()); err != nil {
		h.badRequest(w, r, v, err.Error())
		return
	}
	if !h.needStore(w, r, v) {
		return
	}
	figures, err := Leaderboard(r.Context(), h.opts.Store, v.Namespaces)
	if err != nil {
		h.storeFailed(w, r, v, "", err)
		return
	}
	h.render(w, r, http.StatusOK, "organisations", page{Title: "Organisations", Nav: navOrganisations, Viewer: v, Data: figures})
}
