package report

import (
	"os"
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

// Only organisations scanned completely are ranked; the others follow,
// unranked, with their verdicts, whatever their scores: a firewall's
// challenge pages never rank above an organisation scanned cleanly.
func TestLeaderboardRanksOnlyComplete(t *testing.T) {
	files := map[string][]byte{}
	if _, err := Generate(os.DirFS("../results/testdata/completeness/mixed"), Meta{Title: "mixed"}, func(name string, data []byte) error {
		files[name] = data
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(files[LeaderboardFile])), "\n")
	if len(lines) != 10 || !strings.HasSuffix(lines[0], `"score","completeness"`) {
		t.Fatalf("leaderboard.csv: %q", lines)
	}
	ranked := 0
	for i, l := range lines[1:] {
		complete := strings.HasSuffix(l, `,"complete"`)
		if complete != (i < 2) {
			t.Errorf("row %d out of place: %s", i+1, l)
		}
		if complete {
			ranked++
			if !strings.HasPrefix(l, `"`+strconv.Itoa(ranked)+`",`) {
				t.Errorf("a complete organisation's rank: %s", l)
			}
		} else if !strings.HasPrefix(l, `"",`) {
			t.Errorf("an incomplete organisation is ranked: %s", l)
		}
	}
	if !strings.Contains(string(files[HTMLFile]), `<td class="n">—</td><td>Challenge Org</td>`) {
		t.Error("the HTML leaderboard ranks Challenge Org")
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
