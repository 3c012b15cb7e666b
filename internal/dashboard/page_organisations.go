package dashboard

import (
	"fmt"
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
	// Overall is true when the organisations are ranked across all
	// sectors (?rank=overall), one list with each one's sector beside it.
	Overall bool
}

// The organisations page's rankings (?rank=): within each sector (the
// default) or across all of them.
const (
	fieldRank   = "rank"
	rankSector  = "sector"
	rankOverall = "overall"
)

// overallLeaderboard is the leaderboard's ranked rows in one list, ranked
// across sectors by the same rule (copies: the cached figures stay as
// they are), and its unranked rows as they are.
func overallLeaderboard(all LeaderboardFigures) LeaderboardFigures {
	var rows []LeaderboardRow
	for _, s := range all.Sectors {
		rows = append(rows, s.Rows...)
	}
	rank(rows)
	return LeaderboardFigures{Sectors: []Sector{{Rows: rows}}, Unranked: all.Unranked}
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
	err := checkQuery(q, fieldPage, fieldPerPage, fieldRank)
	var p paging
	if err == nil {
		p, err = parsePaging(q, organisationsPerPage)
	}
	ranking := q.Get(fieldRank)
	if err == nil && q.Has(fieldRank) && ranking != rankSector && ranking != rankOverall {
		err = fmt.Errorf("rank must be %s or %s", rankSector, rankOverall)
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
	d := organisationsPage{Overall: ranking == rankOverall}
	if d.Overall {
		all = overallLeaderboard(all)
	}
	all = maskLeaderboard(all, v)
	slice := sliceLeaderboard(all, p.Offset(), p.PerPage)
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
