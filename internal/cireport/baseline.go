package cireport

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/a11y-dev/cwac-operator/internal/diff"
	"github.com/a11y-dev/cwac-operator/internal/results"
)

// axeAudit is diff.json's name for the axe audit (its CSV without .csv).
const axeAudit = "axe_core_audit"

// SARIF's baseline states.
const (
	stateNew       = "new"
	stateUnchanged = "unchanged"
	stateAbsent    = "absent"
)

// MaxBaselineKeys caps the scan's issues remembered from diff.json to give
// their results a baseline state; past it results carry none.
const MaxBaselineKeys = 200000

// baseline is what diff.json says of the scan's axe issues: the state of
// each issue it names by id (diff.Row.IssueID, the id the scan's rows are
// named by, so an unchanged result is exactly one that keeps the
// baseline's id); for rows written before they carried ids, per compared
// key, how many issues are new and how many unchanged.
type baseline struct {
	name    string
	byID    map[diff.IssueID]bool // unchanged (else new)
	counts  map[key]*[2]int64     // [new, unchanged]
	omitted int64
}

// readBaseline reads the scan's diff.json, or returns nil when there is none
// (a scan without a baseline).
func readBaseline(fsys fs.FS) (*baseline, error) {
	f, err := fsys.Open(results.DiffFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // read only
	b := newBaseline("")
	doc, err := diff.ReadDocument(f, func(row *diff.Row) error {
		b.add(row)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", results.DiffFile, err)
	}
	b.name = doc.Baseline
	return b, nil
}

func newBaseline(name string) *baseline {
	return &baseline{name: name, byID: map[diff.IssueID]bool{}, counts: map[key]*[2]int64{}}
}

// add keeps what one row of the comparison says of the scan's axe issues:
// only new and unchanged rows of the axe audit do, and at most
// MaxBaselineKeys ids or compared keys are kept (omitted counts the rest).
func (b *baseline) add(row *diff.Row) {
	if row.Audit != axeAudit || (row.Change != diff.ChangeNew && row.Change != diff.ChangeUnchanged) {
		return
	}
	full := len(b.byID)+len(b.counts) >= MaxBaselineKeys
	if id, err := diff.ParseIssueID(row.IssueID); err == nil {
		if full {
			b.omitted++
			return
		}
		b.byID[id] = row.Change == diff.ChangeUnchanged
		return
	}
	k := comparedKey(row.URL, row.ViewportWidth, row.Rule, row.Target, row.HTML)
	c, ok := b.counts[k]
	if !ok {
		if full {
			b.omitted++
			return
		}
		c = &[2]int64{}
		b.counts[k] = c
	}
	if row.Change == diff.ChangeNew {
		c[0] += row.Issues
	} else {
		c[1] += row.Issues
	}
}

// state is the baseline state of one issue row: diff.json's for its id;
// for a diff.json without ids, taken from the comparison's counts,
// unchanged first, then new; "" when diff.json does not know the row.
func (b *baseline) state(is *issue) string {
	if b == nil {
		return ""
	}
	if unchanged, ok := b.byID[is.id]; ok {
		if unchanged {
			return stateUnchanged
		}
		return stateNew
	}
	c, ok := b.counts[comparedKey(is.url, is.width, is.rule, is.target, is.html)]
	if !ok {
		return ""
	}
	n := max(is.issues, 1)
	switch {
	case c[1] > 0:
		c[1] -= n
		return stateUnchanged
	case c[0] > 0:
		c[0] -= n
		return stateNew
	}
	return ""
}

// eachFixed passes the baseline's axe issues that this scan no longer has
// (diff.json's fixed rows), reading diff.json again rather than holding them.
func eachFixed(fsys fs.FS, fn func(*diff.Row) error) error {
	f, err := fsys.Open(results.DiffFile)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }() // read only
	_, err = diff.ReadDocument(f, func(row *diff.Row) error {
		if row.Audit != axeAudit || row.Change != diff.ChangeFixed {
			return nil
		}
		return fn(row)
	})
	if err != nil {
		return fmt.Errorf("%s: %w", results.DiffFile, err)
	}
	return nil
}
