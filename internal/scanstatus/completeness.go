package scanstatus

import (
	"math"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// MaxIncompleteOrganisations is how many incomplete organisations status
// lists (the CRD's MaxItems); summary.json lists more.
const MaxIncompleteOrganisations = 20

// maxCompletenessReasonBytes bounds one organisation's reason in status.
const maxCompletenessReasonBytes = 512

// maxVerdicts is how many verdicts status counts (the CRD's MaxProperties).
const maxVerdicts = 4

func completenessToAPI(c *results.Completeness) *cwacv1alpha1.ScanCompleteness {
	if c == nil {
		return nil
	}
	out := &cwacv1alpha1.ScanCompleteness{
		OrganisationsByVerdict: verdictCounts(c.OrganisationsByVerdict),
		SitesByVerdict:         verdictCounts(c.SitesByVerdict),
		SitesNotJudged:         count32(c.SitesNotJudged),
	}
	for _, o := range c.IncompleteOrganisations(MaxIncompleteOrganisations) {
		out.Incomplete = append(out.Incomplete, cwacv1alpha1.OrganisationCompleteness{
			Organisation: textcap.Head(o.Organisation, maxCompletenessReasonBytes),
			Verdict:      string(o.Verdict),
			Reason:       textcap.Head(o.Reason(), maxCompletenessReasonBytes),
		})
	}
	return out
}

// verdictCounts keeps the four verdicts' counts (a report naming others is
// not trusted with them).
func verdictCounts(m map[results.Verdict]int) map[string]int32 {
	out := make(map[string]int32, maxVerdicts)
	for _, v := range results.Verdicts {
		if n := m[v]; n > 0 {
			out[string(v)] = int32(min(n, math.MaxInt32))
		}
	}
	return out
}

func completenessFromAPI(c *cwacv1alpha1.ScanCompleteness) *results.Completeness {
	if c == nil {
		return nil
	}
	out := &results.Completeness{
		OrganisationsByVerdict: map[results.Verdict]int{},
		SitesByVerdict:         map[results.Verdict]int{},
		Organisations:          []results.OrganisationCompleteness{},
		Sites:                  []results.SiteCompleteness{},
		SitesNotJudged:         int(c.SitesNotJudged),
	}
	for v, n := range c.OrganisationsByVerdict {
		out.OrganisationsByVerdict[results.Verdict(v)] = int(n)
	}
	for v, n := range c.SitesByVerdict {
		out.SitesByVerdict[results.Verdict(v)] = int(n)
	}
	for _, o := range c.Incomplete {
		oc := results.OrganisationCompleteness{Organisation: o.Organisation, Verdict: results.Verdict(o.Verdict)}
		if o.Reason != "" {
			oc.Reasons = []string{o.Reason}
		}
		out.Organisations = append(out.Organisations, oc)
	}
	return out
}
