package diff

import (
	"errors"
	"fmt"
	"io/fs"
)

// baselineIDs reads the baseline's IssueIDsFile, which its issues' ids are
// carried forward from, beside the rows of its IssueIDsAudit: each issue
// row's id goes into its record (spill.go), so no side's ids are held
// whole. A baseline without the file (results written before ids were
// kept) names none; one that cannot be read, or that does not name exactly
// the audit's issue rows, is noted in the result, and the scan's ids start
// afresh: the comparison stands.
type baselineIDs struct {
	file   fs.File
	rd     *IssueIDReader
	n      int  // ids read
	ended  bool // the file was read to its end, or failed
	failed bool // it failed (noted)
}

// openBaselineIDs starts reading the baseline's IssueIDsFile; nil when it
// has none or it cannot be opened (noted).
func (c *comparison) openBaselineIDs() *baselineIDs {
	c.baseIDsRead = true
	f, err := c.fsys[baseSide].Open(IssueIDsFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		c.noteBaselineIDs(err)
		return nil
	}
	rd, err := NewIssueIDReader(f, MaxIssueRows)
	if err != nil {
		_ = f.Close() // read only
		c.noteBaselineIDs(fmt.Errorf("%s: %w", IssueIDsFile, err))
		return nil
	}
	return &baselineIDs{file: f, rd: rd}
}

// noteBaselineIDs notes why the baseline's ids are not carried forward.
func (c *comparison) noteBaselineIDs(err error) {
	c.res.IssueIDsProblem = fmt.Sprintf("the baseline's %v: its issues' ids start afresh", err)
}

// nextBaselineID is the id of the baseline's next issue row (zero once the file has
// ended or failed: the ids are then not used).
func (c *comparison) nextBaselineID(b *baselineIDs) IssueID {
	if b == nil || b.ended {
		return IssueID{}
	}
	id, ok := b.rd.Next()
	if !ok {
		b.ended = true
		if err := b.rd.Err(); err != nil {
			b.failed = true
			c.noteBaselineIDs(fmt.Errorf("%s: %w", IssueIDsFile, err))
		}
		return IssueID{}
	}
	b.n++
	return id
}

// finishBaselineIDs reads the rest of the file and reports whether its ids
// name exactly the baseline's issue rows (rows of them).
func (c *comparison) finishBaselineIDs(b *baselineIDs, rows int) bool {
	if b == nil {
		return false
	}
	c.drainBaselineIDs(b)
	if b.failed {
		return false
	}
	if b.n != rows {
		c.res.IssueIDsProblem = fmt.Sprintf("the baseline's %s names %d issue rows, its %s has %d: its issues' ids start afresh",
			IssueIDsFile, b.n, IssueIDsAudit, rows)
		return false
	}
	return true
}

// checkUnreadBaselineIDs reads the baseline's IssueIDsFile when no
// comparison of IssueIDsAudit did (neither side has one to compare), so
// that a file that cannot be read is noted all the same.
func (c *comparison) checkUnreadBaselineIDs() {
	if c.baseIDsRead {
		return
	}
	if b := c.openBaselineIDs(); b != nil {
		c.drainBaselineIDs(b) // no rows to name: its count is not checked
	}
}

// drainBaselineIDs reads the rest of the file, and closes it.
func (c *comparison) drainBaselineIDs(b *baselineIDs) {
	for !b.ended {
		c.nextBaselineID(b)
	}
	_ = b.file.Close() // read only
}

// startNaming sets up the naming of the scan's issue rows of
// IssueIDsAudit (see issueid.go), once both sides are read: a row matched
// with a baseline issue keeps that issue's id when the baseline's ids name
// its rows, the others are named anew.
func (c *comparison) startNaming(a *auditState) {
	a.ids.known = [2]bool{c.finishBaselineIDs(a.baseIDs, a.n[baseSide]), true}
	a.baseIDs = nil
}

// nameIssues names the partition's issue rows of the scan, in file order,
// with an IssueNamer that holds the partition's baseline ids. An id is a
// hash of its parts, the page among them, and is carried only between rows
// of one page (records are matched within a page): so a row's new id could
// only be held by an issue of its own page, which is in its partition. For
// the same reason the ordinals that tell rows alike apart come as they
// would in one pass over the whole file.
func (c *comparison) nameIssues(a *auditState) {
	cur := &a.recs[curSide]
	base := a.ids.part[baseSide]
	namer := NewIssueNamer(base)
	ids := make([]IssueID, cur.len())
	for i := range int32(cur.len()) {
		r := cur.at(i)
		if base != nil && r.state == stateMatched {
			ids[i] = base[r.partner]
			continue
		}
		g := a.info[r.group].key
		ids[i] = namer.Name(PartsOf(c.opts.Namespace, c.strs.Text(r.org), c.pages.info[g.page].key, int(g.width),
			AuditRule(a.audit, c.strs.Text(r.rule)), r.html, r.target))
	}
	a.ids.part[curSide] = ids
}
