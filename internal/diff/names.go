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

// nameIssues gives each issue row of the scan's IssueIDsAudit its id (see
// issueid.go): a row matched with a baseline issue keeps that issue's id,
// the others are named, in file order, by an IssueNamer that holds every
// baseline id. The baseline's ids are used only when they name exactly its
// issue rows (a file that does not belong to its results is noted, not
// used).
func (c *comparison) nameIssues(a *auditState) {
	base := c.baseIDs
	if base != nil && len(base) != a.recs[baseSide].len() {
		c.res.IssueIDsProblem = fmt.Sprintf("the baseline's %s names %d issue rows, its %s has %d: its issues' ids start afresh",
			IssueIDsFile, len(base), IssueIDsAudit, a.recs[baseSide].len())
		base = nil
	}
	namer := NewIssueNamer(base)
	cur := &a.recs[curSide]
	ids := make([]IssueID, cur.len())
	for k := range int32(cur.len()) {
		r := cur.at(k)
		if base != nil && r.state == stateMatched {
			ids[k] = base[r.partner]
			continue
		}
		g := a.info[r.group].key
		ids[k] = namer.Name(PartsOf(c.opts.Namespace, c.strs.Text(r.org), c.pages.info[g.page].key, int(g.width),
			AuditRule(a.audit, c.strs.Text(r.rule)), r.html, r.target))
	}
	a.ids = [2][]IssueID{base, ids}
	c.res.IssueIDs = ids
}
