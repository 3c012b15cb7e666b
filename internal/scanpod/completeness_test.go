package scanpod

import (
	"fmt"
	"strings"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/results"
)

// The report carries completeness's counts and names at most
// MaxReportedIncomplete incomplete organisations, with their first reason
// and no sites; when space runs short it names fewer, then none, and the
// counts stay as long as the summary does.
func TestEncodeCompleteness(t *testing.T) {
	c := &results.Completeness{
		OrganisationsByVerdict: map[results.Verdict]int{results.VerdictComplete: 1, results.VerdictBlocked: 30},
		SitesByVerdict:         map[results.Verdict]int{results.VerdictComplete: 1, results.VerdictBlocked: 30},
		Sites:                  []results.SiteCompleteness{{BaseURL: "https://a/"}},
	}
	for i := range 30 {
		c.Organisations = append(c.Organisations, results.OrganisationCompleteness{Organisation: fmt.Sprintf("Org %02d", i),
			Verdict: results.VerdictBlocked, Reasons: []string{strings.Repeat("r", 300), "second"}})
	}
	m := Report{Outcome: OutcomeComplete, Summary: &results.Summary{PagesScanned: 1, Completeness: c}}
	got, ok := Decode(string(Encode(m, MaxBytes)))
	if !ok || got.Summary == nil || got.Summary.Completeness == nil {
		t.Fatalf("%+v", got)
	}
	gc := got.Summary.Completeness
	if len(gc.Organisations) != MaxReportedIncomplete || gc.Sites != nil || gc.Incomplete() != 30 {
		t.Errorf("%d organisations, sites %v, %d incomplete", len(gc.Organisations), gc.Sites, gc.Incomplete())
	}
	for _, o := range gc.Organisations {
		if len(o.Reasons) != 1 || len(o.Reasons[0]) > maxReportedReasonBytes {
			t.Errorf("%+v", o)
		}
	}
	for _, limit := range []int{900, 500} {
		got, _ := Decode(string(Encode(m, limit)))
		if got.Summary == nil || got.Summary.Completeness == nil || got.Summary.Completeness.Incomplete() != 30 ||
			len(got.Summary.Completeness.Organisations) >= MaxReportedIncomplete {
			t.Errorf("limit %d: %+v", limit, got.Summary)
		}
	}
	if len(c.Organisations) != 30 || len(c.Organisations[0].Reasons) != 2 || c.Sites == nil {
		t.Error("Encode changed the caller's completeness")
	}
}
