package dashboard

import (
	"context"
	"encoding/csv"
	"html"
	"net/url"
	"strings"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/report"
	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
)

// TestPagesSayWhatWasSetAside: findings set aside from an organisation's
// figures (report.TimingDependentWhy) are named with their count and why
// on its page, beside the scan that had them, on that scan's page and in
// the trend export; a scan without any says nothing of them. So are the
// issues a decision covered when the scan ran.
func TestPagesSayWhatWasSetAside(t *testing.T) {
	st := storetest.OpenSQLite(t)
	ctx := context.Background()
	for week, setAside := range []int64{0, 2} {
		decided := 3 * setAside // 0, then 6
		w, err := st.BeginScan(ctx, weekScan(testNS, week), "test")
		if err != nil {
			t.Fatal(err)
		}
		id, err := w.Organisation(ctx, orgAlpha, sectorA)
		if err != nil {
			t.Fatal(err)
		}
		score := 90.0
		if err := w.AddOrganisationFigures(ctx, store.OrganisationFigures{OrgID: id, Schedule: "weekly", BaseURLs: 1, Pages: 4,
			Issues: 3, Score: &score, Completeness: "complete", SetAside: setAside, Decided: decided}); err != nil {
			t.Fatal(err)
		}
		if err := w.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	h, err := New(Options{Access: defaultAccess, Namespaces: []string{testNS}, Store: store.NewHandle(st), Scans: &fakeScans{scans: []ScanInfo{
		{Namespace: testNS, Name: weekScan(testNS, 0).Name, Phase: "Complete"}, {Namespace: testNS, Name: weekScan(testNS, 1).Name, Phase: "Complete"},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	why := html.EscapeString(report.TimingDependentWhy)
	orgPath := "/organisations/" + testNS + "/" + url.PathEscape(orgAlpha)
	_, page := get(t, h, "reader", orgPath)
	for _, want := range []string{
		"<dt>Set aside</dt><dd>2 findings in CWAC's count, in neither the issues nor the score: " + why + "</dd>",
		"<dt>Decided</dt><dd>6 issues in CWAC's count that a decision covered when the scan ran, in neither the issues nor the score",
		"Set aside from the issues and scores above, as " + why + ": 2 findings in " + testNS + "/" + weekScan(testNS, 1).Name + ".",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the organisation page does not say %q", want)
		}
	}
	for week, want := range []string{"", "Set aside from these organisations' issues and scores: 2 findings in CWAC's count, " + why} {
		_, page := get(t, h, "reader", "/scans/"+testNS+"/"+weekScan(testNS, week).Name)
		if got := strings.Contains(page, "Set aside"); got != (want != "") || !strings.Contains(page, want) {
			t.Errorf("week %d's scan page: speaks of findings set aside: %v; want %q", week, got, want)
		}
		decided := "Left out of these organisations' issues and scores because a decision covered them when the scan ran: 6 issues"
		if got := strings.Contains(page, "a decision covered"); got != (week == 1) || (week == 1 && !strings.Contains(page, decided)) {
			t.Errorf("week %d's scan page: speaks of decided issues: %v; want %v", week, got, week == 1)
		}
	}
	_, body := get(t, h, "reader", "/export"+orgPath+"/"+exportTrendBase+".csv")
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil || len(rows) != 3 {
		t.Fatalf("trend CSV: %v %q", err, body)
	}
	for i, want := range [][]string{{"set_aside", "decided"}, {"0", "0"}, {"2", "6"}} {
		if got := rows[i][len(rows[i])-2:]; got[0] != want[0] || got[1] != want[1] {
			t.Errorf("trend CSV row %d ends %q, want %q", i, got, want)
		}
	}
}

// TestRealRowsSetAside: the fixture's latest scan of Alpha has a real
// focus row moved onto the page's <body>; ingest sets it aside, so
// Alpha's figures are those of the scan without it, and its pages say so.
func TestRealRowsSetAside(t *testing.T) {
	h, st := newTestHandler(t, Options{Scans: &fakeScans{scans: []ScanInfo{{Namespace: testNS, Name: weekScan(testNS, 2).Name, Phase: "Complete"}}}})
	points, err := st.OrganisationTrend(context.Background(), []string{testNS}, orgAlpha, "")
	if err != nil || len(points) != 3 {
		t.Fatalf("Alpha's trend: %v %v", points, err)
	}
	if points[2].SetAside != 1 || points[1].SetAside != 0 {
		t.Fatalf("set aside per week: %d %d %d, want 0 0 1", points[0].SetAside, points[1].SetAside, points[2].SetAside)
	}
	_, page := get(t, h, "reader", "/organisations/"+testNS+"/"+url.PathEscape(orgAlpha))
	if !strings.Contains(page, "<dt>Set aside</dt><dd>1 finding in CWAC's count") {
		t.Error("Alpha's page does not say what was set aside")
	}
	_, page = get(t, h, "reader", "/scans/"+testNS+"/"+weekScan(testNS, 2).Name)
	if !strings.Contains(page, "Set aside from these organisations' issues and scores: 1 finding in CWAC's count") {
		t.Error("the latest scan's page does not say what was set aside")
	}
}
