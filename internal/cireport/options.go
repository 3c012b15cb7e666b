package cireport

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/decision"
	"github.com/a11y-dev/cwac-operator/internal/diff"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// Options are what a report says beyond the results.
type Options struct {
	// Scan is the scan's name, written into both reports.
	Scan string
	// Baseline names the scan compared with; diff.json's own name is used
	// when empty.
	Baseline string
	// Thresholds are the scan's spec.thresholds, as name and value, written
	// as they are (JUnit properties, SARIF run properties).
	Thresholds []scanpod.Threshold
	// FailAt is the least impact that fails a JUnit test case and makes a
	// SARIF result an error: critical, serious, moderate or minor. Empty is
	// DefaultFailAt.
	FailAt string
	// Namespace is the scan's namespace, part of each new issue's id
	// (diff.IssueID).
	Namespace string
	// IssueIDs are the ids of the axe audit's issue rows in file order, as
	// the comparison with the baseline named them (diff.Result.IssueIDs);
	// nil: the results directory's diff.IssueIDsFile, else new ids.
	IssueIDs *diff.IssueIDList
	// Comparison is the comparison with the baseline as it was made (nil:
	// the results directory's diff.json, when there is one, is read for
	// the baseline states and the fixed issues).
	Comparison *Comparison
	// ToolVersion is the CWAC image or operator version, when known.
	ToolVersion string
	// MaxResults caps SARIF results (0: DefaultMaxResults).
	MaxResults int
	// MaxTestCases caps JUnit test cases (0: DefaultMaxTestCases).
	MaxTestCases int
	// Decisions are the decisions the scan was given (nil: none), applied
	// as of DecidedAt: a covered issue is a suppressed SARIF result with
	// the decision's reason as its justification.
	Decisions *decision.Set
	DecidedAt time.Time
}

// covering is the decision that covers the named issue (nil: none, or a
// row with no issue). The element is the hash of its whole HTML cell, as
// the history keeps it, not of the cut copy the reports show.
func (o Options) covering(is *issue) *decision.Decision {
	if o.Decisions == nil || is.issues <= 0 {
		return nil
	}
	d, _ := o.Decisions.Covering(decision.Finding{Namespace: o.Namespace, Organisation: is.organisation, ID: is.id,
		Element: is.parts.HTML, Rule: is.rule, URL: is.url}, o.DecidedAt)
	return d
}

// withKeptDecisions is opts with the decisions the scan kept beside its
// results (scanpod.DecisionsFile, as of their instant) when opts gives
// none: a report built later from the results (at another fail-at impact)
// judges by what the scan's own reports judged by. A kept file that cannot
// be read is an error, not a report that counts decided issues as failures.
func (o Options) withKeptDecisions(fsys fs.FS) (Options, error) {
	if o.Decisions != nil {
		return o, nil
	}
	f, err := fsys.Open(scanpod.DecisionsFile)
	if errors.Is(err, fs.ErrNotExist) {
		return o, nil
	}
	if err != nil {
		return o, fmt.Errorf("the scan's kept decisions: %w", err)
	}
	defer func() { _ = f.Close() }() // read only
	ds, at, err := scanpod.ReadDecisions(f, o.Namespace)
	if err != nil {
		return o, fmt.Errorf("the scan's kept decisions: %w", err)
	}
	o.Decisions, o.DecidedAt = decision.NewSet(ds), at
	return o, nil
}

// Defaults.
const (
	// DefaultFailAt fails what axe calls serious or worse.
	DefaultFailAt = results.ImpactSerious
	// DefaultMaxResults is GitHub code scanning's limit of results per run.
	DefaultMaxResults = 25000
	// DefaultMaxTestCases keeps a JUnit report readable by CI viewers.
	DefaultMaxTestCases = 10000
)

// failRank is the rank (results.ImpactRank) of the least impact that fails.
func (o Options) failRank() (int, error) {
	if o.FailAt == "" {
		return results.ImpactRank(DefaultFailAt), nil
	}
	r := results.ImpactRank(o.FailAt)
	if r >= len(results.Impacts()) {
		return 0, fmt.Errorf("fail-at impact %q is not one of %s", textcap.Head(o.FailAt, 64), strings.Join(results.Impacts(), ", "))
	}
	return r, nil
}

func (o Options) maxResults() int {
	if o.MaxResults > 0 {
		return o.MaxResults
	}
	return DefaultMaxResults
}

func (o Options) maxTestCases() int {
	if o.MaxTestCases > 0 {
		return o.MaxTestCases
	}
	return DefaultMaxTestCases
}

// The files the runner writes beside summary.json.
const (
	SARIFFile = "results.sarif"
	JUnitFile = "junit.xml"
)

// FailAtParameter is the query parameter that asks the MCP server for a
// scan's SARIFFile or JUnitFile at another FailAt than the default
// (cwac://scans/{namespace}/{scan}/junit.xml?fail_at=moderate): the server
// reads it, kubectl cwac results --fail-at sends it.
const FailAtParameter = "fail_at"
