package dashboard

import (
	"context"
	"net/http"
	"strings"

	"github.com/a11y-dev/cwac-operator/internal/orgaccess"
	"github.com/a11y-dev/cwac-operator/internal/store"
)

// What a viewer who reads a namespace by CwacOrganisationGrant sees: the
// pages, issues and trend of the organisations the grants cover, their
// places in the leaderboard beside the other organisations of the same
// sectors (named only when a grant says so), and no scan. Every check is
// here; the pages call them before they read.

// covers reports whether the viewer may read the organisation of
// namespace ns (orgaccess.Reach.CoversRecorded).
func (h *Handler) covers(ctx context.Context, st *store.Store, v *viewer, ns, org string) (bool, error) {
	return v.reachOf(ns).CoversRecorded(ctx, st, ns, org)
}

// LinksScan reports whether a page links the scan named "namespace/name"
// for the viewer: only a reader of its whole namespace may open it.
func (v *viewer) LinksScan(ref string) bool {
	ns, _, ok := strings.Cut(ref, "/")
	return ok && v.reachOf(ns).IsWhole()
}

// wholeNamespaces are the namespaces whose scans the viewer reads wholly.
func (v *viewer) wholeNamespaces() []string {
	var out []string
	for _, ns := range v.Namespaces {
		if v.reach[ns].IsWhole() {
			out = append(out, ns)
		}
	}
	return out
}

// refuseScans answers a viewer who reads namespace ns (or, with ns "",
// every namespace they read) only by grant: a scan's pages and files show
// every organisation of the scan.
func (h *Handler) refuseScans(w http.ResponseWriter, r *http.Request, v *viewer, what string) {
	h.refused(r, v, "scans need get on cwacscans; the viewer reads by organisation grant")
	h.fail(w, r, v, http.StatusForbidden, "Not available with your access", capitalised(orgaccess.WholeScanOnly(what).Error()))
}

// capitalised is a refusal as a sentence on a page.
func capitalised(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:] + "."
}

// maskLeaderboard is the leaderboard as the viewer may see it. Rows of
// namespaces the viewer reads wholly stay as they are. In a namespace read
// by grant, the covered organisations' rows stay; another organisation's
// ranked row stays only in a sector where a covered organisation is ranked,
// with its place and score alone (named only when a grant says so); the
// rest go, and so do sectors left empty.
func maskLeaderboard(all LeaderboardFigures, v *viewer) LeaderboardFigures {
	if v.ReadsWholeScans() {
		return all
	}
	type sectorKey struct{ ns, sector string }
	mine := map[sectorKey]bool{}
	for _, s := range all.Sectors {
		for _, row := range s.Rows {
			if v.reachOf(row.Namespace).Covers(row.Organisation, row.Sector) {
				mine[sectorKey{row.Namespace, row.Sector}] = true
			}
		}
	}
	out := LeaderboardFigures{}
	for _, s := range all.Sectors {
		var rows []LeaderboardRow
		for _, row := range s.Rows {
			reach := v.reachOf(row.Namespace)
			switch {
			case reach.Covers(row.Organisation, row.Sector):
				rows = append(rows, row)
			case mine[sectorKey{row.Namespace, row.Sector}]:
				rows = append(rows, placeOnly(row, reach.ShowsName(row.Organisation, row.Sector)))
			}
		}
		if len(rows) > 0 {
			out.Sectors = append(out.Sectors, Sector{Name: s.Name, Rows: rows})
		}
	}
	for _, row := range all.Unranked {
		if v.reachOf(row.Namespace).Covers(row.Organisation, row.Sector) {
			out.Unranked = append(out.Unranked, row)
		}
	}
	return out
}

// placeOnly is another organisation's row as a viewer by grant sees it:
// its place, sector and score, its name when shown, nothing else.
func placeOnly(row LeaderboardRow, named bool) LeaderboardRow {
	out := LeaderboardRow{Rank: row.Rank, Namespace: row.Namespace, Sector: row.Sector, Score: row.Score, PlaceOnly: true, Trend: []ScorePoint{}}
	if named {
		out.Organisation = row.Organisation
	}
	return out
}
