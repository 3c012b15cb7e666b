package dashboard

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/mcpapi"

	"github.com/a11y-dev/cwac-operator/internal/report"
	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// Exports render the same figures as the pages (the same function
// produces them), as CSV for spreadsheets and JSON for programs: the
// open-data publication of the leaderboard and the organisations' trends.

// exportFormat validates an export's {file} path value: base.csv or base.json.
func exportFormat(r *http.Request, base string) (string, error) {
	switch f := r.PathValue("file"); f {
	case base + ".csv":
		return formatCSV, nil
	case base + ".json":
		return formatJSON, nil
	default:
		if base == exportTrendBase { // an organisation's exports: its trend or its issues
			return "", fmt.Errorf("export %q is not %s.csv, %s.json, %s.csv or %s.json", textcap.Head(f, 64), base, base, exportIssuesBase, exportIssuesBase)
		}
		return "", fmt.Errorf("export %q is not %s.csv or %s.json", textcap.Head(f, 64), base, base)
	}
}

func (h *Handler) exportLeaderboard(w http.ResponseWriter, r *http.Request, v *viewer) {
	format, err := exportFormat(r, "leaderboard")
	if err == nil {
		err = checkQuery(r.URL.Query())
	}
	if err != nil {
		h.badRequest(w, r, v, err.Error())
		return
	}
	st := h.needStore(w, r, v)
	if st == nil {
		return
	}
	figures, err := cachedLeaderboard(r.Context(), st, v.Namespaces)
	if err != nil {
		h.storeFailed(w, r, v, "", err)
		return
	}
	figures = maskLeaderboard(figures, v)
	if format == formatJSON {
		streamLeaderboardJSON(w, r, figures)
		return
	}
	header := slices.Concat([]string{"sector", "rank", fieldNamespace, "organisation", "score", "score_change", "issues", "issues_change"},
		impactClasses(), []string{"pages", "scans", "latest_scan", "finished_at", "unranked"})
	// The row's impact cells (o.Critical to o.Other) follow impactClasses'
	// order; TestExportCSVHeaders holds each under its header.
	row := func(o LeaderboardRow) []string {
		rank := ""
		if o.Rank > 0 {
			rank = strconv.Itoa(o.Rank)
		}
		if o.PlaceOnly { // its place and score, every other cell empty
			return slices.Concat([]string{o.Sector, rank, o.Namespace, o.Organisation, optFloat(o.Score)}, make([]string, len(header)-5))
		}
		return []string{o.Sector, rank, o.Namespace, o.Organisation, optFloat(o.Score), optFloat(o.ScoreChange),
			strconv.FormatInt(o.Issues, 10), optInt(o.IssuesChange), i64(o.Critical), i64(o.Serious), i64(o.Moderate), i64(o.Minor), i64(o.Other),
			strconv.Itoa(o.Pages), i64(o.Scans), o.LatestScan, o.FinishedAt.UTC().Format(time.RFC3339), o.Unranked}
	}
	writeCSVExport(w, r, "leaderboard.csv", header, func(emit func([]string)) {
		for _, s := range figures.Sectors {
			for _, o := range s.Rows {
				emit(row(o))
			}
		}
		for _, o := range figures.Unranked {
			emit(row(o))
		}
	})
}

// streamLeaderboardJSON writes the leaderboard as LeaderboardFigures
// encodes, one organisation at a time through a buffer, so the
// download of every organisation is never held whole in memory.
// placeOnlyJSON is another organisation's row in the JSON export for a
// viewer by grant: the fields it has, and no zero figures it does not.
func placeOnlyJSON(o LeaderboardRow) any {
	return struct {
		Rank         int      `json:"rank,omitempty"`
		Namespace    string   `json:"namespace"`
		Organisation string   `json:"organisation,omitempty"`
		Sector       string   `json:"sector"`
		Score        *float64 `json:"score"`
		PlaceOnly    bool     `json:"place_only"`
	}{o.Rank, o.Namespace, o.Organisation, o.Sector, o.Score, true}
}

// startJSONStream sets a streamed JSON export's headers and returns the
// buffered writer its body goes to (the caller flushes it), or nil for a
// HEAD request, which gets the headers alone.
func startJSONStream(w http.ResponseWriter, r *http.Request, name string) *bufio.Writer {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	if r.Method == http.MethodHead {
		return nil
	}
	return bufio.NewWriterSize(w, 32<<10)
}

func streamLeaderboardJSON(w http.ResponseWriter, r *http.Request, f LeaderboardFigures) {
	bw := startJSONStream(w, r, "leaderboard.json")
	if bw == nil {
		return
	}
	defer func() { _ = bw.Flush() }() // a client that went away has nothing to be told
	enc := json.NewEncoder(bw)
	list := func(n int, item func(i int)) {
		_, _ = bw.WriteString("[")
		for i := range n {
			if i > 0 {
				_, _ = bw.WriteString(",")
			}
			item(i)
		}
		_, _ = bw.WriteString("]")
	}
	rows := func(rs []LeaderboardRow) {
		list(len(rs), func(i int) {
			if rs[i].PlaceOnly {
				_ = enc.Encode(placeOnlyJSON(rs[i]))
				return
			}
			_ = enc.Encode(rs[i])
		})
	}
	_, _ = bw.WriteString(`{"sectors":`)
	list(len(f.Sectors), func(i int) {
		name, _ := json.Marshal(f.Sectors[i].Name)
		_, _ = bw.WriteString(`{"sector":` + string(name) + `,"organisations":`)
		rows(f.Sectors[i].Rows)
		_, _ = bw.WriteString("}")
	})
	_, _ = bw.WriteString(`,"unranked":`)
	rows(f.Unranked)
	_, _ = bw.WriteString("}\n")
}

func i64(n int64) string { return strconv.FormatInt(n, 10) }

func optFloat(f *float64) string {
	if f == nil {
		return ""
	}
	return strconv.FormatFloat(*f, 'f', 1, 64)
}

func optInt(n *int64) string {
	if n == nil {
		return ""
	}
	return strconv.FormatInt(*n, 10)
}

func writeJSONExport(w http.ResponseWriter, r *http.Request, name string, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		http.Error(w, "encoding the export failed", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	if r.Method != http.MethodHead {
		_, _ = w.Write(append(b, '\n'))
	}
}

// writeCSVExport writes a CSV whose text cells cannot be read as
// spreadsheet formulas (report.SafeCell), as the report's CSVs are;
// numbers (a negative change starts with "-") stay numbers. rows emits
// the rows one at a time: each is written as it comes (csv.Writer's
// buffer), never the whole file at once.
func writeCSVExport(w http.ResponseWriter, r *http.Request, name string, header []string, rows func(emit func([]string))) {
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	if r.Method == http.MethodHead {
		return
	}
	cw := csv.NewWriter(w)
	_ = cw.Write(header)
	rows(func(row []string) {
		for i, c := range row {
			if _, err := strconv.ParseFloat(c, 64); err != nil {
				row[i] = report.SafeCell(c)
			}
		}
		_ = cw.Write(row)
	})
	cw.Flush()
}

// trendExport is /export/organisations/{ns}/{org}/history-trend.json's body.
type trendExport struct {
	Namespace    string              `json:"namespace"`
	Organisation string              `json:"organisation"`
	Schedule     string              `json:"schedule,omitempty"`
	Points       []mcpapi.TrendPoint `json:"points"` // as cwac_organisation_trend answers them
}

func (h *Handler) exportTrend(w http.ResponseWriter, r *http.Request, v *viewer) {
	format, err := exportFormat(r, exportTrendBase)
	if err != nil {
		h.badRequest(w, r, v, err.Error())
		return
	}
	ns, org, schedule, st := h.organisationParams(w, r, v)
	if st == nil {
		return
	}
	points, err := OrganisationTrend(r.Context(), st, ns, org, schedule)
	if err != nil {
		h.storeFailed(w, r, v, store.NoOrganisation(ns, org)+".", err)
		return
	}
	// One wire shape: the points as cwac_organisation_trend answers them
	// (a blocked or unreachable organisation's score left out), in JSON
	// and CSV alike.
	api := make([]mcpapi.TrendPoint, len(points))
	for i, p := range points {
		api[i] = mcpapi.TrendPointOf(p)
	}
	if format == formatJSON {
		writeJSONExport(w, r, exportTrendBase+".json", trendExport{Namespace: ns, Organisation: org, Schedule: schedule, Points: api})
		return
	}
	classes := impactClasses()
	header := slices.Concat([]string{"scan", "schedule", "finished_at", "pages", "issues", "elements"}, classes,
		[]string{"weighted_per_page", "score", "new", "fixed", "fixed_page_not_scanned", "reopened", "unstable", "open",
			"cwac_image", "axe_core", "chrome", "engine_changed", "set_aside", "decided"})
	writeCSVExport(w, r, exportTrendBase+".csv", header, func(emit func([]string)) {
		for _, p := range api {
			byImpact := make([]string, len(classes))
			for i, class := range classes {
				byImpact[i] = i64(p.ByImpact[class])
			}
			emit(slices.Concat(
				[]string{p.Scan, p.Schedule, p.FinishedAt.UTC().Format(time.RFC3339), strconv.Itoa(p.Pages), i64(p.Issues), i64(p.Elements)},
				byImpact,
				[]string{strconv.FormatFloat(p.WeightedPerPage, 'f', 1, 64), optFloat(p.Score), i64(p.New), i64(p.Fixed), i64(p.FixedPageNotScanned),
					i64(p.Reopened), i64(p.Unstable), i64(p.Open), p.Engine.CWACImage, p.Engine.AxeCore, p.Engine.Chrome, strconv.FormatBool(p.EngineChanged),
					i64(p.SetAside), i64(p.Decided)}))
		}
	})
}
