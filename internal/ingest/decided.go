package ingest

import (
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/decision"
	"github.com/a11y-dev/cwac-operator/internal/diff"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

// scanDecisions are the decisions the scan kept beside its results
// (scanpod.DecisionsFile), as of the instant the scan applied them: the
// history counts what they cover as the scan's report did, out of the
// organisation's issues and score.
type scanDecisions struct {
	set *decision.Set
	at  time.Time
}

// keptDecisions reads the scan's kept decisions for its namespace. Results
// without the file decide nothing; a file that cannot be read decides
// nothing either, and why is returned for the scan's skipped files: the
// scan is recorded with every issue counted, never some hidden.
func keptDecisions(fsys fs.FS, namespace string) (scanDecisions, string) {
	f, err := fsys.Open(scanpod.DecisionsFile)
	if errors.Is(err, fs.ErrNotExist) {
		return scanDecisions{}, ""
	}
	if err != nil {
		return scanDecisions{}, fmt.Sprintf("%s: %v: every issue is counted", scanpod.DecisionsFile, err)
	}
	defer func() { _ = f.Close() }() // read only
	ds, at, err := scanpod.ReadDecisions(f, namespace)
	if err != nil {
		return scanDecisions{}, fmt.Sprintf("%v: every issue is counted", err)
	}
	return scanDecisions{set: decision.NewSet(ds), at: at}, ""
}

// leaveOutDecided takes the organisation's records a decision covers out
// of its figures (issues, impact classes, audits) into its decided count,
// and returns the records left, for the elements counted: idx's own array,
// reordered, the records left first in their order and the others behind
// them (idx still holds every record, for the templates). fpOf gives a
// matched or new issue's id (zero for a record not tracked: only a rule
// decision covers it). Records set aside stay as they are.
func (in *ingestion) leaveOutDecided(o int32, idx []int32, fpOf func(i int32) diff.IssueID) []int32 {
	if in.decided.set == nil {
		return idx
	}
	rd, org := in.rd, in.rd.orgs[o]
	kept := 0 // idx[:kept] are the records left; each swap keeps their order
	for at, i := range idx {
		rec := rd.recs.at(int(i))
		if rec.body() {
			idx[kept], idx[at] = i, idx[kept]
			kept++
			continue
		}
		audit, rule := diff.SplitAuditRule(rd.strs.Text(rec.rule))
		f := decision.Finding{Namespace: in.scan.Namespace, Organisation: org.name, Element: rec.html, Rule: rule,
			URL: rd.pageKey(rec.page)}
		if in.issueIDs.get(int(i)) != 0 {
			f.ID = fpOf(i)
		}
		if _, ok := in.decided.set.Covering(f, in.decided.at); !ok {
			idx[kept], idx[at] = i, idx[kept]
			kept++
			continue
		}
		org.issues -= int64(rec.issues)
		org.byImpact[rec.impact] -= int64(rec.issues)
		org.byAudit[audit] -= int64(rec.issues)
		org.decided += int64(rec.issues)
	}
	return idx[:kept]
}
