package diff

import (
	"fmt"
)

// readBaselineIDs reads the baseline's IssueIDsFile, which its issues' ids
// are carried forward from. A baseline without one (results written before
// ids were kept) names none; one that cannot be read is noted in the
// result, and the scan's ids start afresh: the comparison stands.
func (c *comparison) readBaselineIDs() {
	ids, err := ReadIssueIDs(c.fsys[baseSide])
	if err != nil {
		c.res.IssueIDsProblem = fmt.Sprintf("the baseline's %v: its issues' ids start afresh", err)
		return
	}
	c.baseIDs = ids
}

// startNaming sets up the naming of the scan's issue rows of
// IssueIDsAudit (see issueid.go): a row matched with a baseline issue
// keeps that issue's id, the others are named by an IssueNamer that holds
// every baseline id. The baseline's ids are used only when they name
// exactly its issue rows (a file that does not belong to its results is
// noted, not used).
func (c *comparison) startNaming(a *auditState) {
	base := c.baseIDs
	if base != nil && len(base) != a.n[baseSide] {
		c.res.IssueIDsProblem = fmt.Sprintf("the baseline's %s names %d issue rows, its %s has %d: its issues' ids start afresh",
			IssueIDsFile, len(base), IssueIDsAudit, a.n[baseSide])
		base = nil
	}
	a.namer = NewIssueNamer(base)
	a.ids = [2][]IssueID{base, make([]IssueID, a.n[curSide])}
	c.res.IssueIDs = a.ids[curSide]
}

// nameIssues names the partition's issue rows of the scan, in file order.
// Rows alike in every part an id is made of are on one page, so in one
// partition: the ordinals that tell them apart come as they would in one
// pass over the whole file.
func (c *comparison) nameIssues(a *auditState) {
	base, cur := a.ids[baseSide], &a.recs[curSide]
	for i := range int32(cur.len()) {
		r := cur.at(i)
		k := a.k(curSide, i)
		if base != nil && r.state == stateMatched {
			a.ids[curSide][k] = base[a.k(baseSide, r.partner)]
			continue
		}
		g := a.info[r.group].key
		a.ids[curSide][k] = a.namer.Name(PartsOf(c.opts.Namespace, c.strs.Text(r.org), c.pages.info[g.page].key, int(g.width),
			AuditRule(a.audit, c.strs.Text(r.rule)), r.html, r.target))
	}
	// No later partition names a row of these pages: their ordinals go.
	a.namer.next = map[IssueID]uint32{}
}
