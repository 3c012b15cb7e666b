package dashboard

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
)

func TestShownScore(t *testing.T) {
	score := 100.0
	for _, tc := range []struct {
		verdict string
		kept    bool
	}{
		{"complete", true}, {"partial", true}, {"", true}, {"blocked", false}, {"unreachable", false},
	} {
		got := shownScore(&score, tc.verdict)
		if (got != nil) != tc.kept {
			t.Errorf("%q: score %v, want kept %v", tc.verdict, got, tc.kept)
		}
	}
	if shownScore(nil, "complete") != nil {
		t.Error("no score became one")
	}
}

// verdictOrgs are organisations scanned completely in week 0 (score
// 80) and then with a verdict in week 1 (score 100, as a challenge page
// with nothing for axe to find would earn).
var verdictOrgs = []struct {
	name, verdict string
	showsScore    bool
}{
	{"Blocked Org", "blocked", false},
	{"Down Org", "unreachable", false},
	{"Part Org", "partial", true},
}

// verdictStore records verdictOrgs' two scans through the store's writer.
func verdictStore(t *testing.T) *store.Store {
	t.Helper()
	st := storetest.OpenSQLite(t)
	ctx := context.Background()
	for week, score := range []float64{80, 100} {
		w, err := st.BeginScan(ctx, weekScan(testNS, week), "test")
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range verdictOrgs {
			id, err := w.Organisation(ctx, o.name, sectorA)
			if err != nil {
				t.Fatal(err)
			}
			f := store.OrganisationFigures{OrgID: id, Schedule: "weekly", BaseURLs: 1, Pages: 4, Issues: 2, Score: &score,
				Completeness: "complete"}
			if week == 1 {
				f.Completeness, f.CompletenessReason = o.verdict, "every page loaded was a challenge page"
			}
			if err := w.AddOrganisationFigures(ctx, f); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return st
}

// TestNoScoreWhenBlocked: an organisation whose latest scan is blocked or
// unreachable has no score on any page or export, its earlier complete
// scan keeps its score, and a partial scan keeps its own.
func TestNoScoreWhenBlocked(t *testing.T) {
	st := verdictStore(t)
	scans := &fakeScans{scans: []ScanInfo{{Namespace: testNS, Name: weekScan(testNS, 1).Name, Phase: "Complete"}}}
	h, err := New(Options{Access: defaultAccess, Namespaces: []string{testNS}, Store: store.NewHandle(st), Scans: scans})
	if err != nil {
		t.Fatal(err)
	}
	_, body := get(t, h, "reader", "/export/leaderboard.json")
	var figures LeaderboardFigures
	if err := json.Unmarshal([]byte(body), &figures); err != nil {
		t.Fatal(err)
	}
	rows := map[string]LeaderboardRow{}
	for _, r := range figures.Unranked {
		rows[r.Organisation] = r
	}
	_, body = get(t, h, "reader", "/export/leaderboard.csv")
	records, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	csvScore := map[string]string{}
	for _, r := range records[1:] {
		csvScore[r[3]] = r[4]
	}
	orgs, _, err := ScanOrganisations(context.Background(), st, testNS, weekScan(testNS, 1).Name, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	_, scanPage := get(t, h, "reader", "/scans/"+testNS+"/"+weekScan(testNS, 1).Name)
	for i, o := range verdictOrgs {
		row, ok := rows[o.name]
		if !ok || row.Rank != 0 || !strings.Contains(row.Unranked, o.verdict) {
			t.Fatalf("%s: not among the unranked with its verdict: %+v", o.name, figures)
		}
		wantScore, wantCSV, wantCell := "<nil>", "", "no score"
		if o.showsScore {
			wantScore, wantCSV, wantCell = "100.0", "100.0", "100.0"
		}
		if got := fmtPtr(row.Score); got != wantScore {
			t.Errorf("%s: leaderboard score %s, want %s", o.name, got, wantScore)
		}
		if len(row.Trend) != 2 || fmtPtr(row.Trend[0].Score) != "80.0" || fmtPtr(row.Trend[1].Score) != wantScore {
			t.Errorf("%s: trend %+v, want 80.0 then %s", o.name, row.Trend, wantScore)
		}
		if o.showsScore != (row.ScoreChange != nil) {
			t.Errorf("%s: score change %v", o.name, fmtPtr(row.ScoreChange))
		}
		if csvScore[o.name] != wantCSV {
			t.Errorf("%s: CSV score %q, want %q", o.name, csvScore[o.name], wantCSV)
		}
		if orgs[i].Organisation != o.name || fmtPtr(orgs[i].Figures.Score) != wantScore {
			t.Errorf("%s: scan's figures %+v", o.name, orgs[i])
		}
		want := `<td class="num">` + wantCell + `</td><td class="num">2</td><td class="num">4</td>`
		if !strings.Contains(scanPage, o.name+"</a></th><td>"+sectorA+"</td>\n"+want) {
			t.Errorf("%s: the scan page lacks %q", o.name, want)
		}
		checkOrganisationScore(t, h, st, o.name, wantScore, wantCSV, wantCell)
	}
}

// checkOrganisationScore: the organisation page and its trend export
// show the earlier complete scan's score and the latest as wanted.
func checkOrganisationScore(t *testing.T, h http.Handler, st *store.Store, name, wantScore, wantCSV, wantCell string) {
	t.Helper()
	points, err := OrganisationTrend(context.Background(), st, testNS, name, "")
	if err != nil || len(points) != 2 || fmtPtr(points[0].Score) != "80.0" || fmtPtr(points[1].Score) != wantScore {
		t.Errorf("%s: trend %+v %v", name, points, err)
	}
	res, page := get(t, h, "reader", OrganisationPath(testNS, name))
	if res.StatusCode != http.StatusOK || !strings.Contains(page, "<dt>Score</dt><dd>"+wantCell+"</dd>") ||
		!strings.Contains(page, "every page loaded was a challenge page") {
		t.Errorf("%s: the organisation page lacks its score %q or its reason", name, wantCell)
	}
	_, trend := get(t, h, "reader", "/export/organisations/"+testNS+"/"+strings.ReplaceAll(name, " ", "%20")+"/history-trend.csv")
	lines, err := csv.NewReader(strings.NewReader(trend)).ReadAll()
	if err != nil || len(lines) != 3 || lines[1][12] != "80.0" || lines[2][12] != wantCSV {
		t.Errorf("%s: trend CSV %q %v", name, lines, err)
	}
}

func fmtPtr(f *float64) string {
	if f == nil {
		return "<nil>"
	}
	return optFloat(f)
}
