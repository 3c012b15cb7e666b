package ingest

import (
	"cmp"
	"context"
	"slices"

	"github.com/a11y-dev/cwac-operator/internal/diff"
	"github.com/a11y-dev/cwac-operator/internal/store"
)

// matchKey is where issues are matched: one page (its store id), viewport
// width and audit rule.
type matchKey struct {
	page  int64
	width int32
	rule  int32
}

// candidate is a stored issue that a row of this scan may be.
type candidate struct {
	id           int64
	html, target uint64
	fp           diff.IssueID
	open         bool
	claimed      bool // a row of this scan is this issue
}

// transitions are what one organisation's issues on a batch of its pages
// did in this scan.
type transitions struct {
	fixed, reopened      []int64
	newIssues, stillOpen int64
	unstable             int64
	openBefore           int64
	// Rows not compared that became open issues: issues of no stored issue
	// (opened) and fixed issues back (reopenedUncompared), counted unstable.
	opened             int64
	reopenedUncompared []int64
}

// tally counts one organisation's transitions over its batches of pages,
// and the open issues of the pages it did not visit (pageNotScanned).
type tally struct {
	newIssues, stillOpen, fixed, pageNotScanned, reopened, unstable, openBefore, opened, reopenedUncompared int64
}

// add counts a batch's transitions.
func (t *tally) add(b *transitions) {
	t.newIssues += b.newIssues
	t.stillOpen += b.stillOpen
	t.fixed += int64(len(b.fixed))
	t.reopened += int64(len(b.reopened))
	t.unstable += b.unstable
	t.openBefore += b.openBefore
	t.opened += b.opened
	t.reopenedUncompared += int64(len(b.reopenedUncompared))
}

// orgState is what processing one organisation needs from the store: all
// of it about one batch of its pages (pageBatch) at a time.
type orgState struct {
	id      int64
	pageIDs *storeIDList // store id of each of the scan's pages of this organisation (by reading.pages index)
	// The batch's.
	pageOf map[int64]int32 // reading.pages index of each page, by store id
	cands  map[matchKey][]candidate
	prev   store.Observations // what the last visit of each page saw
}

// compared reports whether this scan's rows of an audit for a page and
// width are compared with the stored issues there, by the baseline
// comparison's rule (diff.Compared) with the page's last visit as the
// baseline: the audit ran both times, and for the focus audit the page
// kept animating both times or neither, and did not replace itself either
// time. A page new to the history is compared whenever the audit ran there
// (its rows are new, as the comparison's page added); a page last visited
// before observations were kept is taken as seen plainly then.
func (in *ingestion) compared(st *orgState, g groupKey) bool {
	rd := in.rd
	f := in.flagsOf(g)
	cur := diff.Observation{Ran: f.present, Animating: f.animating, Replaced: rd.pages.at(int(g.page)).titleVaries()}
	pageID := in.pageStore.get(int(g.page))
	if in.freshPages[g.page] {
		return cur.Ran
	}
	audit := rd.auditName(g.audit)
	prev := diff.Observation{Ran: true}
	if st.prev.Visited[pageID] {
		o, ok := st.prev.Seen[store.ObservationKey{PageID: pageID, Width: int(g.width), Audit: audit}]
		prev = diff.Observation{Ran: ok, Animating: o.Animating, Replaced: o.Replaced}
	}
	ok, _ := diff.Compared(audit+".csv" == diff.FocusAuditFile, prev, cur)
	return ok
}

// matchPages decides the fate of every issue row of a batch of one
// organisation's pages (rows: theirs, sorted by orderOrganisation) and of
// every stored issue on those pages, by the baseline comparison's rules
// (diff.MatchElements): rows match the organisation's open issues on the
// same page, width and rule; rows left match its fixed issues there
// (reopened); the rest are new. Open issues left are fixed when the scan's
// rows of their audit, page and width are compared (compared) and left as
// they are otherwise (unstable). Rows not compared are counted unstable
// and kept open without a transition (keepUncompared). Open issues on the
// pages the scan did not visit are the caller's (notVisited).
func (in *ingestion) matchPages(ctx context.Context, rows []int32, st *orgState) (transitions, error) {
	var tr transitions
	rd := in.rd
	for _, cs := range st.cands {
		for _, c := range cs {
			if c.open {
				tr.openBefore++
			}
		}
	}
	namer := &runNamer{}
	for start := 0; start < len(rows); {
		end := start + 1
		first := rd.recs.at(int(rows[start]))
		for end < len(rows) && sameRun(first, rd.recs.at(int(rows[end]))) {
			end++
		}
		run := rows[start:end]
		start = end
		key := matchKey{page: st.pageIDs.get(int(first.page)), width: int32(first.width), rule: first.rule}
		cands := st.cands[key]
		delete(st.cands, key)
		namer.reset(cands)
		if !in.compared(st, groupKey{audit: rd.ruleAuds[first.rule], page: first.page, width: int32(first.width)}) {
			tr.unstable += int64(len(run))
			in.keepUncompared(trackedRows(rd, run), cands, namer, &tr)
			continue
		}
		tracked := trackedRows(rd, run)
		tr.unstable += int64(len(run) - len(tracked))
		left := in.pair(tracked, cands, true, &tr)
		left = in.pair(left, cands, false, &tr)
		for _, c := range cands {
			if c.open && !c.claimed {
				tr.fixed = append(tr.fixed, c.id)
			}
		}
		in.newIssues(left, namer, &tr)
	}
	// Stored open issues no row of this scan could be.
	for key, cs := range st.cands {
		for _, c := range cs {
			if c.open && in.compared(st, groupKey{audit: rd.ruleAuds[key.rule], page: st.pageOf[key.page], width: key.width}) {
				tr.fixed = append(tr.fixed, c.id)
			}
		}
	}
	return tr, ctx.Err()
}

// runNamer names the new issues of one run of rows (one page, width and
// rule), holding the ids of the stored issues there. An id is a hash of
// its parts, page, width and rule among them, so a row can only be named
// an id of an issue on its own page, width and rule: a namer per run names
// every row as one for the whole organisation would, and holds one run's
// ids and counts, not the organisation's (a million rows of one
// organisation were 30 MiB of them). One namer serves the runs in turn
// (reset), keeping the room it grew.
type runNamer struct {
	// held is the namer of a run where stored issues hold ids (nil: none
	// do, as on every page new to the store).
	held *diff.IssueNamer
	// last is, for each parts the run named past ordinal 0 (by the id of
	// their ordinal 0), the ordinal named last.
	last map[diff.IssueID]int
	// Where no id is held, a row's ordinal is how many rows of the run
	// before it have its parts, counted without a hash: few counts the
	// first maxFewParts parts seen, alike the rest. Each id made here was
	// made again when the issue was written: a first scan's ingest made
	// three hashes for every issue row where it now makes one.
	few   []partsRows
	alike map[diff.IssueParts]int
}

// partsRows is how many rows of a run had the parts.
type partsRows struct {
	parts diff.IssueParts
	rows  int
}

// maxFewParts is how many distinct parts a run counts in a list before a
// map: most runs are a row or a few.
const maxFewParts = 8

// reset makes n the namer of a run where cands are the stored issues.
func (n *runNamer) reset(cands []candidate) {
	n.held, n.few = nil, n.few[:0]
	// A map cleared costs its size, which one large run grew: each run
	// after it would pay that again.
	if len(n.alike) > 0 {
		n.alike = nil
	}
	if len(n.last) > 0 {
		n.last = nil
	}
	if len(cands) == 0 {
		return
	}
	held := make([]diff.IssueID, len(cands))
	for i, c := range cands {
		held[i] = c.fp
	}
	n.held = diff.NewIssueNamer(held)
}

// name names the next row with parts p and returns the ordinal of its id
// (diff.NewIssueID): a record keeps that (0 but for rows alike in every
// part), not the 16-byte id, and makes the id again when it is written.
// The namer gives the rows with the same parts increasing ordinals, so the
// search starts past the last one found.
func (n *runNamer) name(p diff.IssueParts) int {
	if n.held == nil {
		return n.count(p)
	}
	id := n.held.Name(p)
	first := diff.NewIssueID(p, 0)
	if id == first {
		return 0
	}
	if n.last == nil {
		n.last = map[diff.IssueID]int{}
	}
	for ord := n.last[first] + 1; ; ord++ {
		if diff.NewIssueID(p, ord) == id {
			n.last[first] = ord
			return ord
		}
	}
}

// count counts a row with parts p and returns how many rows before it
// had them: its ordinal where no id is held, as diff.IssueNamer names.
func (n *runNamer) count(p diff.IssueParts) int {
	if n.alike == nil {
		for i := range n.few {
			if n.few[i].parts == p {
				n.few[i].rows++
				return n.few[i].rows - 1
			}
		}
		if len(n.few) < maxFewParts {
			n.few = append(n.few, partsRows{parts: p, rows: 1})
			return 0
		}
		n.alike = make(map[diff.IssueParts]int, 2*maxFewParts)
		for _, f := range n.few {
			n.alike[f.parts] = f.rows
		}
	}
	ord := n.alike[p]
	n.alike[p] = ord + 1
	return ord
}

// trackedRows returns the rows of run an issue may be: all but focus rows
// about the page's <body>, which are never compared.
func trackedRows(rd *reading, run []int32) []int32 {
	out := make([]int32, 0, len(run))
	for _, i := range run {
		if !rd.recs.at(int(i)).body() {
			out = append(out, i)
		}
	}
	return out
}

// keepUncompared keeps rows that are not compared (counted unstable by the
// caller) as open issues without counting a transition: a row that is an
// open issue is seen again, one that is a fixed issue opens it again, and
// any other becomes an open issue. So the next visit that can compare
// them, as the baseline comparison does with this scan as its baseline,
// finds them open (unchanged) or gone (fixed). Stored open issues no row
// matched are left as they are.
func (in *ingestion) keepUncompared(rows []int32, cands []candidate, namer *runNamer, tr *transitions) {
	var uncounted transitions
	left := in.pair(rows, cands, true, &uncounted)
	left = in.pair(left, cands, false, &uncounted)
	in.newIssues(left, namer, &uncounted)
	tr.opened += uncounted.newIssues
	tr.reopenedUncompared = append(tr.reopenedUncompared, uncounted.reopened...)
}

// sameRun reports whether two records are matched together.
func sameRun(a, b *record) bool {
	return a.page == b.page && a.width == b.width && a.rule == b.rule
}

// pair matches rows against the open (or the fixed) candidates and returns
// the rows left.
func (in *ingestion) pair(rows []int32, cands []candidate, open bool, tr *transitions) []int32 {
	if len(rows) == 0 {
		return rows
	}
	var base []diff.Element
	var at []int // index in cands of each element of base
	for i, c := range cands {
		if c.open == open && !c.claimed {
			base = append(base, diff.Element{HTML: c.html, Target: c.target})
			at = append(at, i)
		}
	}
	if len(base) == 0 {
		return rows
	}
	cur := make([]diff.Element, len(rows))
	for i, r := range rows {
		cur[i] = diff.Element{HTML: in.rd.recs.at(int(r)).html, Target: in.rd.recs.at(int(r)).target}
	}
	var left []int32
	for i, m := range diff.MatchElements(base, cur) {
		rec := in.rd.recs.at(int(rows[i]))
		if m.Base < 0 {
			left = append(left, rows[i])
			continue
		}
		c := &cands[at[m.Base]]
		c.claimed = true
		in.issueIDs.set(int(rows[i]), c.id)
		if in.storedIDs != nil {
			in.storedIDs[c.id] = c.fp
		}
		switch {
		case !open:
			rec.setFate(fateReopened)
			tr.reopened = append(tr.reopened, c.id)
		case m.OnTarget:
			rec.setFate(fateRetarget)
			tr.stillOpen++
		default:
			rec.setFate(fateOpen)
			tr.stillOpen++
		}
	}
	return left
}

// newIssues gives rows no stored issue matched new issues, named by the
// product's one rule (diff.IssueNamer, which holds every stored issue's
// fingerprint of the organisation): the comparison names a scan's new
// issues alike, so the CI reports' fingerprints are the history's.
func (in *ingestion) newIssues(rows []int32, namer *runNamer, tr *transitions) {
	rd := in.rd
	slices.Sort(rows) // file order
	for _, r := range rows {
		rec := rd.recs.at(int(r))
		ord := namer.name(in.partsOf(rec))
		id := in.w.IssueIDs(1)
		in.issueIDs.set(int(r), id)
		if ord > 0 {
			in.ordinals[id] = uint32(ord)
		}
		rec.setFate(fateNew)
		tr.newIssues++
	}
}

// partsOf is what a record's issue id is made of.
func (in *ingestion) partsOf(rec *record) diff.IssueParts {
	rd := in.rd
	p := rd.pages.at(int(rec.page))
	return diff.IssueParts{Namespace: in.scan.Namespace, Organisation: rd.orgs[p.org].name, PageKey: rd.pageKey(rec.page),
		Width: int(rec.width), Rule: rd.strs.Text(rec.rule), HTML: rec.html, Target: rec.target}
}

// newID is the id newIssues named the new issue of record i: made again
// from its parts and ordinal.
func (in *ingestion) newID(i int32) diff.IssueID {
	return diff.NewIssueID(in.partsOf(in.rd.recs.at(int(i))), int(in.ordinals[in.issueIDs.get(int(i))]))
}

// orderOrganisation sorts one organisation's record indexes into runs of
// the same page, width and rule, in file order within a run.
func orderOrganisation(rd *reading, idx []int32) {
	slices.SortFunc(idx, func(x, y int32) int {
		a, b := rd.recs.at(int(x)), rd.recs.at(int(y))
		return cmp.Or(cmp.Compare(a.page, b.page), cmp.Compare(a.width, b.width), cmp.Compare(a.rule, b.rule), cmp.Compare(x, y))
	})
}
