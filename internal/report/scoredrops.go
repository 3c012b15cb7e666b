package report

import (
	"cmp"
	"context"
	"io/fs"
	"slices"
	"strings"

	"github.com/a11y-dev/cwac-operator/internal/results"
)

// ScoreDrops are the organisations whose leaderboard score fell from the
// baseline's leaderboard (before) to the scan's (now), largest fall first,
// then by name. Scores are compared as the leaderboard shows them (one
// decimal). An organisation is left out when either scan has no score for
// it, or either scan found it blocked or unreachable: such a score
// describes only what a firewall let through (the scan's incompleteness is
// reported on its own).
func ScoreDrops(now, before []OrgScore) []results.OrganisationScoreDrop {
	previous := make(map[string]OrgScore, len(before))
	for _, o := range before {
		previous[o.Organisation] = o
	}
	var out []results.OrganisationScoreDrop
	for _, o := range now {
		b, ok := previous[o.Organisation]
		if !ok || o.Score == nil || b.Score == nil ||
			!results.Verdict(o.Completeness).ScoreShown() || !results.Verdict(b.Completeness).ScoreShown() {
			continue
		}
		d := results.OrganisationScoreDrop{Organisation: o.Organisation, Previous: round1(*b.Score), Current: round1(*o.Score)}
		if d.Drop() > 0 {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b results.OrganisationScoreDrop) int {
		if c := cmp.Compare(b.Drop(), a.Drop()); c != 0 {
			return c
		}
		return strings.Compare(a.Organisation, b.Organisation)
	})
	return out
}

// RankedLeaderboard is the leaderboard of a results directory as its
// report ranks it: organisations not scanned completely (by the
// completeness judged from the results themselves) unranked and marked.
func RankedLeaderboard(ctx context.Context, fsys fs.FS) ([]OrgScore, error) {
	sb, b := results.NewSummaryBuilder(results.Options{MaxLinksPerDomain: results.MaxLinksOf(fsys)}), NewBuilder()
	if err := results.Walk(ctx, fsys, sb, b); err != nil {
		return nil, err
	}
	return rankComplete(b.Leaderboard(), sb.Summary().Completeness), nil
}

// RankedBoard is the builder's leaderboard ranked with summary's
// completeness, as report.html and leaderboard.csv show it.
func (b *Builder) RankedBoard(summary *results.Summary) []OrgScore {
	return rankComplete(b.Leaderboard(), summary.Completeness)
}
