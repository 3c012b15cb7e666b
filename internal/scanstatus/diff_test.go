package scanstatus

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/a11y-dev/cwac-operator/internal/results"
)

// Every diff figure survives the status; organisations beyond the CRD's 50
// stay in diff.json only.
func TestDiffRoundTrip(t *testing.T) {
	orgs := func(n int) []results.OrganisationChange {
		out := make([]results.OrganisationChange, n)
		for i := range out {
			out[i] = results.OrganisationChange{Organisation: fmt.Sprint("org ", i), New: int64(n - i), Fixed: 1, Unchanged: 2}
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
