package runner

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/a11y-dev/cwac-operator/internal/cireport"
	"github.com/a11y-dev/cwac-operator/internal/diff"
	"github.com/a11y-dev/cwac-operator/internal/report"
	"github.com/a11y-dev/cwac-operator/internal/results"
)

// ciReportOptions is what the runner's CI reports say of the scan beyond
// its results, from what the Job builder told the runner: the CwacScan's
// name (CWAC's audit name when it was not told one) and namespace (part of
// each new issue's id), the baseline compared with, the scan's thresholds
// and the CWAC image as the tool's version; and the scan's decisions, as
// of their instant.
func ciReportOptions(cfg Config, auditName string) cireport.Options {
	scan := cfg.ScanName
	if scan == "" {
		scan = auditName
	}
	return cireport.Options{Scan: scan, Namespace: cfg.ScanNamespace, Baseline: cfg.BaselineName, Thresholds: cfg.Thresholds,
		ToolVersion: cfg.CWACImage, Decisions: cfg.decisions.set, DecidedAt: cfg.decisions.at}
}

// ciReports builds results.sarif and junit.xml beside summary.json, for CI
// systems (see docs/ci.md), from the same read of the results as the
// summary (cireport.Reports is one of the walk's visitors), and keeps the
// ids the reports named the issues by as the scan's diff.IssueIDsFile, for
// the next scan compared with this one to carry forward. SARIF and the ids
// are streamed into hidden files as the rows are read, JUnit written at
// the end, each renamed into place once whole, so a reader never sees half
// a file; one that cannot be written is logged, and the scan's results
// stand without it.
type ciReports struct {
	dir   string
	log   *slog.Logger
	sarif *os.File // the hidden file SARIF is streamed into
	ids   *os.File // the hidden file the issue ids are streamed into
	// spool keeps the ids named while the walk runs (cireport.Spool),
	// removed once it ends; nil: they are kept in memory.
	spool   *os.File
	reports *cireport.Reports
}

// startCIReports opens the hidden files and starts both reports; nil
// (logged) when they cannot be, and the walk goes on without them.
func startCIReports(dir string, opts cireport.Options, log *slog.Logger) *ciReports {
	f, err := createHidden(filepath.Join(dir, cireport.SARIFFile))
	if err != nil {
		log.Error("writing a CI report", "file", cireport.SARIFFile, "err", err)
		return nil
	}
	ids, err := createHidden(filepath.Join(dir, diff.IssueIDsFile))
	if err != nil {
		discardHidden(f)
		log.Error("writing the issues' ids", "file", diff.IssueIDsFile, "err", err)
		return nil
	}
	c := &ciReports{dir: dir, log: log, sarif: f, ids: ids}
	var spool cireport.Spool // nil, not a nil *os.File: the ids then stay in memory
	if s, err := createHidden(filepath.Join(dir, diff.IssueIDsFile+".spool")); err != nil {
		log.Info("the issues' ids are kept in memory while they are named", "err", err)
	} else {
		c.spool, spool = s, s
	}
	if c.reports, err = cireport.NewReports(f, ids, spool, os.DirFS(dir), opts); err != nil {
		c.discard()
		log.Error("writing the CI reports", "err", err)
		return nil
	}
	return c
}

// discard removes every hidden file: the reports are not kept.
func (c *ciReports) discard() {
	discardHidden(c.sarif)
	discardHidden(c.ids)
	c.dropSpool()
}

// dropSpool removes the spool, needed only while the walk runs.
func (c *ciReports) dropSpool() {
	if c.spool != nil {
		discardHidden(c.spool)
		c.spool = nil
	}
}

// visitors are the walk's visitors for the CI reports, the summary and
// the HTML report: the CI reports first, which name each row and judge
// whether a decision covers it, then the summary and the report builder,
// told of what they judged (judged). When the CI reports did not start,
// the summary and the report builder alone, and nothing is judged
// decided: every issue is counted, none hidden.
func (c *ciReports) visitors(s *results.SummaryBuilder, b *report.Builder) []results.RowVisitor {
	if c == nil {
		return []results.RowVisitor{s, b}
	}
	return []results.RowVisitor{c.reports, judged{decidedBuilder: s, judge: c.reports}, judged{decidedBuilder: b, judge: c.reports}}
}

// finish ends both reports once the walk has read every row, and puts each
// in place; walked says whether the walk read them all (else neither is kept).
func (c *ciReports) finish(ctx context.Context, walked bool) {
	if c == nil {
		return
	}
	if !walked {
		c.discard()
		return
	}
	c.dropSpool()
	var junit bytes.Buffer
	if err := c.reports.Finish(ctx, &junit); err != nil {
		c.discard()
		c.log.Error("writing the CI reports", "err", err)
		return
	}
	if err := commitHidden(c.sarif, filepath.Join(c.dir, cireport.SARIFFile)); err != nil {
		c.log.Error("writing a CI report", "file", cireport.SARIFFile, "err", err)
	}
	if err := writeStreamed(filepath.Join(c.dir, cireport.JUnitFile), func(w io.Writer) error {
		_, err := junit.WriteTo(w)
		return err
	}); err != nil {
		c.log.Error("writing a CI report", "file", cireport.JUnitFile, "err", err)
	}
	err := c.reports.FinishIssueIDs()
	if err == nil {
		err = commitHidden(c.ids, filepath.Join(c.dir, diff.IssueIDsFile))
	} else {
		discardHidden(c.ids)
	}
	if err != nil {
		c.log.Error("writing the issues' ids: the next scan's ids start afresh", "file", diff.IssueIDsFile, "err", err)
	}
}

// writeStreamed writes path through write into path's hidden temporary file,
// renamed over path once whole; on error nothing is left behind.
func writeStreamed(path string, write func(io.Writer) error) error {
	f, err := createHidden(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		discardHidden(f)
		return err
	}
	return commitHidden(f, path)
}

// createHidden creates path's hidden temporary file beside it.
func createHidden(path string) (*os.File, error) {
	return os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
}

// discardHidden closes and removes a hidden file: nothing half-written stays.
func discardHidden(f *os.File) {
	_ = f.Close() // already failing
	_ = os.Remove(f.Name())
}

// commitHidden makes a whole hidden file readable and renames it over path;
// on error it is removed.
func commitHidden(f *os.File, path string) (err error) {
	defer func() {
		if err != nil {
			discardHidden(f)
		}
	}()
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
