// Package gate judges a finished scan's results against its thresholds: the
// pass/fail answer a CI pipeline acts on. It knows nothing of Kubernetes
// beyond the API types it reads.
package gate

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
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
	if t.RequireComplete {
		if j, why := Completeness(s.Completeness); j != Complete {
			crossed = append(crossed, why)
		}
	}
	return crossed
}

// NamedThresholds lists the thresholds t sets, each named as spec.thresholds
// spells it (a maximum by impact as maxIssuesByImpact.<impact>), with its
// value, in the spec's order and impacts worst first: what the CI reports
// carry (scanpod.Threshold, cireport.Options.Thresholds). The Job builder hands them to the
// runner and the MCP server to the reports it builds, so both name them
// alike. Keys the CRD refuses (an impact axe does not have) are left out.
func NamedThresholds(t *cwacv1alpha1.Thresholds) []scanpod.Threshold {
	if t == nil {
		return nil
	}
	var out []scanpod.Threshold
	if t.MaxTotalIssues != nil {
		out = append(out, scanpod.Threshold{Name: "maxTotalIssues", Value: strconv.FormatInt(*t.MaxTotalIssues, 10)})
	}
	if t.MaxNewIssues != nil {
		out = append(out, scanpod.Threshold{Name: "maxNewIssues", Value: strconv.FormatInt(*t.MaxNewIssues, 10)})
	}
	for _, impact := range results.Impacts() {
		if limit, ok := t.MaxIssuesByImpact[impact]; ok {
			out = append(out, scanpod.Threshold{Name: "maxIssuesByImpact." + impact, Value: strconv.FormatInt(limit, 10)})
		}
	}
	if t.MinPagesScanned != nil {
		out = append(out, scanpod.Threshold{Name: "minPagesScanned", Value: strconv.FormatInt(int64(*t.MinPagesScanned), 10)})
	}
	if t.RequireComplete {
		out = append(out, scanpod.Threshold{Name: "requireComplete", Value: "true"})
	}
	return out
}

// MaxNamedIncomplete is how many incomplete organisations a verdict names.
const MaxNamedIncomplete = 5

// maxIncompleteBytes bounds the text naming them.
const maxIncompleteBytes = 2048

// Completeness judges a scan's completeness: Complete (every organisation
// complete), Incomplete (some are not) or Unknown (not reported, no
// organisation judged, or sites past the reader's bound), with a text for
// people: for Incomplete, the first MaxNamedIncomplete organisations with
// their verdicts and reasons, and how many more.
func Completeness(c *cwacv1alpha1.ScanCompleteness) (Judgement, string) {
	if c == nil {
		return Unknown, "completeness not known: the scan pod did not report it"
	}
	incomplete, complete := int64(0), int64(0)
	for v, n := range c.OrganisationsByVerdict {
		if v == string(results.VerdictComplete) {
			complete += int64(n)
		} else {
			incomplete += int64(n)
		}
	}
	switch {
	case incomplete == 0 && c.SitesNotJudged > 0:
		return Unknown, fmt.Sprintf("completeness not known for %d sites past the results reader's bound", c.SitesNotJudged)
	case incomplete == 0 && complete == 0:
		return Unknown, "completeness not known: no organisation was judged"
	case incomplete == 0:
		return Complete, fmt.Sprintf("every organisation was scanned completely (%d)", complete)
	}
	named := make([]string, 0, MaxNamedIncomplete)
	for _, o := range c.Incomplete {
		if len(named) == MaxNamedIncomplete {
			break
		}
		part := o.Organisation + " (" + o.Verdict
		if o.Reason != "" {
			part += ": " + o.Reason
		}
		named = append(named, part+")")
	}
	text := fmt.Sprintf("organisations not complete (%d of %d)", incomplete, incomplete+complete)
	if len(named) > 0 {
		text += ": " + strings.Join(named, "; ")
		if more := incomplete - int64(len(named)); more > 0 {
			text += fmt.Sprintf("; and %d more", more)
		}
	}
	return Incomplete, textcap.Head(text, maxIncompleteBytes)
}

// Judgement is what Completeness decided.
type Judgement int

// The judgements of Completeness.
const (
	Unknown Judgement = iota
	Complete
	Incomplete
)

// String is the judgement in one word: unknown, complete or incomplete.
func (j Judgement) String() string {
	switch j {
	case Complete:
		return string(results.VerdictComplete)
	case Incomplete:
		return "incomplete"
	default:
		return "unknown"
	}
}
