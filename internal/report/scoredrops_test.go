package report

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/a11y-dev/cwac-operator/internal/results"
)

func TestScoreDrops(t *testing.T) {
	org := func(name string, score *float64, verdict results.Verdict) OrgScore {
		return OrgScore{Organisation: name, Score: score, Completeness: string(verdict)}
	}
	drop := func(name string, prev, cur float64) results.OrganisationScoreDrop {
		return results.OrganisationScoreDrop{Organisation: name, Previous: prev, Current: cur}
	}
	tests := []struct {
		name        string
		now, before []OrgScore
		want        []results.OrganisationScoreDrop
	}{
		{name: "no baseline organisations", now: []OrgScore{org("A", f(50), "")}},
		{name: "a fall, largest first, then by name",
			now:    []OrgScore{org("A", f(90), ""), org("B", f(60), results.VerdictComplete), org("C", f(70), results.VerdictPartial), org("D", f(80), "")},
			before: []OrgScore{org("A", f(95), ""), org("B", f(80), ""), org("C", f(90), ""), org("D", f(80), "")},
			want:   []results.OrganisationScoreDrop{drop("B", 80, 60), drop("C", 90, 70), drop("A", 95, 90)}},
		{name: "a rise or no change is no drop",
			now:    []OrgScore{org("A", f(91), ""), org("B", f(80), "")},
			before: []OrgScore{org("A", f(90), ""), org("B", f(80), "")}},
		{name: "compared as shown, to one decimal",
			now:    []OrgScore{org("A", f(79.96), ""), org("B", f(79.84), "")},
			before: []OrgScore{org("A", f(80.04), ""), org("B", f(80.04), "")},
			want:   []results.OrganisationScoreDrop{drop("B", 80, 79.8)}},
		{name: "no score on either side",
			now:    []OrgScore{org("A", nil, ""), org("B", f(10), "")},
			before: []OrgScore{org("A", f(90), ""), org("B", nil, "")}},
		{name: "blocked or unreachable on either side",
			now: []OrgScore{org("A", f(10), results.VerdictBlocked), org("B", f(10), results.VerdictUnreachable),
				org("C", f(10), ""), org("D", f(10), "")},
			before: []OrgScore{org("A", f(90), ""), org("B", f(90), ""),
				org("C", f(90), results.VerdictBlocked), org("D", f(90), results.VerdictUnreachable)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, ScoreDrops(tt.now, tt.before)); diff != "" {
				t.Errorf("ScoreDrops (-want +got):\n%s", diff)
			}
		})
	}
}

// A leaderboard.csv reads back as ScoreDrops compares it: names as the
// file writes them, scores as shown, completeness, the unranked too.
func TestReadLeaderboard(t *testing.T) {
	fsys := fstest.MapFS{
		"pages_scanned.csv": csvFile("organisation,base_url,number_of_pages,sector\r\n" +
			"Good,https://g/,10,A\r\n=Bad,https://b/,2,B\r\nDown,https://d/,0,C\r\n"),
		"axe_core_audit.csv": csvFile("organisation,sector,url,impact,id,help,num_issues\r\n" +
			"Good,A,https://g/,minor,r1,R1,1\r\n=Bad,B,https://b/,critical,r2,R2,3\r\n"),
	}
	sb, b := results.NewSummaryBuilder(results.Options{}), NewBuilder()
	if err := results.Walk(context.Background(), fsys, sb, b); err != nil {
		t.Fatal(err)
	}
	board := b.RankedBoard(sb.Summary())
	data, err := LeaderboardCSV(board)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadLeaderboard(fstest.MapFS{LeaderboardFile: {Data: data}})
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Organisation, Score, Mark string
	}
	rows := make([]row, 0, len(got))
	for _, o := range got {
		score := "none"
		if o.Score != nil {
			score = fmt.Sprint(*o.Score)
		}
		rows = append(rows, row{o.Organisation, score, o.Completeness})
	}
	want := []row{{"Good", "99.9", "complete"}, {"'=Bad", "85", "complete"}, {"Down", "none", "unreachable"}}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("leaderboard read back (-want +got):\n%s", diff)
	}
	// Its scores are the scan's own: no drop against itself, and a drop
	// is found by the organisation's name whatever SafeCell did to it.
	if drops := ScoreDrops(board, got); len(drops) != 0 {
		t.Errorf("drops against itself: %+v", drops)
	}
	worse := slices.Clone(board)
	for i := range worse {
		if worse[i].Score != nil {
			worse[i].Score = f(*worse[i].Score - 10)
		}
	}
	if drops := ScoreDrops(worse, got); len(drops) != 2 || drops[0].Organisation != "=Bad" {
		t.Errorf("drops of 10 each: %+v, want Good's and =Bad's", drops)
	}
}

func TestReadLeaderboardRefuses(t *testing.T) {
	head := strings.Join(leaderboardHeader, ",") + "\n"
	row := `"1","A","S","1","1","0","0","0","0","0","0.0","100.0","complete","","0","0"` + "\n"
	for _, tc := range []struct {
		name string
		fsys fstest.MapFS
		want string
	}{
		{"no file", fstest.MapFS{}, "file does not exist"},
		{"not a leaderboard", fstest.MapFS{LeaderboardFile: {Data: []byte("organisation,score\nA,1\n")}}, "not a leaderboard"},
		{"not CSV", fstest.MapFS{LeaderboardFile: {Data: []byte(head + "\"A\n")}}, "extraneous or missing"},
		{"a score not a number", fstest.MapFS{LeaderboardFile: {Data: []byte(head + strings.Replace(row, "100.0", "high", 1))}},
			`line 2: score "high" is not a number`},
		{"too many organisations", fstest.MapFS{LeaderboardFile: {Data: []byte(head + strings.Repeat(row, maxLeaderboardRows+1))}},
			"more than 50000 organisations"},
		{"too large", fstest.MapFS{LeaderboardFile: {Data: []byte(head + strings.Replace(row, `"A"`, `"`+strings.Repeat("a", maxLeaderboardBytes)+`"`, 1))}},
			"larger than 16777216 bytes"},
	} {
		if _, err := ReadLeaderboard(tc.fsys); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
	if got, err := ReadLeaderboard(fstest.MapFS{LeaderboardFile: {Data: []byte(head + row)}}); err != nil || len(got) != 1 {
		t.Errorf("one row: %v %v", got, err)
	}
}
