package dashboard

import (
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/store"
)

// shownScore is the score the dashboard shows and exports for an
// organisation's figures in one scan, the one place that choice is made:
// none when that scan's verdict on it is blocked or unreachable, because
// those figures are the firewall's or the error page's, not the site's
// (docs/completeness.md); the reason is shown beside it wherever the
// verdict is. A partial scan keeps its score: it is real but incomplete,
// and is not ranked. The store keeps the recorded score unchanged.
func shownScore(score *float64, completeness string) *float64 {
	if !results.Verdict(completeness).ScoreShown() {
		return nil
	}
	return score
}

// shownTrend applies shownScore to each point, in place.
func shownTrend(points []store.TrendPoint) {
	for i := range points {
		points[i].Score = shownScore(points[i].Score, points[i].Completeness)
	}
}
