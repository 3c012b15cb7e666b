package scanstatus

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/results"
)

// Every diff figure survives the status; organisations beyond the CRD's 50
// stay in diff.json only.
func TestDiffRoundTrip(t *testing.T) {
	orgs := func(n int) []results.OrganisationChange {
		out := make([]results.OrganisationChange, n)
		for i := range out {
			out[i] = results.OrganisationChange{Organisation: fmt.Sprint("org ", i), New: int64(n - i), Fixed: 1, Unchanged: 2,
				NewByImpact: map[string]int64{results.ImpactSerious: int64(n - i)}}
		}
		return out
	}
	full := results.DiffCounts{
		Baseline: "week-1", New: 5, Fixed: 7, Unchanged: 11, Unstable: 2, NewElements: 3, FixedElements: 4,
		NewByImpact: map[string]int64{"critical": 1}, FixedByImpact: map[string]int64{"serious": 2},
		PagesAdded: 1, PagesRemoved: 2, NewOnAddedPages: 3, FixedOnRemovedPages: 4,
	}
	tests := []struct{ orgs, want int }{{0, 0}, {49, 49}, {50, 50}, {51, 50}}
	for _, tt := range tests {
		in := full
		in.ByOrganisation = orgs(tt.orgs)
		got := FromAPI(ToAPI(&results.Summary{Diff: &in})).Diff
		want := in
		want.ByOrganisation = in.ByOrganisation[:tt.want]
		if tt.want == 0 {
			want.ByOrganisation = nil
		}
		if diff := cmp.Diff(&want, got); diff != "" {
			t.Errorf("%d organisations (-want +got):\n%s", tt.orgs, diff)
		}
	}
	if FromAPI(ToAPI(&results.Summary{})).Diff != nil {
		t.Error("no diff came back as one")
	}
}

// Score drops survive the status to one decimal, at most the CRD's 10
// (the largest falls, which come first); a score the API cannot hold is
// clamped into 0-100, and one a reader cannot parse back is left out.
func TestDiffScoreDropsRoundTrip(t *testing.T) {
	drops := func(n int) []results.OrganisationScoreDrop {
		out := make([]results.OrganisationScoreDrop, 0, n)
		for i := range n {
			out = append(out, results.OrganisationScoreDrop{Organisation: fmt.Sprint("org ", i), Previous: 90.5, Current: float64(n - i)})
		}
		return out
	}
	for _, tt := range []struct{ drops, want int }{{0, 0}, {9, 9}, {10, 10}, {11, 10}} {
		in := results.DiffCounts{Baseline: "week-1", ScoreDrops: drops(tt.drops)}
		got := FromAPI(ToAPI(&results.Summary{Diff: &in})).Diff
		want := in
		want.ScoreDrops = in.ScoreDrops[:tt.want]
		if tt.want == 0 {
			want.ScoreDrops = nil
		}
		if diff := cmp.Diff(&want, got); diff != "" {
			t.Errorf("%d score drops (-want +got):\n%s", tt.drops, diff)
		}
	}

	api := ToAPI(&results.Summary{Diff: &results.DiffCounts{ScoreDrops: []results.OrganisationScoreDrop{
		{Organisation: "a", Previous: 81.25, Current: 79.94}, {Organisation: "b", Previous: 100.2, Current: -3},
	}}}).Diff.ScoreDrops
	if got := fmt.Sprint(api); got != "[{a 81.2 79.9} {b 100.0 0.0}]" {
		t.Errorf("scores in the API: %s", got)
	}
	api[0].Score = "lots"
	api[1].PreviousScore = "101.0"
	if got := FromAPI(&cwacv1alpha1.ScanSummary{Diff: &cwacv1alpha1.ScanDiff{ScoreDrops: api}}).Diff.ScoreDrops; got != nil {
		t.Errorf("unreadable scores came back as %+v", got)
	}
}

func TestParseScore(t *testing.T) {
	for in, want := range map[string]float64{"0.0": 0, "100.0": 100, "81.5": 81.5} {
		if got, ok := ParseScore(in); !ok || got != want {
			t.Errorf("ParseScore(%q) = %v, %v; want %v", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "-0.1", "100.1", "NaN", "x"} {
		if _, ok := ParseScore(in); ok {
			t.Errorf("ParseScore(%q) accepted", in)
		}
	}
}
