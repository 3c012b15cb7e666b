package dashboard

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/store"
)

// TestScanChangesExport: what a scan changed in the history, as CSV and
// JSON: every change the store keeps for it, in its order; a viewer by
// grant gets their organisation's alone; the scan page links both; a
// scan not recorded, a query or another file are refused.
func TestScanChangesExport(t *testing.T) {
	h, st := newTestHandler(t, Options{Access: grantAccess(), Scans: testScans(t)})
	ctx := context.Background()
	all, err := st.ScanChanges(ctx, store.ChangesFilter{Namespaces: []string{testNS}, Name: "weekly-2", Limit: store.MaxLimit})
	if err != nil || len(all.Changes) == 0 {
		t.Fatalf("weekly-2's changes: %d, %v", len(all.Changes), err)
	}
	kinds := map[string]bool{}
	for _, c := range all.Changes {
		kinds[c.Change] = true
	}
	if !kinds[store.ChangeOpened] || !kinds[store.ReasonFixed] {
		t.Fatalf("weekly-2 changed %v: the fixture should open and fix issues", kinds)
	}
	base := "/export/scans/" + testNS + "/weekly-2/"
	res, body := get(t, h, "reader", base+"changes.csv")
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if res.StatusCode != http.StatusOK || err != nil || len(rows)-1 != len(all.Changes) {
		t.Fatalf("changes.csv: %d, %d rows, %v, want %d", res.StatusCode, len(rows)-1, err, len(all.Changes))
	}
	if rows[0][0] != "change" || rows[0][1] != "organisation" || rows[0][2] != "fingerprint" {
		t.Errorf("changes.csv header: %v", rows[0])
	}
	for i, c := range all.Changes {
		if rows[i+1][0] != c.Change || rows[i+1][1] != c.Issue.Organisation || rows[i+1][2] != c.Issue.Fingerprint {
			t.Fatalf("row %d: %v, want %s of %s", i+1, rows[i+1][:4], c.Change, c.Issue.Fingerprint)
		}
	}
	res, body = get(t, h, "reader", base+"changes.json")
	var out struct {
		Namespace, Scan string
		Changes         []struct {
			Change string
			Issue  struct{ Fingerprint, Organisation string }
		}
	}
	if res.StatusCode != http.StatusOK || json.Unmarshal([]byte(body), &out) != nil || len(out.Changes) != len(all.Changes) ||
		out.Scan != "weekly-2" || out.Changes[0].Issue.Fingerprint != all.Changes[0].Issue.Fingerprint {
		t.Fatalf("changes.json: %d %.300s", res.StatusCode, body)
	}
	checkChangesByGrant(t, h, base, all)
	if _, page := get(t, h, "reader", "/scans/"+testNS+"/weekly-2"); !strings.Contains(page, `href="`+base+`changes.csv"`) ||
		!strings.Contains(page, `href="`+base+`changes.json"`) {
		t.Error("the scan page does not link its changes exports")
	}
	for path, want := range map[string]int{
		"/export/scans/" + testNS + "/weekly-9/changes.csv":  http.StatusNotFound,
		base + "changes.csv?x=1":                             http.StatusBadRequest,
		base + "issues.csv":                                  http.StatusBadRequest,
		"/export/scans/" + otherNS + "/weekly-0/changes.csv": http.StatusNotFound, // a namespace the reader may not read
	} {
		if res, _ := get(t, h, "reader", path); res.StatusCode != want {
			t.Errorf("%s: %d, want %d", path, res.StatusCode, want)
		}
	}
}

// checkChangesByGrant: a viewer by a grant of Alpha gets Alpha's changes
// of the scan only.
func checkChangesByGrant(t *testing.T, h *Handler, base string, all store.ChangesPage) {
	t.Helper()
	res, body := get(t, h, "alpha-web", base+"changes.csv")
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	alpha := 0
	for _, c := range all.Changes {
		if c.Issue.Organisation == orgAlpha {
			alpha++
		}
	}
	if res.StatusCode != http.StatusOK || err != nil || len(rows)-1 != alpha || alpha == len(all.Changes) {
		t.Fatalf("changes.csv by a grant of Alpha: %d, %d rows (%v), want Alpha's %d of %d", res.StatusCode, len(rows)-1, err, alpha, len(all.Changes))
	}
	for _, r := range rows[1:] {
		if r[1] != orgAlpha {
			t.Errorf("by a grant of Alpha: a row of %s", r[1])
		}
	}
}
