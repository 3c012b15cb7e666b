package dashboard

import (
	"context"
	"encoding/csv"
	"strings"
	"testing"
)

// The exports' headers are what spreadsheets and scripts downloading the
// open data key on: building them from results.Impacts must not change a
// column's name or place. Each impact column must also hold that impact's
// figure, whichever way its header and its cells are built.
func TestExportCSVHeaders(t *testing.T) {
	h, st := newTestHandler(t, Options{})
	ctx := context.Background()
	figures, err := Leaderboard(ctx, st, []string{testNS})
	if err != nil {
		t.Fatal(err)
	}
	_, body := get(t, h, "reader", "/export/leaderboard.csv")
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil || len(rows) < 2 {
		t.Fatalf("leaderboard csv: %d rows, %v", len(rows), err)
	}
	const leaderboardHeader = "sector,rank,namespace,organisation,score,score_change,issues,issues_change," +
		"critical,serious,moderate,minor,other,pages,scans,latest_scan,finished_at,unranked"
	if got := strings.Join(rows[0], ","); got != leaderboardHeader {
		t.Errorf("leaderboard header\n%s\nwant\n%s", got, leaderboardHeader)
	}
	alpha := figures.Sectors[0].Rows[0]
	wantAlpha := map[string]int64{"critical": alpha.Critical, "serious": alpha.Serious, "moderate": alpha.Moderate, "minor": alpha.Minor, "other": alpha.Other}
	for col, name := range rows[0] {
		if want, ok := wantAlpha[name]; ok && rows[1][col] != i64(want) {
			t.Errorf("leaderboard %s of %s = %s, want %d", name, rows[1][3], rows[1][col], want)
		}
	}

	points, err := OrganisationTrend(ctx, st, testNS, orgBeta, "weekly")
	if err != nil || len(points) == 0 {
		t.Fatalf("trend: %d points, %v", len(points), err)
	}
	_, body = get(t, h, "reader", "/export/organisations/cwac/Beta%20Board/history-trend.csv?schedule=weekly")
	rows, err = csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil || len(rows) != 1+len(points) {
		t.Fatalf("trend csv: %d rows, %v", len(rows), err)
	}
	const trendHeader = "scan,schedule,finished_at,pages,issues,elements,critical,serious,moderate,minor,other," +
		"weighted_per_page,score,new,fixed,fixed_page_not_scanned,reopened,unstable,open,cwac_image,axe_core,chrome,engine_changed,set_aside,decided"
	if got := strings.Join(rows[0], ","); got != trendHeader {
		t.Errorf("trend header\n%s\nwant\n%s", got, trendHeader)
	}
	var counted int64
	for i, p := range points {
		for col, name := range rows[0][6:11] {
			counted += p.ByImpact[name]
			if got := rows[i+1][6+col]; got != i64(p.ByImpact[name]) {
				t.Errorf("trend point %d: %s = %s, want %d", i, name, got, p.ByImpact[name])
			}
		}
		if len(rows[i+1]) != len(rows[0]) {
			t.Errorf("trend point %d: %d cells under %d headers", i, len(rows[i+1]), len(rows[0]))
		}
	}
	if counted == 0 {
		t.Error("the fixture's trend has no issue of any impact: the columns were not tested")
	}
}
