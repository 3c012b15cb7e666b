// Package gate judges a finished scan's results against its thresholds: the
// pass/fail answer a CI pipeline acts on. It knows nothing of Kubernetes
// beyond the API types it reads.
package gate

import (
	"fmt"
	"slices"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/results"
)

// Crossed lists, for people, each threshold the summary crosses with its
// figure, e.g. "critical issues 6 > 0"; none when it stays within them
// (or sets none). A nil summary has no pages and no issues.
func Crossed(t *cwacv1alpha1.Thresholds, s *cwacv1alpha1.ScanSummary) []string {
	if t == nil {
		return nil
	}
	if s == nil {
		s = &cwacv1alpha1.ScanSummary{}
	}
	var crossed []string
	if t.MaxTotalIssues != nil && s.TotalIssues > *t.MaxTotalIssues {
		crossed = append(crossed, fmt.Sprintf("total issues %d > %d", s.TotalIssues, *t.MaxTotalIssues))
	}
	keys := make([]string, 0, len(t.MaxIssuesByImpact))
	for k := range t.MaxIssuesByImpact {
		keys = append(keys, k)
	}
	// Worst first; unknown keys (the CRD refuses them) last.
	slices.SortFunc(keys, func(a, b string) int { return results.ImpactRank(a) - results.ImpactRank(b) })
	for _, impact := range keys {
		if limit, got := t.MaxIssuesByImpact[impact], s.IssuesByImpact[impact]; got > limit {
			crossed = append(crossed, fmt.Sprintf("%s issues %d > %d", impact, got, limit))
		}
	}
	if t.MaxNewIssues != nil && s.Diff != nil && s.Diff.New > *t.MaxNewIssues {
		crossed = append(crossed, fmt.Sprintf("new issues %d > %d (against %s)", s.Diff.New, *t.MaxNewIssues, s.Diff.Baseline))
	}
	if t.MinPagesScanned != nil && s.PagesScanned < *t.MinPagesScanned {
		crossed = append(crossed, fmt.Sprintf("pages scanned %d < %d", s.PagesScanned, *t.MinPagesScanned))
	}
	return crossed
}
