package scanpod

// The termination report: the compact JSON the runner writes to the
// container's termination message (TerminationLog), which the kubelet copies
// into the pod status for the operator to read. It is kept under the
// kubelet's 4 KiB limit and is always valid JSON, even when something had to
// be cut.

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// MaxBytes is the kubelet's limit on a termination message.
const MaxBytes = 4096

// Outcome is how a scan ended, as the runner saw it.
type Outcome string

const (
	// OutcomeComplete: CWAC exited 0 and every base URL yielded pages.
	OutcomeComplete Outcome = "complete"
	// OutcomePartial: CWAC exited 0, some base URLs yielded pages and some none.
	OutcomePartial Outcome = "partial"
	// OutcomeNoPages: CWAC exited 0 but scanned no page at all (unreachable
	// sites, or http:// URLs with only_allow_https).
	OutcomeNoPages Outcome = "no-pages-scanned"
	// OutcomeCWACFailed: CWAC exited non-zero.
	OutcomeCWACFailed Outcome = "cwac-failed"
	// OutcomeRunnerError: the runner could not prepare or run CWAC.
	OutcomeRunnerError Outcome = "runner-error"
	// OutcomeTerminated: the runner was told to stop (deadline, deletion).
	OutcomeTerminated Outcome = "terminated"
	// OutcomeResultsNotStored: the results bucket could not be used (not
	// reached, credentials refused, full, an upload cut off), before CWAC
	// ran or after: whatever CWAC did, the scan has no results to read.
	OutcomeResultsNotStored Outcome = "results-not-stored"
)

// Report is the termination message.
type Report struct {
	Outcome  Outcome `json:"outcome"`
	ExitCode int     `json:"exit_code"`
	// ResultsDir is CWAC's results directory name, relative to the scan's
	// directory on the results volume ("" when CWAC made none).
	ResultsDir string `json:"results_dir,omitempty"`
	// Message says what happened, for people.
	Message string `json:"message,omitempty"`
	// StderrTail is the end of CWAC's stderr (for a crash, its traceback).
	StderrTail string           `json:"stderr_tail,omitempty"`
	Summary    *results.Summary `json:"summary,omitempty"`
	// Baseline says why the results were not compared with the baseline the
	// scan was given (nil when they were, or when it had none).
	Baseline *BaselineProblem `json:"baseline,omitempty"`
	// BlockedByPolicy are the connections the pod's egress proxy refused
	// (nil: none), whether or not CWAC wrote results: at most
	// MaxReportedBlockedHosts hosts, without details (summary.json has the
	// whole record when there are results).
	BlockedByPolicy *results.BlockedConnections `json:"blocked_by_policy,omitempty"`
	// Truncated is set when something was cut to fit MaxBytes.
	Truncated bool `json:"truncated,omitempty"`
}

// BaselineProblem is a comparison with the baseline that could not be made.
// It says what the runner found, not a condition reason: the operator
// chooses the BaselineCompared condition's reason (api/v1alpha1, its one
// home) from it.
type BaselineProblem struct {
	// ResultsMissing: the baseline's results directory is empty or gone.
	// Otherwise the comparison itself failed.
	ResultsMissing bool   `json:"results_missing,omitempty"`
	Message        string `json:"message,omitempty"`
}

// MaxReportedBlockedHosts is how many refused hosts the report names.
const MaxReportedBlockedHosts = 5

// Encode renders m as JSON of at most limit bytes, cutting the least useful
// parts first: the per-base-URL list, then top violations, the stderr tail,
// the unscanned list and the message, and at last the summary itself.
// Refused hosts are cut to one early and to their count alone late.
func Encode(m Report, limit int) []byte {
	if m.Summary != nil {
		s := *m.Summary
		s.BaseURLs = nil // the full list lives in summary.json on the volume
		s.AuditFiles = nil
		s.Signals = nil         // templates, titles, responses, reading level: summary.json only
		s.BlockedByPolicy = nil // the report carries it beside the summary
		s.Completeness = completenessNaming(s.Completeness, MaxReportedIncomplete)
		s.Diff = diffWithScoreDrops(s.Diff, MaxReportedScoreDrops)
		m.Summary = &s
	}
	m.BlockedByPolicy = blockedNaming(m.BlockedByPolicy, MaxReportedBlockedHosts)
	if b := marshal(m); len(b) <= limit {
		return b
	}
	m.Truncated = true
	withSummary := func(f func(s *results.Summary)) func() {
		return func() {
			if m.Summary != nil {
				f(m.Summary)
			}
		}
	}
	steps := []func(){
		func() { m.BlockedByPolicy = blockedNaming(m.BlockedByPolicy, 1) },
		withSummary(func(s *results.Summary) { s.Diff = diffWithOrganisations(s.Diff, 10) }),
		func() { m.StderrTail = textcap.Tail(m.StderrTail, 1500) },
		withSummary(func(s *results.Summary) { s.TopViolations = cut(s.TopViolations, 5) }),
		withSummary(func(s *results.Summary) { s.UnscannedBaseURLs = cut(s.UnscannedBaseURLs, 5) }),
		withSummary(func(s *results.Summary) { s.Completeness = completenessNaming(s.Completeness, 3) }),
		func() { m.Message = textcap.Head(m.Message, 512) },
		func() { m.StderrTail = textcap.Tail(m.StderrTail, 512) },
		withSummary(func(s *results.Summary) { s.TopViolations = nil }),
		withSummary(func(s *results.Summary) { s.UnscannedBaseURLs = cut(s.UnscannedBaseURLs, 1) }),
		withSummary(func(s *results.Summary) { s.Completeness = completenessNaming(s.Completeness, 0) }),
		withSummary(func(s *results.Summary) { s.Diff = diffWithOrganisations(s.Diff, 0) }),
		withSummary(func(s *results.Summary) { s.IssuesByAuditType = nil; s.Informational = nil }),
		func() { m.BlockedByPolicy = blockedNaming(m.BlockedByPolicy, 0) },
		func() { m.StderrTail = textcap.Tail(m.StderrTail, 128); m.Message = textcap.Head(m.Message, 128) },
		func() { m.Summary = nil },
		func() {
			m.StderrTail = ""
			m.Message = textcap.Head(m.Message, 64)
			m.ResultsDir = textcap.Head(m.ResultsDir, 256)
		},
	}
	for _, step := range steps {
		step()
		if b := marshal(m); len(b) <= limit {
			return b
		}
	}
	return marshal(Report{Outcome: m.Outcome, ExitCode: m.ExitCode, Truncated: true})
}

// Decode parses a termination message. ok is false when the text is not a
// runner message (for example the log tail the kubelet substitutes when the
// container crashed before writing one).
func Decode(text string) (Report, bool) {
	var m Report
	text = strings.TrimSpace(text)
	if !strings.HasPrefix(text, "{") {
		return Report{}, false
	}
	if err := json.Unmarshal([]byte(text), &m); err != nil || m.Outcome == "" {
		return Report{}, false
	}
	return m, true
}

func marshal(m Report) []byte {
	b, err := json.Marshal(m)
	if err != nil {
		// Only unmarshalable values (NaN) could get here; report that instead.
		b, _ = json.Marshal(Report{Outcome: m.Outcome, ExitCode: m.ExitCode, Message: fmt.Sprintf("encoding report: %v", err), Truncated: true})
	}
	return b
}

// diffWithOrganisations is d listing at most n organisations in its
// changes and its score drops (the full lists are in diff.json and
// summary.json), without changing the caller's copy.
func diffWithOrganisations(d *results.DiffCounts, n int) *results.DiffCounts {
	return diffWithScoreDrops(diffCut(d, n, func(c *results.DiffCounts) *[]results.OrganisationChange { return &c.ByOrganisation }), n)
}

// MaxReportedScoreDrops is how many organisations whose score fell the
// report names, largest fall first (summary.json lists every one).
const MaxReportedScoreDrops = 10

// diffWithScoreDrops is d listing at most n score drops, without changing
// the caller's copy.
func diffWithScoreDrops(d *results.DiffCounts, n int) *results.DiffCounts {
	return diffCut(d, n, func(c *results.DiffCounts) *[]results.OrganisationScoreDrop { return &c.ScoreDrops })
}

// diffCut is d with the list list picks cut to n entries (nil at 0),
// copied when it changes.
func diffCut[T any](d *results.DiffCounts, n int, list func(*results.DiffCounts) *[]T) *results.DiffCounts {
	if d == nil || len(*list(d)) <= n {
		return d
	}
	c := *d
	l := list(&c)
	*l = cut(*l, n)
	if n == 0 {
		*l = nil
	}
	return &c
}

// MaxReportedIncomplete is how many incomplete organisations the report
// names (summary.json on the volume lists every site).
const MaxReportedIncomplete = 10

// maxReportedReasonBytes bounds an organisation's reason in the report.
const maxReportedReasonBytes = 200

// completenessNaming is c with its counts, naming at most n incomplete
// organisations with their first reason and no sites, without changing
// the caller's copy.
func completenessNaming(c *results.Completeness, n int) *results.Completeness {
	if c == nil {
		return nil
	}
	out := &results.Completeness{
		MaxPagesPerSite: c.MaxPagesPerSite, OrganisationsByVerdict: c.OrganisationsByVerdict, SitesByVerdict: c.SitesByVerdict,
		SitesNotJudged: c.SitesNotJudged, PagesNotJudged: c.PagesNotJudged,
	}
	for _, o := range c.IncompleteOrganisations(n) {
		o.Reasons = cut(o.Reasons, 1)
		if len(o.Reasons) == 1 {
			o.Reasons = []string{textcap.Head(o.Reasons[0], maxReportedReasonBytes)}
		}
		o.Organisation = textcap.Head(o.Organisation, maxReportedReasonBytes)
		out.Organisations = append(out.Organisations, o)
	}
	return out
}

// blockedNaming is b naming at most n hosts, without details, without
// changing the caller's copy.
func blockedNaming(b *results.BlockedConnections, n int) *results.BlockedConnections {
	if b == nil {
		return nil
	}
	c := &results.BlockedConnections{Total: b.Total}
	for _, h := range cut(b.Hosts, n) {
		h.Detail = ""
		c.Hosts = append(c.Hosts, h)
	}
	return c
}

func cut[T any](s []T, n int) []T {
	if len(s) > n {
		return s[:n]
	}
	return s
}
