package cireport

import (
	"context"
	"fmt"
	"io"
	"io/fs"

	"github.com/a11y-dev/cwac-operator/internal/decision"
	"github.com/a11y-dev/cwac-operator/internal/diff"
	"github.com/a11y-dev/cwac-operator/internal/results"
)

// Reports builds both CI formats from the runner's one read of a scan's
// results: it is a results.RowVisitor, added to the walk that builds the
// summary, the row index and the HTML report, so the axe audit is read and
// each of its rows parsed once for all of them. SARIF's results are
// streamed out as the rows come; JUnit's test cases (bounded by
// Options.MaxTestCases) are written by Finish.
//
// A row either format cannot read does not stop the walk (the summary and
// the report stand without the CI reports): Reports keeps the first such
// error, reads no further rows, and Finish returns it.
type Reports struct {
	sarif  *sarifWriter
	junit  *junitBuilder
	parser issueParser
	names  *rowNamer
	jopts  Options // the options JUnit is written with (the baseline named)
	rows   int
	err    error
	// last is the decision covering the axe row read last (nil: none).
	last *decision.Decision
}

// NewReports starts both reports for the results directory fsys; when the
// scan was compared with a baseline, opts.Comparison (else fsys's
// diff.json) gives each SARIF result its baseline state; SARIF is written to sarif from the first row,
// and the ids the issue rows are named by to issueIDs (as the scan's
// diff.IssueIDsFile) as they are named. The ids named with none known are
// also kept in spool while the walk runs (nil: in memory, 16 bytes each).
func NewReports(sarif, issueIDs io.Writer, spool Spool, fsys fs.FS, opts Options) (*Reports, error) {
	names, err := namesFor(fsys, opts, issueIDs, spool)
	if err != nil {
		return nil, err
	}
	sw, err := newSARIFWriter(sarif, fsys, opts)
	if err != nil {
		names.close()
		return nil, err
	}
	jopts := opts
	if jopts.Baseline == "" && sw.base != nil {
		jopts.Baseline = sw.base.name
	}
	return &Reports{sarif: sw, junit: newJUnitBuilder(opts, sw.failRank), jopts: jopts, names: names}, nil
}

// VisitRow implements results.RowVisitor: each row of the axe audit is one
// issue of both reports; other files are not theirs.
func (r *Reports) VisitRow(file string, rd *results.Reader, row results.Row) error {
	r.last = nil
	if file != AxeAuditFile || r.err != nil {
		return nil
	}
	r.rows++
	is, err := r.parser.parse(rd, row)
	if err == nil {
		if err = r.names.name(is); err == nil {
			is.decision = r.jopts.covering(is)
			r.last = is.decision
			err = r.sarif.issue(is)
		}
	}
	if err != nil {
		r.err = fmt.Errorf("%s: row %d: %w", AxeAuditFile, r.rows, err)
		return nil
	}
	r.junit.add(is)
	return nil
}

// Decision is the decision that covers the issue of the row the walk has
// just passed to VisitRow (nil: none, or a row without issues): the
// runner asks it of every row, so that the summary and the HTML report
// leave out exactly what the CI reports mark decided. An axe row is judged
// by its id as VisitRow named it; a row of CWAC's other audits (which have
// no ids) by its organisation, page and audit, so only rule decisions
// cover it. Once a row could not be read, no axe row is judged decided
// again (its id is unknown): the issues are counted, never hidden.
func (r *Reports) Decision(file string, rd *results.Reader, row results.Row) *decision.Decision {
	if file == AxeAuditFile || r.jopts.Decisions == nil {
		return r.last
	}
	audit, ok := results.AuditName(file)
	if !ok || !rd.Has("num_issues") {
		return nil
	}
	if n, err := results.ParseNumIssues(row.Get("num_issues")); err != nil || n <= 0 {
		return nil
	}
	d, _ := r.jopts.Decisions.Covering(decision.Finding{Namespace: r.jopts.Namespace, Organisation: row.Get("organisation"),
		Element: diff.ElementHash(row.Get("html")), Rule: diff.RuleOf(audit, row.Get("id")), URL: row.Get("url")}, r.jopts.DecidedAt)
	return d
}

// Finish ends SARIF (the baseline's fixed issues, then the rules) and
// writes JUnit to junit. It returns the first error met reading the rows
// or writing either report; the caller then keeps neither.
func (r *Reports) Finish(ctx context.Context, junit io.Writer) error {
	r.names.close()
	if r.err != nil {
		return r.err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := r.sarif.end(); err != nil {
		return err
	}
	return r.junit.write(junit, r.jopts)
}

// FinishIssueIDs writes out the ids of the axe audit's issue rows still
// buffered: once Finish succeeds, issueIDs holds every row's, in file order
// (whether SARIF lists it or not). Its error is the ids' writer's alone:
// the reports stand without them.
func (r *Reports) FinishIssueIDs() error { return r.names.flush() }
