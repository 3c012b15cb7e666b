package dashboard

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
)

// TestIssuesExport: an organisation's issues, open and fixed, as CSV and
// JSON: every one the history holds for it, in its order, and nobody
// else's; refused alike for an organisation outside a viewer's grants.
func TestIssuesExport(t *testing.T) {
	h, st := newTestHandler(t, Options{Access: grantAccess()})
	all, err := st.IssueHistory(context.Background(), store.IssueFilter{Namespaces: []string{testNS}, Organisation: orgAlpha, Limit: store.MaxLimit})
	if err != nil || all.Total == 0 {
		t.Fatalf("Alpha's issues: %d, %v", all.Total, err)
	}
	base := "/export/organisations/" + testNS + "/" + url.PathEscape(orgAlpha)
	for _, user := range []string{"reader", "alpha-web"} {
		res, body := get(t, h, user, base+"/issues.csv")
		rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
		if res.StatusCode != http.StatusOK || err != nil || int64(len(rows)-1) != all.Total {
			t.Fatalf("%s: issues.csv: %d, %d rows, %v, want %d", user, res.StatusCode, len(rows)-1, err, all.Total)
		}
		if rows[0][0] != "fingerprint" || rows[1][0] != all.Issues[0].Fingerprint || rows[len(rows)-1][0] != all.Issues[all.Total-1].Fingerprint {
			t.Errorf("%s: issues.csv is not the history's order: %v", user, rows[:2])
		}
		for _, r := range rows[1:] {
			if !strings.HasPrefix(r[2], "https://alpha.example") {
				t.Errorf("%s: a row of another organisation's page: %v", user, r)
			}
		}
		res, body = get(t, h, user, base+"/issues.json")
		var out struct {
			Namespace    string           `json:"namespace"`
			Organisation string           `json:"organisation"`
			Issues       []map[string]any `json:"issues"`
		}
		if res.StatusCode != http.StatusOK || json.Unmarshal([]byte(body), &out) != nil || int64(len(out.Issues)) != all.Total ||
			out.Organisation != orgAlpha || out.Issues[0]["fingerprint"] != all.Issues[0].Fingerprint {
			t.Fatalf("%s: issues.json: %d %.300s", user, res.StatusCode, body)
		}
	}
	// Another organisation by grant, one that does not exist, a schedule.
	_, absent := get(t, h, "alpha-web", "/export/organisations/"+testNS+"/Nobody/issues.csv")
	res, beta := get(t, h, "alpha-web", "/export/organisations/"+testNS+"/"+url.PathEscape(orgBeta)+"/issues.csv")
	if res.StatusCode != http.StatusNotFound || strings.ReplaceAll(beta, orgBeta, "X") != strings.ReplaceAll(absent, "Nobody", "X") {
		t.Errorf("another organisation's issues by grant: %d %s", res.StatusCode, beta)
	}
	if res, body := get(t, h, "reader", base+"/issues.csv?schedule=weekly"); res.StatusCode != http.StatusBadRequest ||
		!strings.Contains(body, "takes no schedule") {
		t.Errorf("issues with a schedule: %d", res.StatusCode)
	}
}

// The export reads the store a page at a time: an organisation with more
// issues than a page (and than two) is exported whole, in order.
func TestIssuesExportPages(t *testing.T) {
	st := storetest.OpenSQLite(t)
	const n = 2*store.MaxLimit + 7
	ctx := context.Background()
	w, err := st.BeginScan(ctx, store.Scan{UID: "big-1", Namespace: testNS, Name: "big-1", FinishedAt: time.Unix(1000, 0), Phase: "Complete"}, "test")
	if err != nil {
		t.Fatal(err)
	}
	org, err := w.Organisation(ctx, "Big Org", "Big")
	if err != nil {
		t.Fatal(err)
	}
	pages, err := w.AddPages(ctx, org, []string{"https://big.example/"})
	if err != nil {
		t.Fatal(err)
	}
	ids, issues := make([]int64, n), make([]store.NewIssue, n)
	for i := range ids {
		ids[i] = w.IssueIDs(1)
		issues[i] = store.NewIssue{Fingerprint: fmt.Sprintf("%032x", i), OrgID: org, PageID: pages[0], Width: 320, Audit: "axe_core_audit",
			Rule: "image-alt", Impact: "critical", ElementHTML: fmt.Sprintf("<img id=%d>", i), ElementHash: uint64(i), Target: "/html", TargetHash: 1}
	}
	if err := w.AddIssues(ctx, ids, issues); err != nil {
		t.Fatal(err)
	}
	if err := w.FinishPresences(ctx); err != nil {
		t.Fatal(err)
	}
	if err := w.AddOrganisationFigures(ctx, store.OrganisationFigures{OrgID: org, BaseURLs: 1, Pages: 1, Issues: n, Open: n}); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	h, err := New(Options{Access: defaultAccess, Namespaces: []string{testNS}, Store: store.NewHandle(st)})
	if err != nil {
		t.Fatal(err)
	}
	res, body := get(t, h, "reader", "/export/organisations/"+testNS+"/Big%20Org/issues.csv")
	rows, err := csv.NewReader(bytes.NewReader([]byte(body))).ReadAll()
	if res.StatusCode != http.StatusOK || err != nil || len(rows) != n+1 {
		t.Fatalf("%d rows (%v), want %d", len(rows)-1, err, n)
	}
	seen := map[string]bool{}
	for _, r := range rows[1:] {
		seen[r[0]] = true
	}
	if len(seen) != n {
		t.Errorf("%d distinct issues of %d: pages overlap or skip", len(seen), n)
	}
}
