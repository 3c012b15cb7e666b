// Package scanstatus is the one place where a scan's results meet the
// CwacScan API: it converts the results package's Summary (what the runner
// computes and writes to summary.json) to the compact summary kept in
// status, and back for readers that only have the status; and it decides
// how a scan ended (End) from what its Job and pod report, with no
// Kubernetes client, so every ending is a row of one table test. The
// controller writes status through it; the MCP server reads through it.
package scanstatus

import (
	"math"
	"strconv"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/results"
)

// ToAPI is the compact summary of s for status. Per-base-URL page counts and
// the list of audit files stay in summary.json; the duration is rounded to
// whole seconds.
func ToAPI(s *results.Summary) *cwacv1alpha1.ScanSummary {
	if s == nil {
		return nil
	}
	out := &cwacv1alpha1.ScanSummary{
		TotalIssues:       max(s.TotalIssues, 0),
		DecidedIssues:     max(s.DecidedIssues, 0),
		IssuesByAuditType: s.IssuesByAuditType,
		IssuesByImpact:    s.IssuesByImpact,
		Informational:     s.Informational,
		UrlsScanned:       count32(s.URLsScanned),
		PagesScanned:      count32(s.PagesScanned),
		UnscannedBaseURLs: s.UnscannedBaseURLs,
		DurationSeconds:   wholeSeconds(s.DurationSeconds),
		Diff:              diffToAPI(s.Diff),
		Completeness:      completenessToAPI(s.Completeness),
	}
	for _, v := range s.TopViolations {
		out.TopViolations = append(out.TopViolations, cwacv1alpha1.Violation(v))
	}
	return out
}

// The summary reaches status from the scan pod's termination report, which
// the operator does not trust with its figures: each is brought into its
// field's range instead of wrapping (1e308 seconds became -9.2e18).

// maxDurationSeconds is the longest duration status records (68 years,
// the most an int32 of seconds holds: far past any scan's deadline).
const maxDurationSeconds = math.MaxInt32

// wholeSeconds rounds a duration to whole seconds (half up) within 0 and
// maxDurationSeconds; NaN is 0.
func wholeSeconds(f float64) int64 {
	if math.IsNaN(f) || f < 0.5 {
		return 0
	}
	return int64(min(math.Round(f), maxDurationSeconds))
}

// count32 is a count within an int32 field: 0 when negative, the largest
// int32 when past it.
func count32(n int) int32 {
	return int32(min(max(n, 0), math.MaxInt32))
}

// maxDiffOrganisations is how many organisations status.summary.diff lists
// (the CRD's MaxItems); the rest stay in diff.json.
const maxDiffOrganisations = 50

func diffToAPI(d *results.DiffCounts) *cwacv1alpha1.ScanDiff {
	if d == nil {
		return nil
	}
	out := &cwacv1alpha1.ScanDiff{
		Baseline: d.Baseline, New: d.New, Fixed: d.Fixed, Unchanged: d.Unchanged, Unstable: d.Unstable,
		NewElements: d.NewElements, FixedElements: d.FixedElements,
		NewByImpact: d.NewByImpact, FixedByImpact: d.FixedByImpact,
		PagesAdded: d.PagesAdded, PagesRemoved: d.PagesRemoved, NewOnAddedPages: d.NewOnAddedPages, FixedOnRemovedPages: d.FixedOnRemovedPages,
	}
	for i, o := range d.ByOrganisation {
		if i == maxDiffOrganisations {
			break
		}
		out.ByOrganisation = append(out.ByOrganisation, cwacv1alpha1.OrganisationDiff(o))
	}
	for _, o := range d.ScoreDrops[:min(len(d.ScoreDrops), maxScoreDrops)] {
		out.ScoreDrops = append(out.ScoreDrops, cwacv1alpha1.OrganisationScoreDrop{
			Organisation: o.Organisation, PreviousScore: formatScore(o.Previous), Score: formatScore(o.Current)})
	}
	return out
}

// maxScoreDrops is how many score drops status.summary.diff lists (the
// CRD's MaxItems); the rest stay in summary.json.
const maxScoreDrops = 10

// formatScore writes a leaderboard score as the API holds it: one
// decimal, within 0-100 (the CRD's pattern).
func formatScore(f float64) string {
	return strconv.FormatFloat(min(max(f, 0), 100), 'f', 1, 64)
}

// ParseScore reads a score the API holds (OrganisationScoreDrop); ok is
// false when it is not one.
func ParseScore(s string) (float64, bool) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || !(f >= 0 && f <= 100) { // NaN is neither
		return 0, false
	}
	return f, true
}

func diffFromAPI(d *cwacv1alpha1.ScanDiff) *results.DiffCounts {
	if d == nil {
		return nil
	}
	out := &results.DiffCounts{
		Baseline: d.Baseline, New: d.New, Fixed: d.Fixed, Unchanged: d.Unchanged, Unstable: d.Unstable,
		NewElements: d.NewElements, FixedElements: d.FixedElements,
		NewByImpact: d.NewByImpact, FixedByImpact: d.FixedByImpact,
		PagesAdded: d.PagesAdded, PagesRemoved: d.PagesRemoved, NewOnAddedPages: d.NewOnAddedPages, FixedOnRemovedPages: d.FixedOnRemovedPages,
	}
	for _, o := range d.ByOrganisation {
		out.ByOrganisation = append(out.ByOrganisation, results.OrganisationChange(o))
	}
	for _, o := range d.ScoreDrops {
		prev, okPrev := ParseScore(o.PreviousScore)
		cur, okCur := ParseScore(o.Score)
		if okPrev && okCur {
			out.ScoreDrops = append(out.ScoreDrops, results.OrganisationScoreDrop{Organisation: o.Organisation, Previous: prev, Current: cur})
		}
	}
	return out
}

// FromAPI is the inverse of ToAPI, for a reader that has only the status
// (the results files are gone): what ToAPI dropped stays empty.
func FromAPI(s *cwacv1alpha1.ScanSummary) *results.Summary {
	if s == nil {
		return nil
	}
	out := &results.Summary{
		TotalIssues:       s.TotalIssues,
		DecidedIssues:     s.DecidedIssues,
		IssuesByAuditType: s.IssuesByAuditType,
		IssuesByImpact:    s.IssuesByImpact,
		Informational:     s.Informational,
		URLsScanned:       int(s.UrlsScanned),
		PagesScanned:      int(s.PagesScanned),
		UnscannedBaseURLs: s.UnscannedBaseURLs,
		DurationSeconds:   float64(s.DurationSeconds),
		Diff:              diffFromAPI(s.Diff),
		Completeness:      completenessFromAPI(s.Completeness),
	}
	for _, v := range s.TopViolations {
		out.TopViolations = append(out.TopViolations, results.Violation(v))
	}
	return out
}
