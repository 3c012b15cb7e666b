package dashboard

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/store"
)

// grantAccess: "alpha-web" reads Alpha Agency of testNS by grant (other
// names hidden); "gov-web" the Local government sector (names shown);
// "reader" the whole of testNS.
func grantAccess() testAccess {
	a := defaultAccess
	a.orgGrants = map[string][]cwacv1alpha1.CwacOrganisationGrant{testNS: {
		{Spec: cwacv1alpha1.CwacOrganisationGrantSpec{
			Subjects:      []cwacv1alpha1.GrantSubject{{Kind: cwacv1alpha1.GrantSubjectUser, Name: "alpha-web"}},
			Organisations: []string{orgAlpha}}},
		{Spec: cwacv1alpha1.CwacOrganisationGrantSpec{
			Subjects: []cwacv1alpha1.GrantSubject{{Kind: cwacv1alpha1.GrantSubjectUser, Name: "gov-web"}},
			Sectors:  []string{sectorB}, OtherOrganisations: cwacv1alpha1.OtherNamesShown}},
	}}
	return a
}

func issueOf(t *testing.T, st *store.Store, org string) string {
	t.Helper()
	page, err := st.IssueHistory(context.Background(), store.IssueFilter{Namespaces: []string{testNS}, Organisation: org, Limit: 1})
	if err != nil || len(page.Issues) == 0 {
		t.Fatalf("an issue of %s: %v", org, err)
	}
	return page.Issues[0].Fingerprint
}

// TestOrganisationGrantViewer crawls every page and export as a viewer
// who reads one organisation by grant: their organisation's pages, issues
// and trend answer; every other organisation's read as not there, in the
// same words as one that does not exist; the leaderboard shows their
// sector's other places without names; no scan page or file answers.
func TestOrganisationGrantViewer(t *testing.T) {
	var audit bytes.Buffer
	h, st := newTestHandler(t, Options{Access: grantAccess(), Scans: testScans(t), Log: slog.New(slog.NewJSONHandler(&audit, nil))})
	checkGrantLeaderboard(t, h)
	checkGrantOrganisations(t, h, st)
	checkGrantScans(t, h)
	// Every refusal is in the audit trail: who, what, why.
	for _, want := range []string{
		`"path":"/organisations/cwac/Beta Board","reason":"organisation not covered`,
		`"path":"/scans/cwac/weekly-2/files/report.html","reason":"scans need get on cwacscans`,
		`"path":"/organisations/team-b/Hidden Org","reason":"may not read namespace team-b"`,
	} {
		if !strings.Contains(audit.String(), `"msg":"dashboard request refused","audit":true,"who":"alpha-web","method":"GET",`+want) {
			t.Errorf("no audit line with %s in:\n%s", want, audit.String())
		}
	}
	if strings.Contains(audit.String(), `"path":"/organisations/cwac/Alpha Agency"`) {
		t.Error("a page the viewer may read was recorded as refused")
	}
}

// grantOrg is an organisation's page.
func grantOrg(ns, o string) string { return "/organisations/" + ns + "/" + url.PathEscape(o) }

// notAlpha is what alpha-web may not see named.
var notAlpha = []string{orgBeta, orgGamma, orgDelta, orgEps, orgHidden, sectorB}

// checkGrantLeaderboard: the home page and the exports show Alpha, and
// Beta's place and score without its name.
func checkGrantLeaderboard(t *testing.T, h http.Handler) {
	t.Helper()
	org, forbidden := grantOrg, notAlpha

	res, body := get(t, h, "alpha-web", "/")
	if res.StatusCode != http.StatusOK || !strings.Contains(body, `href="`+org(testNS, orgAlpha)+`"`) ||
		!strings.Contains(body, "Another organisation") {
		t.Fatalf("home: %d %s", res.StatusCode, body)
	}
	for _, name := range forbidden {
		if strings.Contains(body, name) {
			t.Errorf("home names %q", name)
		}
	}
	if strings.Contains(body, `href="/scans"`) {
		t.Error("home links the scans to a viewer by grant")
	}
	for _, path := range []string{"/?rank=overall", "/export/leaderboard.csv", "/export/leaderboard.json"} {
		res, body := get(t, h, "alpha-web", path)
		if res.StatusCode != http.StatusOK || !strings.Contains(body, orgAlpha) {
			t.Errorf("%s: %d %s", path, res.StatusCode, body)
		}
		for _, name := range forbidden {
			if strings.Contains(body, name) {
				t.Errorf("%s names %q", path, name)
			}
		}
	}
	_, body = get(t, h, "alpha-web", "/export/leaderboard.json")
	var lb struct {
		Sectors []struct {
			Organisations []map[string]any `json:"organisations"`
		} `json:"sectors"`
		Unranked []map[string]any `json:"unranked"`
	}
	if err := json.Unmarshal([]byte(body), &lb); err != nil || len(lb.Sectors) != 1 || len(lb.Sectors[0].Organisations) != 2 || len(lb.Unranked) != 0 {
		t.Fatalf("leaderboard.json: %v %s", err, body)
	}
	other := lb.Sectors[0].Organisations[1]
	if other["place_only"] != true || other["rank"] != 2.0 || other["score"] == nil || len(other) != 5 {
		t.Errorf("another organisation's row: %v, want its rank, namespace, sector and score only", other)
	}
}

// checkGrantOrganisations: Alpha's pages answer; every other
// organisation's read as one that does not exist.
func checkGrantOrganisations(t *testing.T, h http.Handler, st *store.Store) {
	t.Helper()
	org := grantOrg

	// Their own organisation: page, trend exports, an issue.
	for _, path := range []string{org(testNS, orgAlpha), org("/export"+"/organisations/"+testNS, orgAlpha) + "/history-trend.csv",
		"/issues/" + testNS + "/" + issueOf(t, st, orgAlpha)} {
		path = strings.Replace(path, "/organisations//export/organisations/", "/export/organisations/", 1)
		res, body := get(t, h, "alpha-web", path)
		if res.StatusCode != http.StatusOK {
			t.Errorf("%s: %d %s", path, res.StatusCode, body)
		}
		if strings.Contains(body, `href="/scans/`) {
			t.Errorf("%s links a scan, which a viewer by grant may not open", path)
		}
		for _, name := range notAlpha {
			if strings.Contains(body, name) {
				t.Errorf("%s names %q", path, name)
			}
		}
	}
	// Another organisation reads as one that does not exist.
	_, absent := get(t, h, "alpha-web", org(testNS, "Nobody At All"))
	for _, o := range []string{orgBeta, orgGamma, orgEps} {
		res, body := get(t, h, "alpha-web", org(testNS, o))
		if res.StatusCode != http.StatusNotFound || strings.ReplaceAll(body, o, "X") != strings.ReplaceAll(absent, "Nobody At All", "X") {
			t.Errorf("%s: %d, not the answer for an organisation that does not exist:\n%s\n%s", o, res.StatusCode, body, absent)
		}
		for _, file := range []string{"history-trend.csv", "history-trend.json"} {
			if res, _ := get(t, h, "alpha-web", "/export/organisations/"+testNS+"/"+url.PathEscape(o)+"/"+file); res.StatusCode != http.StatusNotFound {
				t.Errorf("%s's %s: %d", o, file, res.StatusCode)
			}
		}
	}
	res, body := get(t, h, "alpha-web", "/issues/"+testNS+"/"+issueOf(t, st, orgBeta))
	if res.StatusCode != http.StatusNotFound || strings.Contains(body, orgBeta) || strings.Contains(body, "beta.example") {
		t.Errorf("another organisation's issue: %d %s", res.StatusCode, body)
	}
	// The other namespace: nothing.
	if res, _ := get(t, h, "alpha-web", org(otherNS, orgHidden)); res.StatusCode != http.StatusNotFound {
		t.Errorf("another namespace's organisation: %d", res.StatusCode)
	}
}

// checkGrantScans: scans show every organisation: refused, saying what is lacking.
func checkGrantScans(t *testing.T, h http.Handler) {
	t.Helper()
	for _, path := range []string{"/scans", "/scans?namespace=" + testNS, "/scans/" + testNS + "/weekly-2",
		"/scans/" + testNS + "/weekly-2/files/report.html", "/scans/" + testNS + "/weekly-2/files/axe_core_audit.csv"} {
		res, body := get(t, h, "alpha-web", path)
		if res.StatusCode != http.StatusForbidden || !strings.Contains(body, "CwacOrganisationGrant") || strings.Contains(body, orgBeta) {
			t.Errorf("%s: %d %s", path, res.StatusCode, body)
		}
	}
}

// A sector grant that shows other names: the sector's organisations,
// ranked and not, and no other sector; a namespace reader is unchanged.
func TestSectorGrantViewer(t *testing.T) {
	h, _ := newTestHandler(t, Options{Access: grantAccess(), Scans: testScans(t)})
	_, body := get(t, h, "gov-web", "/")
	for _, want := range []string{orgGamma, orgDelta, sectorB} {
		if !strings.Contains(body, want) {
			t.Errorf("home lacks %q", want)
		}
	}
	for _, not := range []string{orgAlpha, orgBeta, orgEps, orgHidden, "Another organisation"} {
		if strings.Contains(body, not) {
			t.Errorf("home shows %q", not)
		}
	}
	if res, _ := get(t, h, "gov-web", "/organisations/"+testNS+"/"+url.PathEscape(orgDelta)); res.StatusCode != http.StatusOK {
		t.Errorf("a sector's organisation: %d", res.StatusCode)
	}
	_, body = get(t, h, "reader", "/")
	for _, want := range []string{orgAlpha, orgBeta, orgGamma, orgDelta, orgEps, `href="/scans"`} {
		if !strings.Contains(body, want) {
			t.Errorf("a namespace reader's home lacks %q", want)
		}
	}
	if strings.Contains(body, "Another organisation") {
		t.Error("a namespace reader sees a masked row")
	}
	// A grant of an organisation the history does not hold: nothing to
	// show, and the page says why rather than that no scan was recorded.
	a := grantAccess()
	a.orgGrants[testNS] = append(a.orgGrants[testNS], cwacv1alpha1.CwacOrganisationGrant{Spec: cwacv1alpha1.CwacOrganisationGrantSpec{
		Subjects: []cwacv1alpha1.GrantSubject{{Kind: cwacv1alpha1.GrantSubjectUser, Name: "typo-web"}}, Organisations: []string{"Alpha agency"}}})
	h2, _ := newTestHandler(t, Options{Access: a})
	if res, body := get(t, h2, "typo-web", "/"); res.StatusCode != http.StatusOK || !strings.Contains(body, "None of the organisations your access covers") ||
		strings.Contains(body, orgAlpha) {
		t.Errorf("a grant of no recorded organisation: %d %s", res.StatusCode, body)
	}
}
