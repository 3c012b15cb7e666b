package report

import (
	"bytes"
	"encoding/csv"
	"html/template"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/results"
)

// The "What was scanned" section of a scan in CWAC's format with refused,
// challenged, unreachable and partial sites: a heading, a table with
// column and row headers, the incomplete organisations first, worst first,
// each with its reason, and the complete ones after.
func TestHTMLWhatWasScanned(t *testing.T) {
	got, err := HTML(os.DirFS("../results/testdata/completeness/mixed"), Meta{Title: "mixed", GeneratedAt: time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	page := string(got)
	start := strings.Index(page, `<section id="scanned" aria-labelledby="scanned-h">`)
	if start < 0 {
		t.Fatal("no What was scanned section")
	}
	section := page[start : start+strings.Index(page[start:], "</section>")]
	for _, want := range []string{
		`<h2 id="scanned-h">What was scanned</h2>`,
		"<strong>8 organisations were not scanned completely</strong>\n(of 10)",
		"Each site was scanned up to 50 pages (max_links_per_domain).",
		`<th scope="col">Organisation</th><th scope="col">Completeness</th>`,
		`<tr><th scope="row">Firewall Org</th><td><span class="badge verdict-blocked">blocked</span></td><td class="n">0 of 1</td>`,
		"<li>https://waf.example.govt.nz/ blocked: the base URL answered 403 (refused)</li>",
		"<li>https://half-b.example.govt.nz/ unreachable: the base URL answered 503 (server error)</li>",
	} {
		if !strings.Contains(section, want) {
			t.Errorf("the section lacks %q", want)
		}
	}
	order := []string{">Bot Org<", ">Firewall Org<", ">Down Org<", ">Half Org<", ">Big Org<", ">CWAC Test Org<"}
	last := -1
	for _, name := range order {
		i := strings.Index(section, name)
		if i < last {
			t.Errorf("%s out of order (worst first, then by name)", name)
		}
		last = i
	}
	if !strings.Contains(page, `<li><a href="#scanned">What was scanned</a></li>`) {
		t.Error("no contents entry")
	}
}

// mixedReport is the report and leaderboard.csv of the mixed fixture
// (../results/testdata/completeness/README.txt), with its leaderboard.csv
// as records.
func mixedReport(t *testing.T) (html string, board [][]string) {
	t.Helper()
	files := map[string][]byte{}
	if _, err := Generate(os.DirFS(mixedScan), Meta{Title: "mixed"}, func(name string, data []byte) error {
		files[name] = data
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	board, err := csv.NewReader(bytes.NewReader(files[LeaderboardFile])).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return string(files[HTMLFile]), board
}

const mixedScan = "../results/testdata/completeness/mixed"

// boardRow is the leaderboard.csv record of an organisation, by column name.
func boardRow(t *testing.T, board [][]string, organisation string) map[string]string {
	t.Helper()
	for _, r := range board[1:] {
		if r[1] == organisation {
			row := map[string]string{}
			for i, name := range board[0] {
				row[name] = r[i]
			}
			return row
		}
	}
	t.Fatalf("leaderboard.csv has no row for %s", organisation)
	return nil
}

// Only organisations scanned completely are ranked; the others follow,
// unranked, with their verdicts, whatever their scores: a firewall's
// challenge pages never rank above an organisation scanned cleanly.
func TestLeaderboardRanksOnlyComplete(t *testing.T) {
	html, board := mixedReport(t)
	if len(board) != 10 || board[0][12] != "completeness" {
		t.Fatalf("leaderboard.csv: %q", board)
	}
	ranked := 0
	for i, r := range board[1:] {
		complete := r[12] == "complete"
		if complete != (i < 2) {
			t.Errorf("row %d out of place: %q", i+1, r)
		}
		if complete {
			ranked++
			if r[0] != strconv.Itoa(ranked) {
				t.Errorf("a complete organisation's rank: %q", r)
			}
		} else if r[0] != "" {
			t.Errorf("an incomplete organisation is ranked: %q", r)
		}
	}
	if !strings.Contains(html, `<td class="n">Not ranked</td><td>Challenge Org</td>`) {
		t.Error("the HTML leaderboard ranks Challenge Org")
	}
}

// A blocked or unreachable organisation is never shown as clean: its
// score (and the weighted issues per page it comes from) is left out of
// leaderboard.csv and reads "Not scored" in the report, while a partial
// one keeps its score, unranked. Challenge Org's two pages are
// Cloudflare's challenge, with no issue: its score would be 100.
func TestLeaderboardHidesBlockedScores(t *testing.T) {
	html, board := mixedReport(t)
	for org, want := range map[string][2]string{
		"Challenge Org": {"", ""}, "Down Org": {"", ""}, "Firewall Org": {"", ""},
		"Half Org": {"0.0", "100.0"}, "Big Org": {"0.0", "100.0"},
	} {
		row := boardRow(t, board, org)
		if got := [2]string{row["weighted_issues_per_page"], row["score"]}; got != want {
			t.Errorf("%s (%s): weighted issues per page and score %q, want %q", org, row["completeness"], got, want)
		}
	}
	for org, want := range map[string]string{"Challenge Org": "Not scored", "Half Org": "100.0", "Big Org": "100.0"} {
		row := leaderboardRowHTML(t, html, org)
		if !strings.Contains(row, `<td class="n">`+want+`</td>`) {
			t.Errorf("%s's score in the report is not %q: %s", org, want, row)
		}
	}
}

// leaderboardRowHTML is the report's leaderboard row of an organisation.
func leaderboardRowHTML(t *testing.T, html, organisation string) string {
	t.Helper()
	start := strings.Index(html, `<section id="leaderboard"`)
	if start < 0 {
		t.Fatal("no leaderboard section")
	}
	section := html[start:]
	i := strings.Index(section, "<td>"+organisation+"</td>")
	if i < 0 {
		t.Fatalf("the leaderboard has no row for %s", organisation)
	}
	begin := strings.LastIndex(section[:i], "<tr>")
	return section[begin : i+strings.Index(section[i:], "</tr>")]
}

// Each unranked organisation says why, in the words of the scan's
// completeness (results' OrganisationCompleteness.Reason): in the
// completeness_reason column of leaderboard.csv (its place fixed, as
// every column's is: TestLeaderboardHeader), and in its row of the report.
func TestLeaderboardSaysWhyUnranked(t *testing.T) {
	html, board := mixedReport(t)
	reasonAt := slices.Index(board[0], "completeness_reason")
	if reasonAt < 0 {
		t.Fatalf("no completeness_reason column in %q", board[0])
	}
	summary, _, err := build(os.DirFS(mixedScan), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	reasons := map[string]string{}
	for _, o := range summary.Completeness.Organisations {
		reasons[o.Organisation] = o.Reason()
	}
	if want := "https://challenge.example.govt.nz/ blocked: every page loaded was a challenge page (2, Cloudflare challenge)"; reasons["Challenge Org"] != want {
		t.Fatalf("the fixture's reason for Challenge Org is %q, want %q", reasons["Challenge Org"], want)
	}
	for _, r := range board[1:] {
		org, rank, got := r[1], r[0], r[reasonAt]
		if want := reasons[org]; got != want || (rank == "") != (want != "") {
			t.Errorf("%s (rank %q): completeness_reason %q, want %q", org, rank, got, want)
		}
		if rank == "" && !strings.Contains(leaderboardRowHTML(t, html, org), `<span class="why">`+template.HTMLEscapeString(reasons[org])+`</span>`) {
			t.Errorf("the report's row of %s does not say why it is unranked (%q)", org, reasons[org])
		}
	}
}

func TestRankCompleteUnknown(t *testing.T) {
	rows := []OrgScore{{Rank: 1, Organisation: "A"}, {Rank: 2, Organisation: "B"}}
	c := &results.Completeness{OrganisationsByVerdict: map[results.Verdict]int{results.VerdictBlocked: 2},
		Organisations: []results.OrganisationCompleteness{{Organisation: "B", Verdict: results.VerdictBlocked}}}
	got := rankComplete(rows, c)
	if got[0].Rank != 0 || got[0].Completeness != "unknown" || got[1].Rank != 0 || got[1].Completeness != "blocked" {
		t.Errorf("%+v", got)
	}
	if got := rankComplete(rows, nil); got[0].Rank != 1 || got[0].Completeness != "" {
		t.Errorf("without completeness: %+v", got)
	}
}
