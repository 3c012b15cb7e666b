package dashboard

import (
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
)

// capStore records n weekly scans of one organisation (each with issues a
// decision covered, which the page names) through the
// store's writer, the ith with score i.
func capStore(t *testing.T, n int) *store.Store {
	t.Helper()
	st := storetest.OpenSQLite(t)
	ctx := context.Background()
	for i := range n {
		name := fmt.Sprintf("weekly-%03d", i)
		w, err := st.BeginScan(ctx, store.Scan{UID: name, Namespace: testNS, Name: name, Schedule: "weekly", Phase: "Complete",
			FinishedAt: time.Date(2025, 1, 6, 3, 0, 0, 0, time.UTC).AddDate(0, 0, 7*i), ResultsPath: testNS + "/" + name}, "test")
		if err != nil {
			t.Fatal(err)
		}
		id, err := w.Organisation(ctx, orgAlpha, sectorA)
		if err != nil {
			t.Fatal(err)
		}
		score := float64(i)
		if err := w.AddOrganisationFigures(ctx, store.OrganisationFigures{OrgID: id, Schedule: "weekly", BaseURLs: 1, Pages: 4,
			Issues: int64(i), Score: &score, Completeness: "complete", Decided: int64(1 + i%3)}); err != nil {
			t.Fatal(err)
		}
		if err := w.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return st
}

// TestOrganisationPageCap: the over-time charts and table show the newest
// 52 scans, and past 52 say how many older ones the exports hold.
func TestOrganisationPageCap(t *testing.T) {
	for _, tc := range []struct {
		points, shown int
		note          string
	}{
		{51, 51, ""},
		{52, 52, ""},
		{53, 52, "The charts and the table show the newest 52 scans; 1 older scan is in the full series"},
	} {
		t.Run(fmt.Sprint(tc.points), func(t *testing.T) {
			st := capStore(t, tc.points)
			h, err := New(Options{Access: defaultAccess, Namespaces: []string{testNS}, Store: store.NewHandle(st)})
			if err != nil {
				t.Fatal(err)
			}
			res, body := get(t, h, "reader", OrganisationPath(testNS, orgAlpha))
			if res.StatusCode != http.StatusOK {
				t.Fatalf("status %d", res.StatusCode)
			}
			table := body[strings.Index(body, `<caption id="trend-caption">`):]
			table = table[:strings.Index(table, "</table>")]
			if n := strings.Count(table, "<tr>") - 1; n != tc.shown {
				t.Errorf("the table has %d rows, want %d", n, tc.shown)
			}
			first := fmt.Sprintf("weekly-%03d</a>", tc.points-tc.shown)
			if !strings.Contains(table, first) || strings.Contains(table, fmt.Sprintf("weekly-%03d</a>", tc.points-tc.shown-1)) {
				t.Errorf("the table does not start at %s", first)
			}
			if !strings.Contains(body, fmt.Sprintf("%d scans from ", tc.shown)) {
				t.Errorf("the charts do not describe %d scans", tc.shown)
			}
			last := fmt.Sprintf("the latest score is %d.0", tc.points-1)
			if !strings.Contains(body, last) {
				t.Errorf("the chart lacks %q", last)
			}
			note := strings.Contains(body, "older scan")
			link := `: <a href="/export/organisations/cwac/Alpha%20Agency/history-trend.csv">`
			if (tc.note != "") != note || (tc.note != "" && !strings.Contains(body, tc.note+link)) {
				t.Errorf("the note on older scans: want %q, page has one: %v", tc.note, note)
			}
			_, export := get(t, h, "reader", "/export/organisations/cwac/Alpha%20Agency/history-trend.csv")
			rows, err := csv.NewReader(strings.NewReader(export)).ReadAll()
			if err != nil || len(rows) != 1+tc.points {
				t.Errorf("the export has %d rows, want every point (%d): %v", len(rows)-1, tc.points, err)
			}
		})
	}
}

func TestNewestPoints(t *testing.T) {
	for _, tc := range []struct{ points, n, shown, older int }{
		{0, 52, 0, 0}, {51, 52, 51, 0}, {52, 52, 52, 0}, {53, 52, 52, 1}, {156, 52, 52, 104},
	} {
		points := make([]store.TrendPoint, tc.points)
		for i := range points {
			points[i].Issues = int64(i)
		}
		shown, older := newestPoints(points, tc.n)
		if len(shown) != tc.shown || older != tc.older || (len(shown) > 0 && shown[len(shown)-1].Issues != int64(tc.points-1)) {
			t.Errorf("%d points: %d shown, %d older, want %d, %d", tc.points, len(shown), older, tc.shown, tc.older)
		}
	}
}
