package runner

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/cireport"
	"github.com/a11y-dev/cwac-operator/internal/decision"
	"github.com/a11y-dev/cwac-operator/internal/diff"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

// scanDecisions are the decisions the operator gave the scan
// (scanpod.DecisionsFile) and the instant they apply as of. The zero
// value decides nothing: a scan without the file.
type scanDecisions struct {
	set   *decision.Set
	at    time.Time
	count int
	// raw is the file as read, kept beside the results (keep).
	raw []byte
}

// maxConfigMapBytes is the most a ConfigMap holds, so the most its
// decisions file can be (scanpod.ReadDecisions bounds it more closely).
const maxConfigMapBytes = 1 << 20

// readDecisions reads the scan's decisions from its ConfigMap, mounted at
// dir, for the scan's namespace. A ConfigMap without the file gives none; a
// file that cannot be read is an error (the scan would otherwise count
// what its decisions leave out, and gate on it).
func readDecisions(dir, namespace string) (scanDecisions, error) {
	f, err := os.Open(filepath.Join(dir, scanpod.DecisionsFile))
	if errors.Is(err, fs.ErrNotExist) {
		return scanDecisions{}, nil
	}
	if err != nil {
		return scanDecisions{}, fmt.Errorf("reading the scan's decisions: %w", err)
	}
	defer func() { _ = f.Close() }() // read only
	raw, err := io.ReadAll(io.LimitReader(f, maxConfigMapBytes+1))
	if err != nil {
		return scanDecisions{}, fmt.Errorf("reading the scan's decisions: %w", err)
	}
	ds, at, err := scanpod.ReadDecisions(bytes.NewReader(raw), namespace)
	if err != nil {
		return scanDecisions{}, err
	}
	return scanDecisions{set: decision.NewSet(ds), at: at, count: len(ds), raw: raw}, nil
}

// keep writes the scan's decisions beside its results as it read them
// (scanpod.DecisionsFile), so that what reads the results later (the
// history's ingest, CI reports built again) judges by the decisions the
// scan judged by. Nothing without decisions; a file that cannot be written
// is logged, and the history then counts every issue.
func (d scanDecisions) keep(dir string, log *slog.Logger) {
	if d.raw == nil {
		return
	}
	if err := writeStreamed(filepath.Join(dir, scanpod.DecisionsFile), func(w io.Writer) error {
		_, err := w.Write(d.raw)
		return err
	}); err != nil {
		log.Error("keeping the scan's decisions beside its results: the history counts every issue", "file", scanpod.DecisionsFile, "err", err)
	}
}

// covered says whether a decision covers the finding as of the scan's
// instant: what the comparison with the baseline asks (diff.Options.Covered).
func (d scanDecisions) covered(f diff.Finding) bool {
	_, ok := d.set.Covering(f, d.at)
	return ok
}

// comparisonCover is diff.Options.Covered for the scan: nil without
// decisions, so the comparison asks nothing.
func (d scanDecisions) comparisonCover() func(diff.Finding) bool {
	if d.set == nil {
		return nil
	}
	return d.covered
}

// decidedBuilder is a builder the runner's walk feeds, rows and file
// boundaries, that counts a row a decision covers apart (DecidedRow): the
// summary's and the report's.
type decidedBuilder interface {
	results.RowVisitor
	results.FileVisitor
	DecidedRow(file string, r *results.Reader, row results.Row) error
}

// judged is a builder as the runner's walk feeds it: each row the CI
// reports judge decided (cireport.Reports.Decision, which the walk has
// passed the row first) goes to DecidedRow, out of every total, count,
// score and rank a threshold gates on; the others to VisitRow.
type judged struct {
	decidedBuilder
	judge *cireport.Reports
}

func (j judged) VisitRow(file string, r *results.Reader, row results.Row) error {
	if j.judge.Decision(file, r, row) != nil {
		return j.DecidedRow(file, r, row)
	}
	return j.decidedBuilder.VisitRow(file, r, row)
}
