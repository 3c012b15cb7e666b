package runner

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/a11y-dev/cwac-operator/internal/cireport"
	"github.com/a11y-dev/cwac-operator/internal/diff"
	"github.com/a11y-dev/cwac-operator/internal/report"
	"github.com/a11y-dev/cwac-operator/internal/results"
)

// compareWithBaseline compares the results in resultsDir with the baseline
// scan's in baselineDir (both CWAC results directories), writes the full
// comparison to resultsDir/diff.json and returns it: its counts for
// summary.json and status, and the ids it named the scan's issues by.
// baselineName is what the counts call the baseline (its CwacScan's name);
// namespace is the scan's, part of each new issue's id; covered (nil:
// none) says which of the scan's issues a decision covers, counted apart
// from the new ones (diff.Options.Covered); forReports (nil: none) is
// given each row as it is made, for the CI reports (cireport.Comparison),
// which then need not read diff.json back.
//
// Both directories are read through an os.Root, so a symlink planted in
// either cannot lead elsewhere. The rows are spooled to a hidden file in
// resultsDir (the results volume, not a memory-backed /tmp: a large scan's
// rows are hundreds of megabytes) and diff.json is renamed into place, so a
// reader never sees half a file. The comparison keeps its records in
// files there too, so its memory does not grow with the scans' issue rows.
// On error nothing is left behind.
func compareWithBaseline(ctx context.Context, baselineDir, resultsDir, baselineName, namespace string, covered func(diff.Finding) bool,
	forReports *cireport.Comparison) (*diff.Result, error) {
	baseRoot, err := os.OpenRoot(baselineDir)
	if err != nil {
		return nil, fmt.Errorf("opening the baseline's results: %w", err)
	}
	defer func() { _ = baseRoot.Close() }() // read only
	curRoot, err := os.OpenRoot(resultsDir)
	if err != nil {
		return nil, fmt.Errorf("opening the scan's results: %w", err)
	}
	defer func() { _ = curRoot.Close() }() // read only

	spool, err := os.CreateTemp(resultsDir, ".diff-rows-*")
	if err != nil {
		return nil, fmt.Errorf("creating the comparison's scratch file: %w", err)
	}
	defer func() {
		_ = spool.Close()           // scratch: its content is already copied, or not wanted
		_ = os.Remove(spool.Name()) // likewise
	}()
	rw := diff.NewRowWriter(spool)
	rows := rw.Write
	if forReports != nil {
		rows = func(r *diff.Row) error {
			forReports.Add(r) // what it cannot keep fails the CI reports, not the comparison
			return rw.Write(r)
		}
	}
	res, err := diff.Compare(ctx, baseRoot.FS(), curRoot.FS(), diff.Options{Baseline: baselineName, Rows: rows, Namespace: namespace,
		Covered: covered, SpillDir: resultsDir})
	if err != nil {
		return nil, fmt.Errorf("comparing with baseline %s: %w", baselineName, err)
	}
	if err := writeDiffDocument(resultsDir, res, rw, spool); err != nil {
		if res.IssueIDs != nil {
			_ = res.IssueIDs.Close() // the result is not returned
		}
		return nil, err
	}
	return res, nil
}

// writeDiffDocument writes diff.json from the comparison's rows, which rw
// wrote to spool.
func writeDiffDocument(resultsDir string, res *diff.Result, rw *diff.RowWriter, spool *os.File) error {
	if err := rw.Flush(); err != nil {
		return fmt.Errorf("writing the comparison's scratch file: %w", err)
	}
	if _, err := spool.Seek(0, 0); err != nil {
		return fmt.Errorf("reading the comparison's scratch file: %w", err)
	}
	return writeDiffFile(resultsDir, res, spool)
}

// scoreDrops are the organisations whose leaderboard score fell from the
// baseline's (its leaderboard.csv, read from baselineDir through an
// os.Root) to now, the scan's leaderboard as its report ranks it. A
// baseline whose leaderboard cannot be read gives none, logged: the
// comparison's counts stand without them.
func scoreDrops(baselineDir string, now []report.OrgScore, log *slog.Logger) []results.OrganisationScoreDrop {
	root, err := os.OpenRoot(baselineDir)
	if err != nil {
		log.Error("reading the baseline's leaderboard", "err", err)
		return nil
	}
	defer func() { _ = root.Close() }() // read only
	before, err := report.ReadLeaderboard(root.FS())
	if err != nil {
		log.Error("reading the baseline's leaderboard", "err", err)
		return nil
	}
	return report.ScoreDrops(now, before)
}

// writeDiffFile writes diff.json next to the results, atomically, 0644.
func writeDiffFile(resultsDir string, res *diff.Result, spool *os.File) (err error) {
	out, err := os.CreateTemp(resultsDir, ".diff-*.json")
	if err != nil {
		return fmt.Errorf("creating %s: %w", results.DiffFile, err)
	}
	defer func() {
		if err != nil {
			_ = out.Close()           // the write already failed: that error is the one to report
			_ = os.Remove(out.Name()) // likewise
		}
	}()
	if err := diff.WriteDocument(out, res, spool); err != nil {
		return fmt.Errorf("writing %s: %w", results.DiffFile, err)
	}
	if err := out.Chmod(0o644); err != nil {
		return fmt.Errorf("writing %s: %w", results.DiffFile, err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", results.DiffFile, err)
	}
	if err := os.Rename(out.Name(), filepath.Join(resultsDir, results.DiffFile)); err != nil {
		return fmt.Errorf("writing %s: %w", results.DiffFile, err)
	}
	return nil
}
