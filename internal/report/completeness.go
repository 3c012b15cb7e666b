package report

import (
	_ "embed" // the completeness section's template

	"github.com/a11y-dev/cwac-operator/internal/results"
)

// completenessTemplate is the "What was scanned" section.
//
//go:embed completeness.html.tmpl
var completenessTemplate string

// MaxCompletenessRows is how many organisations the section lists.
const MaxCompletenessRows = 200

// completenessView is the "What was scanned" section: how completely each
// organisation was scanned, incomplete ones first with their reasons.
type completenessView struct {
	Organisations, Complete, Incomplete int
	MaxPages                            int
	Rows                                []results.OrganisationCompleteness
	More                                int
	SitesNotJudged                      int
}

// completenessOf is the section for a summary's completeness (nil: none).
func completenessOf(c *results.Completeness) *completenessView {
	if c == nil {
		return nil
	}
	v := &completenessView{Complete: c.OrganisationsByVerdict[results.VerdictComplete], Incomplete: c.Incomplete(),
		MaxPages: c.MaxPagesPerSite, SitesNotJudged: c.SitesNotJudged}
	v.Organisations = v.Complete + v.Incomplete
	v.Rows = c.Organisations
	if len(v.Rows) > MaxCompletenessRows {
		v.Rows = v.Rows[:MaxCompletenessRows]
	}
	v.More = v.Organisations - len(v.Rows)
	return v
}
