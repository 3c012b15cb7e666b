package report

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/a11y-dev/cwac-operator/internal/results"
	goldenfile "github.com/a11y-dev/cwac-operator/internal/testutil/golden"
)

const realScan = "../../testdata/cwac-results/2026-11-21_23-18-23_real-scan-1"

func f(v float64) *float64 { return &v }

func TestLeaderboardRealScan(t *testing.T) {
	got, err := leaderboardOf(os.DirFS(realScan))
	if err != nil {
		t.Fatal(err)
	}
	// 6 critical ×10 + 6 serious ×5 + (1 reflow + 4 focus) ×3 = 105 over 4 pages.
	want := []OrgScore{{Rank: 1, Organisation: "CWAC Test Org", Sector: "Test Sector", BaseURLs: 1, Pages: 4,
		Critical: 6, Serious: 6, Other: 5, WeightedPerPage: 26.3, Score: f(73.8)}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("leaderboard (-want +got):\n%s", diff)
	}
}

func csvFile(body string) *fstest.MapFile {
	return &fstest.MapFile{Data: []byte("\xef\xbb\xbf" + body)}
}

func TestLeaderboardRanking(t *testing.T) {
	fsys := fstest.MapFS{
		"pages_scanned.csv": csvFile("organisation,base_url,number_of_pages,sector\r\n" +
			"Good,https://g/,10,A\r\nBad,https://b/,2,B\r\nDown,https://d/,0,C\r\n\"=HYPERLINK(\"\"http://x\"\")\",https://h/,1,-cmd\r\n"),
		"axe_core_audit.csv": csvFile("organisation,sector,url,impact,id,help,num_issues\r\n" +
			"Good,A,https://g/,minor,r1,R1,1\r\nBad,B,https://b/,critical,r2,R2,3\r\n" +
			"Bad,B,https://b/,moderate,r3,R3,2\r\nGood,A,https://g/,,,No issues found,0\r\n"),
		"reflow_audit.csv":                  csvFile("organisation,sector,url,num_issues\r\nGood,A,https://g/,1\r\n"),
		"axe_core_audit_template_aware.csv": csvFile("organisation,sector,url,impact,id,num_pages,num_issues\r\nGood,A,https://g/,critical,r9,1,50\r\n"),
	}
	got, err := leaderboardOf(fsys)
	if err != nil {
		t.Fatal(err)
	}
	want := []OrgScore{
		{Rank: 1, Organisation: "=HYPERLINK(\"http://x\")", Sector: "-cmd", BaseURLs: 1, Pages: 1, Score: f(100)},
		{Rank: 2, Organisation: "Good", Sector: "A", BaseURLs: 1, Pages: 10, Minor: 1, Other: 1, WeightedPerPage: 0.4, Score: f(99.6)},
		{Rank: 3, Organisation: "Bad", Sector: "B", BaseURLs: 1, Pages: 2, Critical: 3, Moderate: 2, WeightedPerPage: 17, Score: f(83)},
		{Rank: 4, Organisation: "Down", Sector: "C", BaseURLs: 1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("leaderboard (-want +got):\n%s", diff)
	}
	data, err := LeaderboardCSV(got)
	if err != nil {
		t.Fatal(err)
	}
	wantCSV := `"rank","organisation","sector","base_urls","pages_scanned","critical","serious","moderate","minor",` +
		`"other_issues","weighted_issues_per_page","score","completeness","completeness_reason","timing_dependent_set_aside","decided"` + "\n" +
		`"1","'=HYPERLINK(""http://x"")","'-cmd","1","1","0","0","0","0","0","0.0","100.0","","","0","0"` + "\n" +
		`"2","Good","A","1","10","0","0","0","1","1","0.4","99.6","","","0","0"` + "\n" +
		`"3","Bad","B","1","2","3","0","2","0","0","17.0","83.0","","","0","0"` + "\n" +
		`"4","Down","C","1","0","0","0","0","0","0","0.0","","","","0","0"` + "\n"
	if diff := cmp.Diff(wantCSV, string(data)); diff != "" {
		t.Errorf("leaderboard CSV (-want +got):\n%s", diff)
	}
	// A semicolon-separated reader sees one quoted cell, not a formula.
	data, _ = LeaderboardCSV([]OrgScore{{Rank: 1, Organisation: "x;=1+2", Sector: "s"}})
	if !strings.Contains(string(data), `"1","x;=1+2","s"`) {
		t.Errorf("a semicolon cell is not quoted: %s", data)
	}
}

// leaderboard.csv's columns keep their names and places, whatever is
// added after them: readers find a column by its position. The impact
// columns are results.Impacts, worst first.
func TestLeaderboardHeader(t *testing.T) {
	want := []string{"rank", "organisation", "sector", "base_urls", "pages_scanned", "critical", "serious", "moderate", "minor",
		"other_issues", "weighted_issues_per_page", "score", "completeness", "completeness_reason", "timing_dependent_set_aside",
		"decided"}
	if diff := cmp.Diff(want, leaderboardHeader); diff != "" {
		t.Errorf("leaderboard.csv header (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(results.Impacts(), leaderboardHeader[5:9]); diff != "" {
		t.Errorf("impact columns (-results.Impacts +header):\n%s", diff)
	}
}

// TestRankTies: equal scores share a rank and the next rank skips
// (standard competition ranking); organisations without a score share the last.
func TestRankTies(t *testing.T) {
	tests := []struct {
		name   string
		scores []*float64
		want   []int
	}{
		{"all different", []*float64{f(90), f(80), f(70)}, []int{1, 2, 3}},
		{"tie at the top", []*float64{f(90), f(90), f(70)}, []int{1, 1, 3}},
		{"tie in the middle", []*float64{f(95), f(80), f(80), f(80), f(10)}, []int{1, 2, 2, 2, 5}},
		{"tie at the bottom", []*float64{f(95), f(0), f(0)}, []int{1, 2, 2}},
		{"no scores share the last rank", []*float64{f(50), nil, nil}, []int{1, 2, 2}},
		{"all tied", []*float64{f(1), f(1), f(1)}, []int{1, 1, 1}},
		{"none", nil, []int{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows := make([]OrgScore, len(tt.scores))
			for i, s := range tt.scores {
				rows[i] = OrgScore{Organisation: string(rune('a' + i)), Score: s}
			}
			rank(rows)
			got := make([]int, len(rows))
			for i, r := range rows {
				got[i] = r.Rank
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ranks (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLeaderboardTiesFromResults: two organisations with the same pages and
// issues rank 1 and 1, and the third 3 — in the HTML report and the CSV.
func TestLeaderboardTiesFromResults(t *testing.T) {
	fsys := fstest.MapFS{
		"pages_scanned.csv": csvFile("organisation,base_url,number_of_pages,sector\r\nB,https://b/,2,S\r\nA,https://a/,2,S\r\nC,https://c/,2,S\r\n"),
		"axe_core_audit.csv": csvFile("organisation,sector,url,impact,id,help,num_issues\r\n" +
			"A,S,https://a/,serious,r1,R1,1\r\nB,S,https://b/,serious,r1,R1,1\r\nC,S,https://c/,critical,r1,R1,1\r\n"),
	}
	board, err := leaderboardOf(fsys)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]string, 0, len(board))
	for _, o := range board {
		got = append(got, fmt.Sprintf("%d %s %s", o.Rank, o.Organisation, formatScore(o.Score)))
	}
	if diff := cmp.Diff([]string{"1 A 97.5", "1 B 97.5", "3 C 95.0"}, got); diff != "" {
		t.Errorf("ranks (-want +got):\n%s", diff)
	}
}

func TestSafeCell(t *testing.T) {
	tests := map[string]string{
		"=1+1": "'=1+1", "+1": "'+1", "-1": "'-1", "@SUM(A1)": "'@SUM(A1)", "\tx": "'\tx",
		"Org": "Org", "": "", "Te Tari": "Te Tari", "1-2": "1-2",
	}
	for in, want := range tests {
		if got := SafeCell(in); got != want {
			t.Errorf("SafeCell(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestHTMLRealScan(t *testing.T) {
	meta := Meta{Title: "real-scan-1", ResultsDir: "2026-11-21_23-18-23_real-scan-1", GeneratedAt: time.Date(2026, 11, 22, 1, 2, 3, 0, time.UTC)}
	got, err := HTML(os.DirFS(realScan), meta)
	if err != nil {
		t.Fatal(err)
	}
	page := string(got)
	for _, want := range []string{
		`<html lang="en">`,
		// CWAC's 17 issues are 9 elements: each found at both viewports but reflow's (320 px only).
		"<strong>4</strong> pages scanned", "<strong>9</strong> issues", "<strong>3</strong> critical", "<strong>17</strong> issues in CWAC",
		// image-alt: two images, one on each of two pages, each at both viewports (CWAC: 4)
		"<code class=\"rule-id\">image-alt</code> Images must have alternative text <span class=\"meta\">— 2 issues on 2 pages · 1.1.1</span>",
		"<li>Audit: axe_core_audit</li><li>CWAC count: 4</li>",
		"at <code>/html/body/main/img</code> · 320×450, 1280×800",
		// reflow is found at 320 px only
		"the page as a whole · 320×450</span>",
		// element HTML from the page is escaped, never live markup
		"&lt;img src=&#34;logo.png&#34; width=&#34;120&#34; height=&#34;40&#34;&gt;",
		`<a href="https://dequeuniversity.com/rules/axe/4.13/image-alt?application=axeAPI">How to fix <code>image-alt</code></a>`,
		`<a href="http://127.0.0.1:8765/form.html" rel="noreferrer">Contact form - CWAC test site</a>`,
		// the criterion view: number, name, level, rules, elements, pages, CWAC count
		`<a href="https://www.w3.org/WAI/WCAG22/Understanding/non-text-content.html">1.1.1 Non-text Content</a></td>` +
			`<td><span class="badge level">A</span></td><td><code>image-alt</code></td><td class="n">2</td><td class="n">2</td><td class="n">4</td>`,
		`1.4.10 Reflow</a></td><td><span class="badge level">AA</span></td><td><code>reflow_audit</code></td>`,
		`2.4.7 Focus Visible</a></td><td><span class="badge level">AA</span></td><td><code>focus_indicator_audit</code></td><td class="n">2</td>`,
		"Issues failed 7 success criteria: 4 of level A, 3 of level AA, none of level AAA.",
		"73.8",
		"default-src &#39;none&#39;; style-src &#39;sha256-",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(page, "<script") || strings.Contains(page, `<img src="logo.png"`) {
		t.Error("report carries live markup from scanned pages")
	}
	goldenfile.Assert(t, "real-scan-1.report.html", got)
}

func TestGenerateWritesBoth(t *testing.T) {
	dir := t.TempDir()
	files, err := Generate(os.DirFS(realScan), Meta{Title: "x"}, func(name string, data []byte) error {
		return os.WriteFile(filepath.Join(dir, name), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{HTMLFile, LeaderboardFile}, files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	rows := 0
	if err := results.EachRow(filepath.Join(dir, LeaderboardFile), func(*results.Reader, results.Row) error { rows++; return nil }); err != nil || rows != 1 {
		t.Errorf("leaderboard rows = %d, err %v", rows, err)
	}
}

// leaderboardOf is the builder's leaderboard of a results directory, before
// completeness ranks it: what the score and rank tests check.
func leaderboardOf(fsys fs.FS) ([]OrgScore, error) {
	b := NewBuilder()
	if err := results.Walk(context.Background(), fsys, b); err != nil {
		return nil, err
	}
	return b.Leaderboard(), nil
}
