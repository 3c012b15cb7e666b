package results

import "slices"

// axe-core's impacts, from worst.
const (
	ImpactCritical = "critical"
	ImpactSerious  = "serious"
	ImpactModerate = "moderate"
	ImpactMinor    = "minor"
)

// impacts is the one list of axe-core's impacts, worst first: every other
// package's list and order comes from Impacts and ImpactRank. The CRD's rule
// on spec.thresholds.maxIssuesByImpact (api/v1alpha1) writes the same four;
// a test there holds the generated CRD to this list.
var impacts = [...]string{ImpactCritical, ImpactSerious, ImpactModerate, ImpactMinor}

// Impacts returns axe-core's impacts, worst first (a new slice: callers may
// change it).
func Impacts() []string { return slices.Clone(impacts[:]) }

// ImpactRank orders impacts from the worst (critical, 0) to minor (3); no
// impact or any other comes after minor (4).
func ImpactRank(impact string) int {
	if i := slices.Index(impacts[:], impact); i >= 0 {
		return i
	}
	return len(impacts)
}
