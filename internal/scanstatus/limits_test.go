package scanstatus

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/a11y-dev/cwac-operator/internal/results"
)

func organisations(n int) []results.OrganisationChange {
	if n == 0 {
		return nil
	}
	out := make([]results.OrganisationChange, 0, n)
	for i := range n {
		out = append(out, results.OrganisationChange{Organisation: fmt.Sprintf("org-%02d", i), New: int64(i), Fixed: 1, Unchanged: 2})
	}
	return out
}

// The comparison with the baseline survives the status, its organisations
// cut to the CRD's 50 (maxDiffOrganisations): one below, at and one above.
func TestDiffRoundTripOrganisationsBoundary(t *testing.T) {
	tests := []struct {
		name          string
		organisations int
		want          int
	}{
		{"none", 0, 0},
		{"one below the cap", maxDiffOrganisations - 1, maxDiffOrganisations - 1},
		{"at the cap", maxDiffOrganisations, maxDiffOrganisations},
		{"one above the cap", maxDiffOrganisations + 1, maxDiffOrganisations},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			diff := &results.DiffCounts{
				Baseline: "nightly-1", New: 5, Fixed: 4, Unchanged: 3, Unstable: 2, NewElements: 5, FixedElements: 3,
				NewByImpact: map[string]int64{"critical": 5}, FixedByImpact: map[string]int64{"minor": 4},
				ByOrganisation: organisations(tt.organisations),
			}
			want := *diff
			want.ByOrganisation = organisations(tt.want)
			got := FromAPI(ToAPI(&results.Summary{TotalIssues: 9, Diff: diff}))
			if d := cmp.Diff(&results.Summary{TotalIssues: 9, Diff: &want}, got); d != "" {
				t.Errorf("round trip (-want +got):\n%s", d)
			}
			if len(diff.ByOrganisation) != tt.organisations {
				t.Errorf("the caller's list was changed to %d organisations", len(diff.ByOrganisation))
			}
		})
	}
}

// A summary without a comparison keeps none in the status.
func TestNoDiff(t *testing.T) {
	if got := ToAPI(&results.Summary{TotalIssues: 1}); got.Diff != nil {
		t.Errorf("ToAPI made a diff: %+v", got.Diff)
	}
}

// Durations are rounded to whole seconds, half up.
func TestDurationRounding(t *testing.T) {
	for _, tt := range []struct {
		in   float64
		want int64
	}{{0, 0}, {0.49, 0}, {0.5, 1}, {1.5, 2}, {59.99, 60}} {
		if got := ToAPI(&results.Summary{DurationSeconds: tt.in}).DurationSeconds; got != tt.want {
			t.Errorf("DurationSeconds %v: %d, want %d", tt.in, got, tt.want)
		}
	}
}
