package report

import (
	"context"
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

func TestRankedLeaderboard(t *testing.T) {
	fsys := fstest.MapFS{
		"pages_scanned.csv": csvFile("organisation,base_url,number_of_pages,sector\r\n" +
			"Good,https://g/,10,A\r\nBad,https://b/,2,B\r\nDown,https://d/,0,C\r\n"),
		"axe_core_audit.csv": csvFile("organisation,sector,url,impact,id,help,num_issues\r\n" +
			"Good,A,https://g/,minor,r1,R1,1\r\nBad,B,https://b/,critical,r2,R2,3\r\n"),
	}
	got, err := RankedLeaderboard(context.Background(), fsys)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Rank               int
		Organisation, Mark string
	}
	rows := make([]row, 0, len(got))
	for _, o := range got {
		rows = append(rows, row{o.Rank, o.Organisation, o.Completeness})
	}
	want := []row{{1, "Good", "complete"}, {2, "Bad", "complete"}, {0, "Down", "unreachable"}}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("ranked leaderboard (-want +got):\n%s", diff)
	}
	if _, err := RankedLeaderboard(context.Background(), fstest.MapFS{"axe_core_audit.csv": csvFile("not,a\r\nvalid\r\n")}); err == nil {
		t.Error("a malformed results directory gave no error")
	}
}
