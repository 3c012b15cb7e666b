package mcpserver

import (
	"fmt"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/gate"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

// completenessWord is a scan's completeness in one word for
// cwac_list_scans (complete, incomplete or unknown), with how many
// organisations were not complete.
func completenessWord(c *cwacv1alpha1.ScanCompleteness) (string, int32) {
	j, _ := gate.Completeness(c)
	n := int32(0)
	if j == gate.Incomplete {
		for v, k := range c.OrganisationsByVerdict {
			if v != string(results.VerdictComplete) {
				n += k
			}
		}
	}
	return j.String(), n
}

// Caps on the completeness section of cwac_get_summary's answer:
// summary.json is the scan pod's, so its lists may be any length.
const (
	maxSummaryCompleteness = results.MaxCompletenessListed
	maxCompletenessReasons = 6
)

// capCompleteness bounds a summary's completeness for an answer, noting
// what was cut.
func capCompleteness(c *results.Completeness, note func(what string, total, kept int)) {
	if c == nil {
		return
	}
	c.OrganisationsByVerdict, c.SitesByVerdict = knownVerdicts(c.OrganisationsByVerdict), knownVerdicts(c.SitesByVerdict)
	if n := len(c.Organisations); n > maxSummaryCompleteness {
		c.Organisations = c.Organisations[:maxSummaryCompleteness]
		note("organisations in completeness", n, maxSummaryCompleteness)
	}
	for i := range c.Organisations {
		o := &c.Organisations[i]
		o.Organisation, o.Reasons = truncate(o.Organisation, maxCompareNameBytes), capReasons(o.Reasons)
	}
	if n := len(c.Sites); n > maxSummaryCompleteness {
		c.Sites = c.Sites[:maxSummaryCompleteness]
		note("sites in completeness", n, maxSummaryCompleteness)
	}
	for i := range c.Sites {
		s := &c.Sites[i]
		s.Organisation, s.BaseURL, s.Reasons = truncate(s.Organisation, maxCompareNameBytes), truncate(s.BaseURL, urlpolicy.MaxURLLength), capReasons(s.Reasons)
	}
}

// knownVerdicts keeps the counts of the four verdicts.
func knownVerdicts(m map[results.Verdict]int) map[results.Verdict]int {
	out := make(map[results.Verdict]int, len(results.Verdicts))
	for _, v := range results.Verdicts {
		if n, ok := m[v]; ok {
			out[v] = n
		}
	}
	return out
}

func capReasons(r []string) []string {
	if len(r) > maxCompletenessReasons {
		r = append(r[:maxCompletenessReasons-1:maxCompletenessReasons-1], fmt.Sprintf("and %d more reasons", len(r)-maxCompletenessReasons+1))
	}
	for i := range r {
		r[i] = truncate(r[i], maxSummaryTextBytes)
	}
	return r
}
