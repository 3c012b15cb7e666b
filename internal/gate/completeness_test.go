package gate

import (
	"fmt"
	"strings"
	"testing"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

func incompleteOrgs(n int) []cwacv1alpha1.OrganisationCompleteness {
	out := make([]cwacv1alpha1.OrganisationCompleteness, n)
	for i := range out {
		out[i] = cwacv1alpha1.OrganisationCompleteness{Organisation: fmt.Sprintf("Org %d", i), Verdict: "blocked",
			Reason: fmt.Sprintf("https://o%d.example/ blocked: the base URL answered 403 (refused)", i)}
	}
	return out
}

// requireComplete fails the gate when any organisation is not complete,
// naming them; completeness not known fails it closed.
func TestRequireComplete(t *testing.T) {
	req := &cwacv1alpha1.Thresholds{RequireComplete: true}
	allComplete := &cwacv1alpha1.ScanCompleteness{OrganisationsByVerdict: map[string]int32{"complete": 3}}
	for _, tc := range []struct {
		name string
		t    *cwacv1alpha1.Thresholds
		c    *cwacv1alpha1.ScanCompleteness
		want string // "" passes
	}{
		{name: "all complete", t: req, c: allComplete},
		{name: "not asked", t: &cwacv1alpha1.Thresholds{}, c: &cwacv1alpha1.ScanCompleteness{OrganisationsByVerdict: map[string]int32{"blocked": 1}}},
		{name: "one blocked", t: req, c: &cwacv1alpha1.ScanCompleteness{
			OrganisationsByVerdict: map[string]int32{"complete": 2, "blocked": 1}, Incomplete: incompleteOrgs(1)},
			want: "organisations not complete (1 of 3): Org 0 (blocked: https://o0.example/ blocked: the base URL answered 403 (refused))"},
		{name: "partial counts too", t: req, c: &cwacv1alpha1.ScanCompleteness{
			OrganisationsByVerdict: map[string]int32{"complete": 2, "partial": 1},
			Incomplete:             []cwacv1alpha1.OrganisationCompleteness{{Organisation: "P", Verdict: "partial"}}},
			want: "organisations not complete (1 of 3): P (partial)"},
		{name: "names at most five", t: req, c: &cwacv1alpha1.ScanCompleteness{
			OrganisationsByVerdict: map[string]int32{"unreachable": 7}, Incomplete: incompleteOrgs(7)}, want: "; and 2 more"},
		{name: "five named, none more", t: req, c: &cwacv1alpha1.ScanCompleteness{
			OrganisationsByVerdict: map[string]int32{"unreachable": 5}, Incomplete: incompleteOrgs(5)}, want: "Org 4 (blocked"},
		{name: "not reported", t: req, c: nil, want: "completeness not known: the scan pod did not report it"},
		{name: "no organisation judged", t: req, c: &cwacv1alpha1.ScanCompleteness{}, want: "no organisation was judged"},
		{name: "sites past the bound", t: req, c: &cwacv1alpha1.ScanCompleteness{OrganisationsByVerdict: map[string]int32{"complete": 1}, SitesNotJudged: 4},
			want: "completeness not known for 4 sites"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			crossed := Crossed(tc.t, &cwacv1alpha1.ScanSummary{Completeness: tc.c})
			if tc.want == "" {
				if len(crossed) != 0 {
					t.Errorf("crossed %q", crossed)
				}
				return
			}
			if len(crossed) != 1 || !strings.Contains(crossed[0], tc.want) {
				t.Errorf("crossed %q, want one holding %q", crossed, tc.want)
			}
			if strings.Contains(tc.name, "five named") && strings.Contains(crossed[0], "more") {
				t.Errorf("five named and %q", crossed[0])
			}
		})
	}
}

// The text naming incomplete organisations stays within its bound.
func TestCompletenessTextBound(t *testing.T) {
	orgs := incompleteOrgs(20)
	for i := range orgs {
		orgs[i].Reason = strings.Repeat("r", 512)
	}
	j, text := Completeness(&cwacv1alpha1.ScanCompleteness{OrganisationsByVerdict: map[string]int32{"blocked": 20}, Incomplete: orgs})
	if j != Incomplete || len(text) > maxIncompleteBytes {
		t.Errorf("%v, %d bytes", j, len(text))
	}
	if j, _ := Completeness(&cwacv1alpha1.ScanCompleteness{OrganisationsByVerdict: map[string]int32{"complete": 1}}); j != Complete {
		t.Errorf("all complete judged %v", j)
	}
}
