package report

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/a11y-dev/cwac-operator/internal/results"
)

// deciding passes the rows decided says a decision covers to the
// builder's DecidedRow, the others to VisitRow, as the runner's walk does.
type deciding struct {
	*Builder
	decided func(results.Row) bool
}

func (d deciding) VisitRow(file string, r *results.Reader, row results.Row) error {
	if d.decided(row) {
		return d.DecidedRow(file, r, row)
	}
	return d.Builder.VisitRow(file, r, row)
}

// TestDecidedRowsLeaveScores: issues a decision covers move no count, no
// score and no rank (the organisation scores as if they were not there);
// the leaderboard and the report say how many were left out, by
// organisation and in all.
func TestDecidedRowsLeaveScores(t *testing.T) {
	wide := `"{'width': 1280, 'height': 800}"`
	axeRow := func(org, url, rule, impact string) string {
		return org + ",S,Home," + url + "," + wide + ",/html/body/img,1,Help,https://h/" + rule + "," + rule + "," + impact + ",<img>,\"['wcag2a']\"\r\n"
	}
	fsys := fstest.MapFS{
		"pages_scanned.csv": csvFile("organisation,base_url,number_of_pages,sector\r\nA,https://a/,2,S\r\nB,https://b/,2,S\r\n"),
		"axe_core_audit.csv": csvFile(axeHead +
			axeRow("A", "https://a/", "image-alt", "critical") +
			axeRow("A", "https://a/x", "image-alt", "critical") +
			axeRow("A", "https://a/", "region", "moderate") +
			axeRow("B", "https://b/", "region", "moderate")),
	}
	plain, decided := NewBuilder(), NewBuilder()
	if err := results.Walk(context.Background(), fsys, plain); err != nil {
		t.Fatal(err)
	}
	isAlt := func(row results.Row) bool { return row.Get("id") == "image-alt" }
	if err := results.Walk(context.Background(), fsys, deciding{decided, isAlt}); err != nil {
		t.Fatal(err)
	}
	board := func(b *Builder) map[string]OrgScore {
		out := map[string]OrgScore{}
		for _, o := range b.Leaderboard() {
			out[o.Organisation] = o
		}
		return out
	}
	before, after := board(plain), board(decided)
	if before["A"].Rank != 2 || before["A"].Critical != 2 || before["A"].Decided != 0 {
		t.Fatalf("without decisions A = %+v, want rank 2 with 2 critical", before["A"])
	}
	a, b := after["A"], after["B"]
	if a.Critical != 0 || a.Moderate != 1 || a.Decided != 2 || b.Decided != 0 || b.Moderate != 1 {
		t.Fatalf("A %+v, B %+v: want A's critical issues decided, the moderate ones counted", a, b)
	}
	if a.Score == nil || b.Score == nil || *a.Score != *b.Score || a.Rank != 1 || b.Rank != 1 {
		t.Errorf("A scores %v rank %d, B %v rank %d: want A scored as B (its decided issues weigh nothing), sharing rank 1",
			a.Score, a.Rank, b.Score, b.Rank)
	}
	if p := decided.TrendPoint(Meta{}, &results.Summary{}); p.TotalIssues != 2 {
		t.Errorf("the trend point's total is %d, want 2: decided issues are in no figure", p.TotalIssues)
	}

	data, err := LeaderboardCSV(decided.Leaderboard())
	if err != nil {
		t.Fatal(err)
	}
	rows := strings.Split(strings.TrimSpace(string(data)), "\n")
	last := func(row string) string { return row[strings.LastIndex(row, ",")+1:] }
	if diff := cmp.Diff([]string{`"decided"`, `"2"`, `"0"`}, []string{last(rows[0]), last(rows[1]), last(rows[2])}); diff != "" {
		t.Errorf("leaderboard.csv's last column (-want +got):\n%s", diff)
	}
	var html strings.Builder
	out, _, err := decided.Render(Meta{Title: "t"}, &results.Summary{})
	if err != nil {
		t.Fatal(err)
	}
	html.Write(out)
	for _, want := range []string{`<p id="decided">Left out of every count and score in this report because a decision covers them`,
		`They leave out the <a href="#decided">decided</a> issues too (2)`} {
		if !strings.Contains(html.String(), want) {
			t.Errorf("the report does not say %q", want)
		}
	}
	if plainHTML := renderFS(t, fsys); strings.Contains(plainHTML, `id="decided"`) {
		t.Error("a report without decisions speaks of them")
	}
}
