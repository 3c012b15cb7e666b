package cireport

import (
	"fmt"
	"io"

	"github.com/a11y-dev/cwac-operator/internal/diff"
)

// Comparison is what the CI reports take from the comparison with the
// baseline while it is made, so that they need not read back the diff.json
// it was written to (on a scan of a million rows, two reads of 400 MB of
// JSON: more than half the runner's time): the baseline state of each of
// the scan's axe issues, kept as diff.json's reader keeps them (at most
// MaxBaselineKeys), and the baseline's axe issues this scan no longer has,
// spooled one row a line, for SARIF's absent results at its end.
//
// A Comparison serves one SARIF report (the baseline states of rows
// without ids are counted down as they are used).
type Comparison struct {
	base  *baseline
	spool Spool
	out   *countingWriter
	rows  *diff.RowWriter
	kept  int64 // fixed rows written to spool
	err   error // the first write to spool that failed
}

// NewComparison keeps what the CI reports need of a comparison with the
// baseline named baseline; the fixed rows go to spool, read back from its
// start by SARIF.
func NewComparison(baseline string, spool Spool) *Comparison {
	out := &countingWriter{w: spool}
	return &Comparison{base: newBaseline(baseline), spool: spool, out: out, rows: diff.NewRowWriter(out)}
}

// Add keeps what one row of the comparison says of the scan's axe issues;
// it is given every row. It cannot fail the comparison: a fixed row that
// cannot be spooled is kept as the error SARIF then reports (and the
// runner keeps neither CI report), while diff.json and the scan's counts
// stand.
func (c *Comparison) Add(row *diff.Row) {
	c.base.add(row)
	if row.Audit != axeAudit || row.Change != diff.ChangeFixed || c.err != nil {
		return
	}
	if c.err = c.rows.Write(row); c.err == nil {
		c.kept++
	}
}

// eachFixed passes the baseline's axe issues this scan no longer has to fn,
// in the comparison's order, from the spool.
func (c *Comparison) eachFixed(fn func(*diff.Row) error) error {
	if c.err == nil {
		c.err = c.rows.Flush()
	}
	if c.err != nil {
		return fmt.Errorf("keeping the baseline's fixed issues: %w", c.err)
	}
	var read int64
	err := diff.ReadSpooledRows(io.NewSectionReader(c.spool, 0, c.out.n), func(row *diff.Row) error {
		read++
		return fn(row)
	})
	if err != nil {
		return fmt.Errorf("the baseline's fixed issues: %w", err)
	}
	if read != c.kept {
		return fmt.Errorf("the baseline's fixed issues: %d of the %d kept were read back", read, c.kept)
	}
	return nil
}

// countingWriter counts what is written through it: the spool is read
// back to where the rows end.
type countingWriter struct {
	w io.Writer
	n int64
}

func (cw *countingWriter) Write(p []byte) (int, error) {
	n, err := cw.w.Write(p)
	cw.n += int64(n)
	return n, err
}
