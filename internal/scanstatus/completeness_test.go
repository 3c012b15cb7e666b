package scanstatus

import (
	"fmt"
	"strings"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/results"
)

func completenessWith(incomplete int) *results.Completeness {
	c := &results.Completeness{
		OrganisationsByVerdict: map[results.Verdict]int{results.VerdictComplete: 2, results.VerdictBlocked: incomplete, "bogus": 9},
		SitesByVerdict:         map[results.Verdict]int{results.VerdictComplete: 3, results.VerdictBlocked: incomplete},
	}
	for i := range incomplete {
		c.Organisations = append(c.Organisations, results.OrganisationCompleteness{
			Organisation: fmt.Sprintf("Org %d", i), Verdict: results.VerdictBlocked,
			Reasons: []string{"https://a/ blocked: the base URL answered 403 (refused)", strings.Repeat("x", 600)}})
	}
	c.Organisations = append(c.Organisations, results.OrganisationCompleteness{Organisation: "Fine", Verdict: results.VerdictComplete})
	return c
}

// Status keeps the counts of the four verdicts and at most
// MaxIncompleteOrganisations incomplete organisations, each reason cut.
func TestCompletenessToAPI(t *testing.T) {
	for _, n := range []int{0, MaxIncompleteOrganisations, MaxIncompleteOrganisations + 1} {
		got := ToAPI(&results.Summary{Completeness: completenessWith(n)}).Completeness
		if len(got.Incomplete) != min(n, MaxIncompleteOrganisations) {
			t.Errorf("%d incomplete: %d listed", n, len(got.Incomplete))
		}
		if _, ok := got.OrganisationsByVerdict["bogus"]; ok || got.OrganisationsByVerdict["complete"] != 2 || int(got.OrganisationsByVerdict["blocked"]) != n {
			t.Errorf("%d incomplete: counts %v", n, got.OrganisationsByVerdict)
		}
		for _, o := range got.Incomplete {
			if o.Verdict != "blocked" || len(o.Reason) > maxCompletenessReasonBytes || !strings.HasPrefix(o.Reason, "https://a/ blocked") {
				t.Errorf("%+v", o)
			}
		}
		back := FromAPI(ToAPI(&results.Summary{Completeness: completenessWith(n)})).Completeness
		if back.Incomplete() != n || back.AllComplete() != (n == 0) {
			t.Errorf("%d incomplete: back %d, all complete %v", n, back.Incomplete(), back.AllComplete())
		}
	}
	if ToAPI(&results.Summary{}).Completeness != nil {
		t.Error("no completeness became some")
	}
}
