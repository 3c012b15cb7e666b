package results

// DiffCounts is how a scan's issues changed against a baseline scan, in the
// units of Summary (CWAC's num_issues). The diff package computes it; the
// full lists are in DiffFile next to the results.
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
}

// OrganisationChange is one organisation's share of DiffCounts.
type OrganisationChange struct {
	Organisation string `json:"organisation"`
	New          int64  `json:"new"`
	Fixed        int64  `json:"fixed"`
	Unchanged    int64  `json:"unchanged"`
}

// DiffFile is the file next to the results that lists every change.
const DiffFile = "diff.json"
