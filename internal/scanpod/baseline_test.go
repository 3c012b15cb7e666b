package scanpod

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/a11y-dev/cwac-operator/internal/results"
)

// A scan with a baseline passes both baseline flags; one without passes
// neither, so an older runner without them still starts.
func TestRunnerFlagsBaseline(t *testing.T) {
	with := DefaultRunnerFlags()
	with.BaselineDir, with.BaselineName = BaselineDir, "weekly-20261115"
	fs := flag.NewFlagSet("runner", flag.ContinueOnError)
	var got RunnerFlags
	got.Bind(fs)
	if err := fs.Parse(with.Args()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(with, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	for _, a := range DefaultRunnerFlags().Args() {
		if strings.HasPrefix(a, "--baseline") {
			t.Errorf("a scan without a baseline got %q", a)
		}
	}
}

// The per-organisation diff is cut before anything else, to 10, then
// dropped; the diff's totals survive as long as the summary does.
func TestEncodeCutsDiffOrganisationsFirst(t *testing.T) {
	orgs := make([]results.OrganisationChange, 60)
	for i := range orgs {
		orgs[i] = results.OrganisationChange{Organisation: fmt.Sprintf("Organisation number %02d of many", i), New: int64(i)}
		if i > 0 {
			orgs[i].NewByImpact = map[string]int64{results.ImpactCritical: int64(i)}
		}
	}
	drops := make([]results.OrganisationScoreDrop, 15)
	for i := range drops {
		drops[i] = results.OrganisationScoreDrop{Organisation: fmt.Sprintf("Organisation number %02d of many", i), Previous: 90, Current: float64(i)}
	}
	diff := &results.DiffCounts{Baseline: "b", New: 7, Fixed: 3, Unchanged: 9, ByOrganisation: orgs, ScoreDrops: drops}
	in := Report{Outcome: OutcomeComplete, Summary: &results.Summary{TotalIssues: 16, Diff: diff}}
	// What Encode sends when there is room: every organisation's change,
	// the MaxReportedScoreDrops largest falls.
	roomy := in
	roomy.Summary = &results.Summary{TotalIssues: 16, Diff: &results.DiffCounts{Baseline: "b", New: 7, Fixed: 3, Unchanged: 9,
		ByOrganisation: orgs, ScoreDrops: drops[:MaxReportedScoreDrops]}}
	tests := []struct {
		limit               int
		wantOrgs, wantDrops int
	}{
		{limit: 1 << 20, wantOrgs: 60, wantDrops: MaxReportedScoreDrops},
		{limit: len(marshal(roomy)), wantOrgs: 60, wantDrops: MaxReportedScoreDrops},
		{limit: len(marshal(roomy)) - 1, wantOrgs: 10, wantDrops: 10},
		{limit: MaxBytes / 8, wantOrgs: 0, wantDrops: 0},
	}
	for _, tt := range tests {
		got, ok := Decode(string(Encode(in, tt.limit)))
		if !ok || got.Summary == nil || got.Summary.Diff == nil {
			t.Fatalf("limit %d: diff lost: %+v", tt.limit, got)
		}
		if n := len(got.Summary.Diff.ByOrganisation); n != tt.wantOrgs {
			t.Errorf("limit %d: %d organisations, want %d", tt.limit, n, tt.wantOrgs)
		} else if d := cmp.Diff(orgs[:n], got.Summary.Diff.ByOrganisation, cmpopts.EquateEmpty()); d != "" {
			t.Errorf("limit %d: organisations (-want +got):\n%s", tt.limit, d)
		}
		if got := got.Summary.Diff.ScoreDrops; len(got) != tt.wantDrops || !slices.Equal(got, drops[:tt.wantDrops]) {
			t.Errorf("limit %d: score drops %+v, want the first %d", tt.limit, got, tt.wantDrops)
		}
		if d := got.Summary.Diff; d.New != 7 || d.Fixed != 3 || d.Unchanged != 9 {
			t.Errorf("limit %d: totals changed: %+v", tt.limit, d)
		}
	}
	if len(diff.ByOrganisation) != 60 || !cmp.Equal(diff.ByOrganisation, orgs) || !slices.Equal(diff.ScoreDrops, drops) {
		t.Error("Encode changed the caller's diff")
	}
}
