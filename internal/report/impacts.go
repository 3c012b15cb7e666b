package report

import (
	"slices"

	"github.com/a11y-dev/cwac-operator/internal/results"
)

// ImpactOther is the impact class of issues without one of axe-core's
// impacts: CWAC's own audits (reflow, focus indicator) and an impact axe
// does not define.
const ImpactOther = "other"

// impactClasses are the impact classes: axe-core's four, then other.
var impactClasses = append(results.Impacts(), ImpactOther)

// ImpactClasses lists the impact classes in ImpactCounts' order, as the
// report, the leaderboard, the issue history, the dashboard and the
// metrics name them: axe-core's four, then ImpactOther.
func ImpactClasses() []string { return slices.Clone(impactClasses) }

// impactIndex is an issue's place in impactClasses: an axe impact's rank,
// and any other impact (or none) is the last class, other.
func impactIndex(impact string) int { return results.ImpactRank(impact) }

// auditCriteria are the criteria of CWAC's own audits, whose rows carry no axe tags.
var auditCriteria = map[string]string{"reflow_audit": "1.4.10", "focus_indicator_audit": "2.4.7"}

// byImpact counts per impact class.
type byImpact [5]int64

func (b *byImpact) total() int64 {
	var t int64
	for _, n := range b {
		t += n
	}
	return t
}
