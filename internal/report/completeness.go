package report

import (
	_ "embed" // the completeness section's template
	"fmt"
	"strconv"

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

// verdictUnknown is the completeness of an organisation the summary does
// not name when some it does not name are incomplete.
const verdictUnknown results.Verdict = "unknown"

// unknownReason says why an organisation's completeness is not known: the
// summary names at most results.MaxCompletenessListed organisations,
// incomplete first, and more than that were incomplete.
var unknownReason = fmt.Sprintf("not known: more than %d organisations were not complete, and the scan's completeness names only %d",
	results.MaxCompletenessListed, results.MaxCompletenessListed)

// rankComplete ranks only the organisations that were scanned completely
// (c's verdicts), in their order, and puts the others after them unranked
// (Rank 0) with their verdicts and why: an organisation a firewall refused
// or challenged must not rank as if it were clean. An organisation c does
// not list is complete when c lists every incomplete one, else "unknown"
// and unranked. Without c (results summarised before completeness) rows
// stay as they are.
func rankComplete(rows []OrgScore, c *results.Completeness) []OrgScore {
	if c == nil {
		return rows
	}
	listed := make(map[string]results.OrganisationCompleteness, len(c.Organisations))
	listedIncomplete := 0
	for _, o := range c.Organisations {
		listed[o.Organisation] = o
		if o.Verdict != results.VerdictComplete {
			listedIncomplete++
		}
	}
	rest := results.OrganisationCompleteness{Verdict: results.VerdictComplete}
	if listedIncomplete < c.Incomplete() {
		rest = results.OrganisationCompleteness{Verdict: verdictUnknown, Reasons: []string{unknownReason}}
	}
	ranked, apart := make([]OrgScore, 0, len(rows)), []OrgScore{}
	for _, r := range rows {
		o, ok := listed[r.Organisation]
		if !ok {
			o = rest
		}
		v := o.Verdict
		r.Completeness, r.CompletenessReason = string(v), o.Reason()
		if v == results.VerdictComplete {
			ranked = append(ranked, r)
			continue
		}
		r.Rank = 0
		apart = append(apart, r)
	}
	for i := range ranked {
		if i > 0 && compareScores(ranked[i].Score, ranked[i-1].Score) == 0 {
			ranked[i].Rank = ranked[i-1].Rank
		} else {
			ranked[i].Rank = i + 1
		}
	}
	return append(ranked, apart...)
}

// rankCell is a rank for leaderboard.csv: empty for an unranked row.
func rankCell(rank int) string {
	if rank == 0 {
		return ""
	}
	return strconv.Itoa(rank)
}
