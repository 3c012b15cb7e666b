package results

import (
	"fmt"
	"math"
)

// DiffCounts is how a scan's issues changed against a baseline scan, in the
// units of Summary (CWAC's num_issues). The diff package computes it; the
// full lists are in DiffFile next to the results.
//
// For every comparison: the baseline's issues = Fixed + Unchanged + its
// unstable issues, and the scan's issues = New + Unchanged + its unstable
// issues (Unstable is both sides together).
type DiffCounts struct {
	// Baseline names what was compared with (the baseline CwacScan, or its
	// results directory for hand-run results).
	Baseline  string `json:"baseline"`
	New       int64  `json:"new"`
	Fixed     int64  `json:"fixed"`
	Unchanged int64  `json:"unchanged"`
	// Unstable counts issues of rows CWAC produces only sometimes, on either
	// side: never reported as new or fixed.
	Unstable int64 `json:"unstable,omitempty"`
	// NewElements and FixedElements count an element found at several
	// viewports once.
	NewElements    int64                `json:"new_elements,omitempty"`
	FixedElements  int64                `json:"fixed_elements,omitempty"`
	NewByImpact    map[string]int64     `json:"new_by_impact,omitempty"`
	FixedByImpact  map[string]int64     `json:"fixed_by_impact,omitempty"`
	ByOrganisation []OrganisationChange `json:"by_organisation,omitempty"`
	// ScoreDrops are the organisations whose leaderboard score fell against
	// the baseline, largest fall first (report.ScoreDrops).
	ScoreDrops []OrganisationScoreDrop `json:"score_drops,omitempty"`
	// PagesAdded and PagesRemoved count page URLs scanned by only one of the
	// two scans. Their issues are in New and Fixed too; NewOnAddedPages and
	// FixedOnRemovedPages say how many of them, so a deleted page is not
	// mistaken for fixes.
	PagesAdded          int64 `json:"pages_added,omitempty"`
	PagesRemoved        int64 `json:"pages_removed,omitempty"`
	NewOnAddedPages     int64 `json:"new_on_added_pages,omitempty"`
	FixedOnRemovedPages int64 `json:"fixed_on_removed_pages,omitempty"`
}

// OrganisationChange is one organisation's share of DiffCounts.
type OrganisationChange struct {
	Organisation string `json:"organisation"`
	New          int64  `json:"new"`
	Fixed        int64  `json:"fixed"`
	Unchanged    int64  `json:"unchanged"`
	// NewByImpact maps axe-core's impacts (Impacts) to the organisation's
	// new issues; issues with no impact or another are in New only.
	NewByImpact map[string]int64 `json:"new_by_impact,omitempty"`
}

// OrganisationScoreDrop is one organisation's leaderboard score (0-100,
// one decimal) in the baseline and in the scan.
type OrganisationScoreDrop struct {
	Organisation string  `json:"organisation"`
	Previous     float64 `json:"previous"`
	Current      float64 `json:"current"`
}

// Drop is how many points the score fell, to one decimal.
func (d OrganisationScoreDrop) Drop() float64 { return math.Round((d.Previous-d.Current)*10) / 10 }

// DiffFile is the file next to the results that lists every change.
const DiffFile = "diff.json"

// ParseNumIssues reads a num_issues cell as Summarize counts it (a whole
// number, possibly written as a float by pandas; empty is 0), so that a
// comparison counts exactly the issues the summaries count.
func ParseNumIssues(v string) (int64, error) {
	n, err := ParseCount(v)
	if err != nil {
		return 0, fmt.Errorf("num_issues %w", err)
	}
	return n, nil
}
