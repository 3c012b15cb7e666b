package dashboard

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/mcpapi"

	"github.com/a11y-dev/cwac-operator/internal/store"
)

// TestOrganisationPage: the chart and its table carry the store's trend,
// the lists are the store's (latest changes, templates, pages, oldest
// open issues), and every issue links to its page.
func TestOrganisationPage(t *testing.T) {
	h, st := newTestHandler(t, Options{})
	ctx := context.Background()
	path := OrganisationPath(testNS, orgAlpha)
	res, body := get(t, h, "reader", path)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", res.StatusCode, body)
	}
	points, err := OrganisationTrend(ctx, st, testNS, orgAlpha, "")
	if err != nil || len(points) != 3 {
		t.Fatalf("trend: %v %v", points, err)
	}
	for _, want := range []string{
		"<h1>Alpha Agency</h1>", `<dd>Health</dd>`, `role="img" aria-labelledby="score-chart-title score-chart-desc"`,
		`<title id="issues-chart-title">Issues by impact over time for Alpha Agency</title>`,
		"latest score is " + FormatScore(points[2].Score),
		"<caption id=\"trend-caption\">", `<h2 id="latest">What the latest scan changed</h2>`,
		`href="/export/organisations/cwac/Alpha%20Agency/history-trend.csv"`, "https://alpha.example",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	// What to fix first leads the page, before the charts and the latest
	// changes; issue links say which page and width, not only the rule.
	fix, trend, latest := strings.Index(body, `<h2 id="fix-first">`), strings.Index(body, `<h2 id="trend">`), strings.Index(body, `<h2 id="latest">`)
	if fix < 0 || fix > trend || trend > latest {
		t.Errorf("sections at %d (what to fix first), %d (over time), %d (latest changes): want them in that order", fix, trend, latest)
	}
	if !strings.Contains(body, `<span class="visually-hidden"> on https://alpha.example`) {
		t.Error("an issue link reads only as its rule")
	}
	if strings.Contains(body, `role="region"`) || !strings.Contains(body, `class="table-wrap" role="group"`) {
		t.Error("a table's scroll container is a landmark inside the section's")
	}
	// The table's rows: each scan's score and issues, in order.
	table := body[strings.Index(body, `<caption id="trend-caption">`):]
	table = table[:strings.Index(table, "</table>")]
	if n := strings.Count(table, "<tr>") - 1; n != len(points) {
		t.Errorf("trend table has %d rows, want %d", n, len(points))
	}
	last := 0
	for _, p := range points {
		cell := `<td class="num">` + FormatScore(p.Score) + `</td><td class="num">` + i64(p.Issues) + `</td>`
		i := strings.Index(table[last:], cell)
		if i < 0 {
			t.Fatalf("trend table lacks %s's %q (or out of order)", p.Scan, cell)
		}
		last += i + len(cell)
	}
	// The latest changes: the two image-alt issues fixed in week 2, linked.
	ch, err := st.OrganisationLatestChanges(ctx, testNS, orgAlpha, 25)
	if err != nil || len(ch.Fixed) != 2 || len(ch.New) != 0 {
		t.Fatalf("latest changes: %+v %v", ch, err)
	}
	for _, is := range ch.Fixed {
		if !strings.Contains(body, `href="/issues/cwac/`+is.Fingerprint+`"`) {
			t.Errorf("fixed issue %s is not linked", is.Fingerprint)
		}
	}
	if !strings.Contains(body, "In cwac/weekly-2: 0 new, 2 fixed") {
		t.Error("the latest scan's counts are not the trend point's")
	}
	open, err := st.IssueHistory(ctx, store.IssueFilter{Namespaces: []string{testNS}, Organisation: orgAlpha, State: store.StateOpen, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(body, strings.Join([]string{"<p>", itoa(len(open.Issues)), " of ", i64(open.Total), " open issues"}, "")) {
		t.Errorf("oldest open issues: want %d of %d", len(open.Issues), open.Total)
	}
	// Epsilon's latest scan was partial: said with its reason.
	_, body = get(t, h, "reader", OrganisationPath(testNS, orgEps))
	if !strings.Contains(body, "<dt>Scanned</dt><dd>partial: https://epsilon.example/ partial: 1 page answered 401 or 403 (refused) (so not ranked") {
		t.Error("the organisation page does not say its latest scan was partial")
	}
	// A schedule filter that matches nothing says so; the export follows it.
	_, body = get(t, h, "reader", path+"?schedule=monthly")
	if !strings.Contains(body, "No scan of this schedule has figures") || !strings.Contains(body, "history-trend.csv?schedule=monthly") {
		t.Error("schedule filter")
	}
}

// TestOrganisationNotFound: an unknown organisation, a namespace the
// viewer may not read and bad parameters each say what is wrong.
func TestOrganisationNotFound(t *testing.T) {
	h, _ := newTestHandler(t, Options{})
	for _, tc := range []struct {
		path string
		code int
		want string
	}{
		{OrganisationPath(testNS, "Nobody Ltd"), http.StatusNotFound, "No organisation &#34;Nobody Ltd&#34; in the issue history of namespace cwac."},
		{OrganisationPath(otherNS, orgHidden), http.StatusNotFound,
			"No organisation &#34;Hidden Org&#34; in the issue history of namespace team-b that you may read."},
		{OrganisationPath("Bad_NS", orgAlpha), http.StatusBadRequest, "namespace &#34;Bad_NS&#34; is not a Kubernetes name"},
		{OrganisationPath(testNS, orgAlpha) + "?schedule=Week%20ly", http.StatusBadRequest, "schedule &#34;Week ly&#34; is not a Kubernetes name"},
		{OrganisationPath(testNS, orgAlpha) + "?limit=5", http.StatusBadRequest, "unknown query parameter &#34;limit&#34;: this page takes schedule"},
		{OrganisationPath(testNS, orgAlpha) + "?schedule=a&schedule=b", http.StatusBadRequest, "is given 2 times"},
		{OrganisationPath(testNS, strings.Repeat("x", 1001)), http.StatusBadRequest, "is not a valid name (1 to 1000 bytes of text)"},
		// A name as long as the history stores one is looked up, not refused.
		{OrganisationPath(testNS, strings.Repeat("x", 1000)), http.StatusNotFound, "No organisation &#34;xxxxxxxx"},
		{"/export/organisations/cwac/Nobody/history-trend.csv", http.StatusNotFound, "No organisation &#34;Nobody&#34;"},
		{"/export/organisations/cwac/Alpha%20Agency/trend.xls", http.StatusBadRequest, "is not history-trend.csv, history-trend.json, issues.csv or issues.json"},
		{"/issues/cwac/0123456789abcdef0123456789abcdef", http.StatusNotFound, "No issue 0123456789abcdef0123456789abcdef in the issue history of namespace cwac"},
		{"/issues/cwac/xyz", http.StatusBadRequest, "issue id &#34;xyz&#34; is not an issue&#39;s id: want 32 lower-case hexadecimal digits"},
	} {
		res, body := get(t, h, "reader", tc.path)
		if res.StatusCode != tc.code || !strings.Contains(body, tc.want) {
			t.Errorf("%s: %d, want %d with %q:\n%s", tc.path, res.StatusCode, tc.code, tc.want, body)
		}
	}
}

// TestTrendExports: the CSV and JSON trend exports are OrganisationTrend's points.
func TestTrendExports(t *testing.T) {
	h, st := newTestHandler(t, Options{})
	points, err := OrganisationTrend(context.Background(), st, testNS, orgBeta, "weekly")
	if err != nil {
		t.Fatal(err)
	}
	base := "/export/organisations/cwac/Beta%20Board/"
	res, body := get(t, h, "reader", base+"history-trend.json?schedule=weekly")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("json: %d %s", res.StatusCode, body)
	}
	var got trendExport
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	// The points as cwac_organisation_trend answers them: one wire shape.
	api := make([]mcpapi.TrendPoint, len(points))
	for i, p := range points {
		api[i] = mcpapi.TrendPointOf(p)
	}
	want, _ := json.Marshal(trendExport{Namespace: testNS, Organisation: orgBeta, Schedule: "weekly", Points: api})
	if !strings.Contains(body, `"engine"`) || strings.Contains(body, "cwac_image_digest") || strings.Contains(body, `"Scan"`) {
		t.Errorf("the export's engine is not the tools' shape: %s", body)
	}
	again, _ := json.Marshal(got)
	if string(want) != string(again) {
		t.Errorf("json export:\n%s\nwant\n%s", again, want)
	}
	_, body = get(t, h, "reader", base+"history-trend.csv")
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil || len(rows) != 1+len(points) {
		t.Fatalf("csv: %d rows %v", len(rows), err)
	}
	for i, p := range points {
		row := rows[i+1]
		if row[0] != p.Scan || row[4] != i64(p.Issues) || row[6] != i64(p.ByImpact["critical"]) || row[12] != optFloat(p.Score) || row[18] != i64(p.Open) {
			t.Errorf("csv row %d %q, point %+v", i, row, p)
		}
	}
}

// TestIssuePage: an issue's life, page, element, rule, criteria and help.
func TestIssuePage(t *testing.T) {
	h, st := newTestHandler(t, Options{})
	ctx := context.Background()
	ch, err := st.OrganisationLatestChanges(ctx, testNS, orgAlpha, 25)
	if err != nil || len(ch.Fixed) == 0 {
		t.Fatalf("latest changes: %+v %v", ch, err)
	}
	is := ch.Fixed[0]
	res, body := get(t, h, "reader", "/issues/cwac/"+is.Fingerprint)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", res.StatusCode, body)
	}
	for _, want := range []string{
		"<h1>Issue: image-alt on " + is.Page + "</h1>", "fixed: fixed in <a href=\"/scans/cwac/weekly-2\">",
		`<a href="https://www.w3.org/WAI/WCAG22/Understanding/non-text-content.html">1.1.1 Non-text Content</a> (level A)`,
		`<a href="` + is.HelpURL + `">the rule's help page</a>`, "present in 2 of 3",
		"<td>Yes</td>", "<td>No: fixed in this scan</td>", "&lt;img src=",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the issue page lacks %q", want)
		}
	}
	// Another namespace's issue is not found for a reader of one.
	other, err := st.IssueHistory(ctx, store.IssueFilter{Namespaces: []string{otherNS}, Limit: 1})
	if err != nil || len(other.Issues) != 1 {
		t.Fatal(err)
	}
	if res, _ := get(t, h, "reader", "/issues/cwac/"+other.Issues[0].Fingerprint); res.StatusCode != http.StatusNotFound {
		t.Errorf("another namespace's issue through this namespace: %d", res.StatusCode)
	}
	if res, _ := get(t, h, "reader", "/issues/team-b/"+other.Issues[0].Fingerprint); res.StatusCode != http.StatusNotFound {
		t.Errorf("another namespace's issue: %d", res.StatusCode)
	}
	if res, _ := get(t, h, "both", "/issues/team-b/"+other.Issues[0].Fingerprint); res.StatusCode != http.StatusOK {
		t.Errorf("a reader of both namespaces: %d", res.StatusCode)
	}
}

// TestXTicks: every date up to six, else six spread evenly, the first and
// last always.
func TestXTicks(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want []int
	}{{0, []int{}}, {1, []int{0}}, {6, []int{0, 1, 2, 3, 4, 5}}, {7, []int{0, 1, 2, 4, 5, 6}}, {52, []int{0, 10, 20, 31, 41, 51}}} {
		if got := xTicks(tc.n); !slices.Equal(got, tc.want) {
			t.Errorf("xTicks(%d) = %v, want %v", tc.n, got, tc.want)
		}
	}
}

// TestIssueScansSayWhyAbsent: a scan without the issue says whether it was
// fixed there, or whether that scan did not visit its page (so nothing is
// known of it).
func TestIssueScansSayWhyAbsent(t *testing.T) {
	h, _ := newTestHandler(t, Options{})
	at := time.Date(2026, 10, 5, 3, 0, 0, 0, time.UTC)
	d := store.IssueDetail{Issue: store.Issue{Fingerprint: "fp", Rule: "image-alt", Page: "https://a.example/", State: "fixed",
		FixedInScan: "cwac/w2", FixedReason: "page not scanned", FirstSeenAt: at, LastSeenAt: at},
		Scans: []store.IssueScan{{Scan: "cwac/w1", FinishedAt: at, Present: true}, {Scan: "cwac/w2", FinishedAt: at.Add(168 * time.Hour)},
			{Scan: "cwac/w3", FinishedAt: at.Add(336 * time.Hour)},
			{Scan: "cwac/w4", FinishedAt: at.Add(504 * time.Hour), Page: store.PageNotVisited},
			{Scan: "cwac/w5", FinishedAt: at.Add(672 * time.Hour), Page: store.PageVisited}}}
	var buf strings.Builder
	data := issuePage{Namespace: testNS, Issue: d, Present: 1}
	if err := h.pages["issue"].ExecuteTemplate(&buf, "layout", page{Title: "t", Viewer: &viewer{}, Data: data}); err != nil {
		t.Fatal(err)
	}
	body := buf.String()
	for _, want := range []string{"<td>Yes</td>", "<td>Not known: this scan did not visit its page</td>", "<td>No</td>"} {
		if !strings.Contains(body, want) {
			t.Errorf("the issue's scans lack %q", want)
		}
	}
	// w2 (fixed, page not scanned) and w4 (a scan that recorded it did not
	// visit the page) say so; w3 (not known) and w5 (visited) say No.
	if n := strings.Count(body, "<td>Not known: this scan did not visit its page</td>"); n != 2 {
		t.Errorf("%d scans said they did not visit the page, want 2 (w2, w4)", n)
	}
	if n := strings.Count(body, "<td>No</td>"); n != 2 {
		t.Errorf("%d scans said No, want 2 (w3, w5)", n)
	}
	if strings.Contains(body, "fixed in this scan") {
		t.Error("a scan that did not visit the page said the issue was fixed there")
	}
}
