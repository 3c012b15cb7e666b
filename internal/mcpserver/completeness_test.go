package mcpserver

import (
	"fmt"
	"strings"
	"testing"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

// cwac_get_summary's completeness section is capped at its limits (kept
// whole at the limit, cut one past it and named in the note), its texts
// and reasons cut, and verdicts other than the four dropped.
func TestCapCompleteness(t *testing.T) {
	long := strings.Repeat("x", 5000)
	for _, n := range []int{maxSummaryCompleteness, maxSummaryCompleteness + 1} {
		c := &results.Completeness{OrganisationsByVerdict: map[results.Verdict]int{"blocked": n, "bogus": 1}, SitesByVerdict: map[results.Verdict]int{}}
		for range n {
			reasons := []string{long, long, long, long, long, long, long, long}
			c.Organisations = append(c.Organisations, results.OrganisationCompleteness{Organisation: long, Verdict: results.VerdictBlocked, Reasons: reasons})
			c.Sites = append(c.Sites, results.SiteCompleteness{BaseURL: long, Organisation: long, Reasons: append([]string(nil), reasons...)})
		}
		s := &results.Summary{Completeness: c}
		note := capSummary(s)
		if len(c.Organisations) != maxSummaryCompleteness || len(c.Sites) != maxSummaryCompleteness {
			t.Errorf("%d: kept %d organisations and %d sites", n, len(c.Organisations), len(c.Sites))
		}
		for _, what := range []string{"organisations in completeness", "sites in completeness"} {
			if cut := fmt.Sprintf("%d of %d %s", maxSummaryCompleteness, n, what); strings.Contains(note, cut) != (n > maxSummaryCompleteness) {
				t.Errorf("%d: note %q", n, note)
			}
		}
		o, st := c.Organisations[0], c.Sites[0]
		if len(o.Reasons) != maxCompletenessReasons || o.Reasons[maxCompletenessReasons-1] != "and 3 more reasons" ||
			len(o.Reasons[0]) > maxSummaryTextBytes || len(o.Organisation) > maxCompareNameBytes || len(st.BaseURL) > urlpolicy.MaxURLLength {
			t.Errorf("%d: texts not cut: %d reasons, %d-byte organisation", n, len(o.Reasons), len(o.Organisation))
		}
		if _, ok := c.OrganisationsByVerdict["bogus"]; ok {
			t.Errorf("an unknown verdict kept: %v", c.OrganisationsByVerdict)
		}
	}
}

// A scan's cwac_list_scans entry says whether its organisations were all
// scanned completely.
func TestListScansCompleteness(t *testing.T) {
	for _, tc := range []struct {
		c     *cwacv1alpha1.ScanCompleteness
		word  string
		count int32
	}{
		{c: &cwacv1alpha1.ScanCompleteness{OrganisationsByVerdict: map[string]int32{"complete": 2}}, word: "complete"},
		{c: &cwacv1alpha1.ScanCompleteness{OrganisationsByVerdict: map[string]int32{"complete": 2, "blocked": 1, "partial": 2}}, word: "incomplete", count: 3},
		{c: nil, word: "unknown"},
	} {
		scan := &cwacv1alpha1.CwacScan{}
		scan.Name = "s"
		scan.Status.Phase = cwacv1alpha1.PhaseComplete
		scan.Status.Summary = &cwacv1alpha1.ScanSummary{Completeness: tc.c}
		e := scanEntry(nil, scan)
		if e.Completeness != tc.word || e.IncompleteOrganisations != tc.count {
			t.Errorf("%+v: %q %d, want %q %d", tc.c, e.Completeness, e.IncompleteOrganisations, tc.word, tc.count)
		}
	}
	if e := scanEntry(nil, &cwacv1alpha1.CwacScan{}); e.Completeness != "" {
		t.Errorf("a scan without results: %q", e.Completeness)
	}
}
