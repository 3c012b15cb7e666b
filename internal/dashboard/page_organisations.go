package dashboard

import (
	"net/http"
)

// organisationsPerPage is the organisations page's default rows per page:
// with 1,000 organisations the whole leaderboard was 916 KB and took
// seconds to render; fifty rows with their sparklines are about 60 KB.
const organisationsPerPage = 50

// organisationsPage is the home page's data: one page of the leaderboard.
type organisationsPage struct {
	Sectors  []sectorRows
	Unranked *sectorRows
	Pager    pager
}

// sectorRows are a sector's rows on this page (or the unranked ones):
// From and To number them within the sector's Total.
type sectorRows struct {
	Name            string
	Rows            []LeaderboardRow
	From, To, Total int
}

// Whole is true when the page shows all of the sector's rows.
func (s sectorRows) Whole() bool { return s.From == 1 && s.To == s.Total }

// organisations is the home page: the leaderboard, sector by sector, a
// page at a time (?page=, ?per_page=); the exports hold every row. The
// ranking is the exports' own, kept until a scan is recorded or pruned.
func (h *Handler) organisations(w http.ResponseWriter, r *http.Request, v *viewer) {
	q := r.URL.Query()
	err := checkQuery(q, fieldPage, fieldPerPage)
	var p paging
	if err == nil {
		p, err = parsePaging(q, organisationsPerPage)
	}
	if err != nil {
		h.badRequest(w, r, v, err.Error())
		return
	}
	st := h.needStore(w, r, v)
	if st == nil {
		return
	}
	all, err := cachedLeaderboard(r.Context(), st, v.Namespaces)
	if err != nil {
		h.storeFailed(w, r, v, "", err)
		return
	}
	slice := sliceLeaderboard(all, p.Offset(), p.PerPage)
	d := organisationsPage{}
	if d.Pager, err = newPager("Pages of organisations", "organisations", "/", q, p, slice.Total); err != nil {
		h.badRequest(w, r, v, err.Error())
		return
	}
	for _, s := range slice.Figures.Sectors {
		from := slice.SectorFrom[s.Name]
		d.Sectors = append(d.Sectors, sectorRows{Name: s.Name, Rows: s.Rows, From: from, To: from + len(s.Rows) - 1, Total: slice.SectorSizes[s.Name]})
	}
	if u := slice.Figures.Unranked; len(u) > 0 {
		d.Unranked = &sectorRows{Rows: u, From: slice.UnrankedFrom, To: slice.UnrankedFrom + len(u) - 1, Total: slice.UnrankedSize}
	}
	h.render(w, r, http.StatusOK, "organisations", page{Title: "Organisations", Nav: navOrganisations, Viewer: v, Data: d})
}
