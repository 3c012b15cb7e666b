package dashboard

import (
	"cmp"
	"context"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/store"
)

// TestLeaderboardFigures: organisations are ranked within their sectors
// by the store's scores, the change is against the previous scan, and an
// organisation whose latest scan saw no page is apart, not ranked.
func TestLeaderboardFigures(t *testing.T) {
	_, st := newTestHandler(t, Options{})
	ctx := context.Background()
	figures, err := Leaderboard(ctx, st, []string{testNS})
	if err != nil {
		t.Fatal(err)
	}
	orgs, err := st.Organisations(ctx, []string{testNS})
	if err != nil {
		t.Fatal(err)
	}
	latest := map[string]*store.TrendPoint{}
	for _, o := range orgs {
		latest[o.Name] = o.Latest
	}
	if len(figures.Sectors) != 2 || figures.Sectors[0].Name != sectorA || figures.Sectors[1].Name != sectorB {
		t.Fatalf("sectors: %+v", figures.Sectors)
	}
	health := figures.Sectors[0].Rows
	// Alpha fixed two rules by week 2, Beta one: Alpha first.
	if len(health) != 2 || health[0].Organisation != orgAlpha || health[0].Rank != 1 || health[1].Organisation != orgBeta || health[1].Rank != 2 {
		t.Fatalf("health ranking: %+v", health)
	}
	for _, s := range figures.Sectors {
		for _, row := range s.Rows {
			p := latest[row.Organisation]
			if row.Score == nil || *row.Score != *p.Score || row.Issues != p.Issues || row.Critical != p.ByImpact["critical"] ||
				row.Serious != p.ByImpact["serious"] || row.Pages != p.Pages || row.LatestScan != testNS+"/weekly-2" {
				t.Errorf("%s: row %+v differs from the store's latest point %+v", row.Organisation, row, p)
			}
			if len(row.Trend) != 3 {
				t.Errorf("%s: %d trend points, want 3", row.Organisation, len(row.Trend))
			}
		}
	}
	checkChanges(t, st, figures)
}

// checkChanges: Alpha's change since its previous scan is the trend's, the
// unranked are apart, and the other sector ranks its own.
func checkChanges(t *testing.T, st *store.Store, figures LeaderboardFigures) {
	t.Helper()
	ctx := context.Background()
	health := figures.Sectors[0].Rows
	if *health[0].Score <= *health[1].Score {
		t.Errorf("scores out of order: %v, %v", *health[0].Score, *health[1].Score)
	}
	alpha := health[0]
	trend, err := st.OrganisationTrend(ctx, []string{testNS}, orgAlpha, "")
	if err != nil {
		t.Fatal(err)
	}
	wantChange := *trend[2].Score - *trend[1].Score
	if alpha.ScoreChange == nil || *alpha.ScoreChange <= 0 || distance(*alpha.ScoreChange, wantChange) > 0.051 {
		t.Errorf("alpha's score change %v, want %v", alpha.ScoreChange, wantChange)
	}
	if alpha.IssuesChange == nil || *alpha.IssuesChange != trend[2].Issues-trend[1].Issues || *alpha.IssuesChange >= 0 {
		t.Errorf("alpha's issue change %v, want %d", alpha.IssuesChange, trend[2].Issues-trend[1].Issues)
	}
	// Delta's scan saw no page; Epsilon's had the best figures of all but
	// a page refused the scanner: both apart, neither ranked as clean.
	un := figures.Unranked
	if len(un) != 2 || un[0].Organisation != orgDelta || un[1].Organisation != orgEps || un[0].Rank != 0 || un[1].Rank != 0 ||
		!strings.HasPrefix(un[0].Unranked, "its latest scan did not scan it completely (unreachable): ") ||
		!strings.HasPrefix(un[1].Unranked, "its latest scan did not scan it completely (partial): ") || !strings.Contains(un[1].Unranked, "refused") {
		t.Errorf("unranked: %+v", un)
	}
	if un[1].Score == nil || *un[1].Score <= *health[0].Score {
		t.Errorf("Epsilon's score %v does not beat the best ranked one's %v: the test proves nothing", un[1].Score, *health[0].Score)
	}
	if gamma := figures.Sectors[1].Rows; len(gamma) != 1 || gamma[0].Organisation != orgGamma || gamma[0].Rank != 1 {
		t.Errorf("local government: %+v", gamma)
	}
}

func distance(a, b float64) float64 {
	if a > b {
		return a - b
	}
	return b - a
}

// TestRankTies: equal scores share a rank and the next one skips.
func TestRankTies(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	rows := []LeaderboardRow{{Organisation: "c", Score: f(50)}, {Organisation: "b", Score: f(90)},
		{Organisation: "a", Score: f(90)}, {Organisation: "d", Score: f(10)}}
	rank(rows)
	got := make([]string, 0, len(rows))
	for _, r := range rows {
		got = append(got, r.Organisation+":"+itoa(r.Rank))
	}
	if strings.Join(got, " ") != "a:1 b:1 c:3 d:4" {
		t.Errorf("ranks: %v", got)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestOrganisationsPage renders the leaderboard for a reader of one
// namespace: the figures of Leaderboard, in rank order, with sparklines
// and their text, and the unranked apart.
func TestOrganisationsPage(t *testing.T) {
	h, st := newTestHandler(t, Options{})
	res, body := get(t, h, "reader", "/")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", res.StatusCode, body)
	}
	if csp := res.Header.Get("Content-Security-Policy"); csp != ContentSecurityPolicy || !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("Content-Security-Policy %q", csp)
	}
	if ct := res.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	figures, err := Leaderboard(context.Background(), st, []string{testNS})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`<h1>Organisations</h1>`, `<a class="skip" href="#main">`, `<main id="main"`, `<h2 id="sector-0">Health</h2>`,
		`<h2 id="sector-1">Local government</h2>`, `<h2 id="unranked">Not ranked</h2>`, orgDelta, orgEps, "did not scan it completely (partial)",
		`role="img"`, "Score over the last 3 scans, oldest first: ",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Count(body, "<h1") != 1 {
		t.Error("not exactly one h1")
	}
	if strings.Contains(body, orgHidden) {
		t.Error("a reader of one namespace sees another namespace's organisation")
	}
	if strings.Contains(body, "<script") || strings.Contains(body, " style=") {
		t.Error("the page has a script or an inline style, which its Content-Security-Policy forbids")
	}
	// Every ranked row's score and change, in rank order.
	last := 0
	for _, s := range figures.Sectors {
		for _, row := range s.Rows {
			link := `<a href="` + OrganisationPath(row.Namespace, row.Organisation) + `">` + row.Organisation + `</a>`
			i := strings.Index(body, link)
			if i < last {
				t.Fatalf("%s missing or out of order", row.Organisation)
			}
			last = i
			rest := body[i:]
			for _, want := range []string{FormatScore(row.Score), "Score " + formatChange(row.ScoreChange) + "; " + formatIntChange(row.IssuesChange)} {
				if !strings.Contains(rest[:strings.Index(rest, "</tr>")], want) {
					t.Errorf("%s's row lacks %q", row.Organisation, want)
				}
			}
		}
	}
	// A reader of both namespaces sees both, each marked with its namespace.
	_, body = get(t, h, "both", "/")
	if !strings.Contains(body, orgHidden) || !strings.Contains(body, `<span class="ns">(team-b)</span>`) {
		t.Error("a reader of both namespaces does not see the other's organisation with its namespace")
	}
}

// TestOrganisationsRefusals: credentials, permissions, parameters and a
// store that is down each get their own page and status.
func TestOrganisationsRefusals(t *testing.T) {
	h, st := newTestHandler(t, Options{})
	for _, tc := range []struct {
		user, path string
		code       int
		want       string
	}{
		{"", "/", http.StatusUnauthorized, "Kubernetes bearer token"},
		{"nobody", "/", http.StatusForbidden, "nobody may not get CwacScans in cwac, team-b"},
		{"reader", "/?sector=x", http.StatusBadRequest, `unknown query parameter &#34;sector&#34;: this page takes page, per_page`},
		{"reader", "/nowhere", http.StatusNotFound, "There is no dashboard page at /nowhere."},
		{"reader", "/export/leaderboard.xml", http.StatusBadRequest, `export &#34;leaderboard.xml&#34; is not leaderboard.csv or leaderboard.json`},
	} {
		res, body := get(t, h, tc.user, tc.path)
		if res.StatusCode != tc.code || !strings.Contains(body, tc.want) {
			t.Errorf("%s as %q: %d, want %d with %q:\n%s", tc.path, tc.user, res.StatusCode, tc.code, tc.want, body)
		}
		if res.Header.Get("Content-Security-Policy") == "" {
			t.Errorf("%s: no Content-Security-Policy on an error page", tc.path)
		}
	}
	if res, _ := get(t, h, "", "/"); res.Header.Get("WWW-Authenticate") == "" {
		t.Error("401 without WWW-Authenticate")
	}
	down, err := New(Options{Access: testAccess{down: true}, Namespaces: []string{testNS}})
	if err != nil {
		t.Fatal(err)
	}
	if res, body := get(t, down, "reader", "/"); res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "could not be checked") {
		t.Errorf("access down: %d %s", res.StatusCode, body)
	}
	noStore, err := New(Options{Access: defaultAccess, Namespaces: []string{testNS}})
	if err != nil {
		t.Fatal(err)
	}
	if res, body := get(t, noStore, "reader", "/"); res.StatusCode != http.StatusServiceUnavailable ||
		!strings.Contains(body, "The issue history is not configured on this server (it was started without --store).") {
		t.Errorf("no store: %d %s", res.StatusCode, body)
	}
	// Configured, but its database has not answered since the start.
	notOpen, err := store.OpenInBackground(t.Context(), "sqlite://"+t.TempDir()+"/missing/h.db",
		store.Backoff{First: time.Hour, Max: time.Hour}, func(error, time.Duration) {}, func(*store.Store) {})
	if err != nil {
		t.Fatal(err)
	}
	waiting, err := New(Options{Access: defaultAccess, Namespaces: []string{testNS}, Store: notOpen})
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/", "/export/leaderboard.csv", "/organisations/" + testNS + "/Org"} {
		res, body := get(t, waiting, "reader", path)
		if res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "has not answered since this server started") {
			t.Errorf("%s with the database not answered yet: %d %s", path, res.StatusCode, body)
		}
	}
	_ = st.Close()
	res, body := get(t, h, "reader", "/")
	if res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "did not answer") || strings.Contains(body, "sql:") {
		t.Errorf("store down: %d %s", res.StatusCode, body)
	}
	if res, _ := get(t, h, "reader", "/export/leaderboard.csv"); res.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("export with the store down: %d", res.StatusCode)
	}
}

// TestLeaderboardExports: the CSV and JSON exports carry Leaderboard's
// figures, row for row.
func TestLeaderboardExports(t *testing.T) {
	h, st := newTestHandler(t, Options{})
	figures, err := Leaderboard(context.Background(), st, []string{testNS})
	if err != nil {
		t.Fatal(err)
	}
	res, body := get(t, h, "reader", "/export/leaderboard.json")
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("json: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	var got LeaderboardFigures
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(figures)
	again, _ := json.Marshal(got)
	if string(want) != string(again) {
		t.Errorf("json export differs from Leaderboard:\n%s\n%s", again, want)
	}
	// The trend's wire shape: the names scripts key on.
	var shape struct {
		Sectors []struct {
			Organisations []struct {
				Trend []map[string]any `json:"trend"`
			} `json:"organisations"`
		} `json:"sectors"`
	}
	if err := json.Unmarshal([]byte(body), &shape); err != nil || len(shape.Sectors) == 0 || len(shape.Sectors[0].Organisations) == 0 ||
		len(shape.Sectors[0].Organisations[0].Trend) == 0 {
		t.Fatalf("json export without a trend point: %v", err)
	}
	point := shape.Sectors[0].Organisations[0].Trend[0]
	keys := make([]string, 0, len(point))
	for k := range point {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if got := strings.Join(keys, ","); got != "completeness,finished_at,issues,scan,score" && got != "finished_at,issues,scan,score" {
		t.Errorf("a trend point's keys: %s", got)
	}
	res, body = get(t, h, "reader", "/export/leaderboard.csv")
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/csv") {
		t.Fatalf("csv: %d", res.StatusCode)
	}
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1+2+1+2 || rows[0][0] != "sector" || rows[1][3] != orgAlpha || rows[1][1] != "1" || rows[4][3] != orgDelta || rows[4][1] != "" ||
		rows[5][3] != orgEps || !strings.Contains(rows[5][17], "(partial)") {
		t.Fatalf("csv rows: %q", rows)
	}
	alpha := figures.Sectors[0].Rows[0]
	if rows[1][4] != optFloat(alpha.Score) || rows[1][5] != optFloat(alpha.ScoreChange) || rows[1][6] != i64(alpha.Issues) ||
		rows[1][7] != optInt(alpha.IssuesChange) || !strings.HasPrefix(rows[1][7], "-") {
		t.Errorf("alpha's csv row %q, figures %+v", rows[1], alpha)
	}
}

// TestUnrankedReasons: a known verdict other than complete keeps an
// organisation out of the ranking whatever its score; with no verdict
// (scans recorded before issue 23), no page scanned does.
func TestUnrankedReasons(t *testing.T) {
	score := 99.0
	for _, tc := range []struct {
		p    store.TrendPoint
		want string
	}{
		{store.TrendPoint{Pages: 4, Score: &score, Completeness: "complete"}, ""},
		{store.TrendPoint{Pages: 4, Score: &score}, ""},
		{store.TrendPoint{Pages: 0}, unrankedNoPages},
		{store.TrendPoint{Pages: 4, Score: &score, Completeness: "blocked", CompletenessReason: "answered 403"},
			"its latest scan did not scan it completely (blocked): answered 403"},
		{store.TrendPoint{Pages: 4, Score: &score, Completeness: "partial"}, "its latest scan did not scan it completely (partial)"},
	} {
		p := tc.p
		row := leaderboardRow(store.OrganisationSummary{Name: "O", Latest: &p}, nil)
		if row.Unranked != tc.want || row.Completeness != p.Completeness {
			t.Errorf("%+v: unranked %q, want %q", p, row.Unranked, tc.want)
		}
	}
}

// TestOrganisationsRankedOverall: ?rank=overall ranks every ranked
// organisation in one list, best score first across sectors, each with its
// sector; the sectors' own ranking stays the default, and the page says
// which one is shown. Another value is refused, naming the choices.
func TestOrganisationsRankedOverall(t *testing.T) {
	h, st := newTestHandler(t, Options{})
	figures, err := Leaderboard(context.Background(), st, []string{testNS})
	if err != nil {
		t.Fatal(err)
	}
	var all []LeaderboardRow
	for _, s := range figures.Sectors {
		all = append(all, s.Rows...)
	}
	if len(figures.Sectors) < 2 || len(all) < 3 {
		t.Fatalf("the fixture has %d sectors and %d ranked organisations: too few to tell the rankings apart", len(figures.Sectors), len(all))
	}
	slices.SortStableFunc(all, func(a, b LeaderboardRow) int { return cmp.Compare(*b.Score, *a.Score) })
	res, body := get(t, h, "reader", "/?rank=overall")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", res.StatusCode, body)
	}
	if !strings.Contains(body, `<h2 id="sector-0">All sectors</h2>`) || strings.Contains(body, `<h2 id="sector-1">`) ||
		!strings.Contains(body, `<a href="/?rank=overall" aria-current="true">across all sectors</a>`) || !strings.Contains(body, `<th scope="col">Sector</th>`) {
		t.Error("the overall ranking is not one list that says so")
	}
	last := 0
	for i, row := range all {
		link := `<a href="` + OrganisationPath(row.Namespace, row.Organisation) + `">` + row.Organisation + `</a>`
		at := strings.Index(body, link)
		if at < last {
			t.Fatalf("%s missing or out of the overall order", row.Organisation)
		}
		last = at
		if i == 0 && !strings.Contains(body[:at], `<td class="num">1</td>`) {
			t.Errorf("the best score overall, %s, is not ranked 1", row.Organisation)
		}
	}
	if _, body := get(t, h, "reader", "/"); !strings.Contains(body, `<a href="/" aria-current="true">within each sector</a>`) {
		t.Error("the sectors' ranking is not the default")
	}
	if res, body := get(t, h, "reader", "/?rank=best"); res.StatusCode != http.StatusBadRequest || !strings.Contains(body, "rank must be sector or overall") {
		t.Errorf("?rank=best: %d", res.StatusCode)
	}
	// The cached figures keep their sectors' ranks.
	again, _ := Leaderboard(context.Background(), st, []string{testNS})
	for i, s := range again.Sectors {
		for j, row := range s.Rows {
			if row.Rank != figures.Sectors[i].Rows[j].Rank {
				t.Errorf("%s's rank in its sector changed to %d", row.Organisation, row.Rank)
			}
		}
	}
}
