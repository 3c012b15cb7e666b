package ingest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"runtime/debug"
	"slices"
	"sort"

	"github.com/a11y-dev/cwac-operator/internal/diff"
	"github.com/a11y-dev/cwac-operator/internal/gcpace"
	"github.com/a11y-dev/cwac-operator/internal/report"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
	"github.com/a11y-dev/cwac-operator/internal/store"
)

// Options adjust Ingest.
type Options struct {
	// Holder names the writer in the store's lock row (a pod name), for
	// people looking at a stuck lock.
	Holder string
}

// Result is what one Ingest did.
type Result struct {
	// AlreadyStored is true when the scan was in the store: nothing was added.
	AlreadyStored bool  `json:"already_stored,omitempty"`
	Organisations int   `json:"organisations"`
	IssueRows     int64 `json:"issue_rows"`
	// The transitions, in tracked issue rows (one per viewport).
	New                 int64 `json:"new"`
	StillOpen           int64 `json:"still_open"`
	Fixed               int64 `json:"fixed"`
	FixedPageNotScanned int64 `json:"fixed_page_not_scanned"`
	Reopened            int64 `json:"reopened"`
	Unstable            int64 `json:"unstable"`
	// Skipped are the result files not read, each with why (a CSV that is
	// a link, a pipe or a directory): the scan is recorded without them.
	Skipped []string `json:"skipped_files,omitempty"`
}

// ErrNoResults is returned (wrapped) for a directory with none of CWAC's
// result files.
var ErrNoResults = errors.New("no CWAC results (no audit_log.csv, pages_scanned.csv or audit CSV with issues)")

// Ingest records one finished scan's results (fsys: its results directory)
// in the store, in one transaction: an error or a crash at any point
// leaves nothing of the scan written, and a scan already stored adds
// nothing. Scans are ingested oldest first (store.ErrOutOfOrder otherwise).
func Ingest(ctx context.Context, st *store.Store, fsys fs.FS, scan store.Scan, opts Options) (Result, error) {
	var res Result
	stored, err := st.HasScan(ctx, scan.UID)
	if err != nil {
		return res, err
	}
	if stored {
		return Result{AlreadyStored: true}, nil
	}
	defer gcpace.During()()
	rd := newReading()
	// Each organisation's completeness is recorded with its figures, so
	// that one a firewall refused is not ranked as if scanned cleanly.
	complete := results.NewCompletenessBuilder(nil, results.MaxLinksOf(fsys))
	if err := results.Walk(ctx, fsys, rd, complete); err != nil {
		return res, fmt.Errorf("reading the results: %w", err)
	}
	if len(rd.orgs) == 0 && len(rd.files) == 0 {
		return res, fmt.Errorf("reading the results: %w", ErrNoResults)
	}
	if scan.Engine.AxeCore == "" {
		scan.Engine.AxeCore = rd.axe
	}
	if scan.Engine.Chrome == "" {
		if scan.Engine.Chrome, err = chromeVersion(fsys); err != nil {
			return res, fmt.Errorf("reading the results: %w", err)
		}
	}
	w, err := st.BeginScan(ctx, scan, opts.Holder)
	if errors.Is(err, store.ErrScanExists) {
		return Result{AlreadyStored: true}, nil
	}
	if err != nil {
		return res, err
	}
	defer w.Rollback() // after Commit it does nothing
	in := &ingestion{rd: rd, w: w, scan: scan, newTemplates: map[int32]int64{}, ordinals: map[int64]uint32{}, verdicts: complete.OrganisationVerdicts()}
	var problem string
	if in.decided, problem = keptDecisions(fsys, scan.Namespace); problem != "" {
		_ = rd.SkipFile(scanpod.DecisionsFile, problem) // never fails
	}
	if err := in.run(ctx, fsys); err != nil {
		return res, err
	}
	if err := w.Commit(ctx); err != nil {
		return res, err
	}
	in.res.Skipped = rd.skippedFiles()
	return in.res, nil
}

// ingestion is one Ingest call's state once the first pass has read the results.
type ingestion struct {
	rd   *reading
	w    *store.ScanWriter
	scan store.Scan
	res  Result

	orgStore  []int64     // store id of each organisation (by reading.orgs index)
	pageStore storeIDList // store id of each page (by reading.pages index)
	// issueIDs are the issue each record is once matched (0: not tracked),
	// by record index: made once the first pass is let go, not carried by
	// each record through it (the end of that pass, the records all read,
	// is the peak of the ingest's memory).
	issueIDs storeIDList
	// ordinals are the new issues' ordinals (diff.NewIssueID) other than
	// 0, by store id: a new issue's fingerprint is made again from its
	// record when it is written (newID), not kept (16 bytes a row).
	ordinals map[int64]uint32
	// newTemplates maps the record that first shows a new template to its id.
	newTemplates map[int32]int64
	counts       []store.TemplateCount
	figures      []store.OrganisationFigures
	// verdicts are the organisations' completeness, by name.
	verdicts map[string]results.OrganisationCompleteness
	// groups are the scan's groups (an audit that wrote rows at a width
	// of a page) and what was seen there, sorted by page (reading.pages
	// index), audit and width, each once: reading.groups once read,
	// dropped once the organisations are done.
	groups []seenGroup
	// decided are the decisions the scan kept (none: the zero value).
	decided scanDecisions
	// freshPages are the pages this scan adds to the history (by
	// reading.pages index).
	freshPages []bool
	// storedIDs are the ids of the stored issues the organisation's rows
	// matched, kept only to judge decisions (nil without decisions).
	storedIDs map[int64]diff.IssueID
}

func (in *ingestion) run(ctx context.Context, fsys fs.FS) error {
	rd := in.rd
	// Pages are found by URL, and their titles compared, only while
	// reading: their tables are let go before the groups are copied out
	// of their blocks.
	rd.pageSlots, rd.titles = pageTable{}, blockList[uint32]{}
	in.sortGroups()
	// What only the first pass needed is let go: collected and given back
	// to the system now, the matching's tables start from what is live.
	// Left to the collector's pace, the two were resident together, the
	// peak of a large scan's ingest (156 → 142–146 MiB at 857,149 issue
	// rows in mcp-server import; one collection, tens of milliseconds).
	debug.FreeOSMemory()
	in.issueIDs = newStoreIDList(rd.recs.len())
	in.orgStore = make([]int64, len(rd.orgs))
	in.freshPages = make([]bool, rd.pages.len())
	in.pageStore = newStoreIDList(rd.pages.len())
	// Each organisation's record indexes, in slices of their exact size
	// (4 bytes a row, and no larger array left behind as one grows).
	rows := make([]int32, len(rd.orgs))
	for i := range rd.recs.len() {
		rows[rd.pages.at(int(rd.recs.at(i).page)).org]++
	}
	byOrg := make([][]int32, len(rd.orgs))
	for o, n := range rows {
		byOrg[o] = make([]int32, 0, n)
	}
	for i := range rd.recs.len() {
		o := rd.pages.at(int(rd.recs.at(i).page)).org
		byOrg[o] = append(byOrg[o], int32(i))
	}
	pagesByOrg := make([][]int32, len(rd.orgs))
	for i := range rd.pages.len() {
		o := rd.pages.at(i).org
		pagesByOrg[o] = append(pagesByOrg[o], int32(i))
	}
	order := make([]int32, len(rd.orgs))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return cmp.Compare(rd.orgs[a].name, rd.orgs[b].name) })
	for _, o := range order {
		if err := in.organisation(ctx, o, byOrg[o], pagesByOrg[o]); err != nil {
			return fmt.Errorf("organisation %q: %w", rd.orgs[o].name, err)
		}
		byOrg[o] = nil
	}
	in.groups = nil
	in.res.Organisations, in.res.IssueRows = len(rd.orgs), int64(rd.recs.len())
	if in.needsText() {
		wr := &writing{in: in, ctx: ctx}
		if err := results.Walk(ctx, fsys, wr); err != nil {
			return fmt.Errorf("writing the scan's issues: %w", err)
		}
		if err := wr.flush(); err != nil {
			return err
		}
	}
	if err := in.presences(ctx); err != nil {
		return err
	}
	if err := in.w.AddTemplateCounts(ctx, in.counts); err != nil {
		return err
	}
	for _, f := range in.figures {
		if err := in.w.AddOrganisationFigures(ctx, f); err != nil {
			return err
		}
	}
	return nil
}

// needsText reports whether anything the matching decided needs the
// CSVs' text, and so the second read of the results (writing): a new
// issue, an element changed under its target, or a new template. A scan
// that shows only issues already stored (most weeks of a site that did not
// change) is recorded from the first read alone.
func (in *ingestion) needsText() bool {
	if len(in.newTemplates) > 0 {
		return true
	}
	for i := range in.rd.recs.len() {
		if f := in.rd.recs.at(i).fate(); f == fateNew || f == fateRetarget {
			return true
		}
	}
	return false
}

// pageBatch is how many of an organisation's pages are matched at a time:
// the stored issues and last observations read are a batch's.
const pageBatch = 1000

// organisation matches one organisation's rows with its stored issues, a
// batch of its pages at a time, and writes the transitions that need no
// text from the CSVs.
func (in *ingestion) organisation(ctx context.Context, o int32, idx, pages []int32) error {
	rd := in.rd
	org := rd.orgs[o]
	orgID, err := in.w.Organisation(ctx, org.name, org.sector)
	if err != nil {
		return err
	}
	in.orgStore[o] = orgID
	st := &orgState{id: orgID}
	in.storedIDs = nil
	if in.decided.set != nil {
		in.storedIDs = map[int64]diff.IssueID{}
	}
	if err := in.pages(ctx, orgID, pages, st); err != nil {
		return err
	}
	orderOrganisation(rd, idx)
	slices.Sort(pages) // the order of idx's pages
	var t tally
	rest := idx
	for start := 0; start < len(pages); start += pageBatch {
		batch := pages[start:min(start+pageBatch, len(pages))]
		n, _ := slices.BinarySearchFunc(rest, batch[len(batch)-1]+1, func(i, p int32) int { return cmp.Compare(rd.recs.at(int(i)).page, p) })
		if err := in.matchBatch(ctx, st, batch, rest[:n], &t); err != nil {
			return err
		}
		rest = rest[n:]
	}
	// Every page visited is observed: the open issues left are on pages
	// the scan did not visit.
	gone, err := in.w.OpenIssuesNotVisited(ctx, orgID)
	if err != nil {
		return err
	}
	if err := in.w.Fix(ctx, gone, store.ReasonPageNotScanned); err != nil {
		return err
	}
	t.openBefore += int64(len(gone))
	t.pageNotScanned += int64(len(gone))
	in.res.New += t.newIssues
	in.res.StillOpen += t.stillOpen
	in.res.Fixed += t.fixed
	in.res.FixedPageNotScanned += t.pageNotScanned
	in.res.Reopened += t.reopened
	in.res.Unstable += t.unstable
	// The elements are counted while idx is still in page order (the
	// records a decision covers moved behind the others, which keep it):
	// templates sorts idx by rule and element.
	counted := in.leaveOutDecided(o, idx, func(i int32) diff.IssueID {
		if in.rd.recs.at(int(i)).fate() == fateNew {
			return in.newID(i)
		}
		return in.storedIDs[in.issueIDs.get(int(i))]
	})
	elems := elements(rd, counted)
	if err := in.templates(ctx, orgID, idx); err != nil {
		return err
	}
	f := store.OrganisationFigures{
		OrgID: orgID, Schedule: in.scan.Schedule, BaseURLs: org.baseURLs, Pages: org.pages,
		Issues: org.issues, Elements: elems, ByImpact: org.byImpact, ByAudit: org.byAudit, Decided: org.decided,
		New: t.newIssues, Fixed: t.fixed, FixedPageNotScanned: t.pageNotScanned,
		Reopened: t.reopened, Unstable: t.unstable, SetAside: org.setAside,
		Open: t.openBefore - (t.fixed + t.pageNotScanned) + t.newIssues + t.reopened + t.opened + t.reopenedUncompared,
	}
	f.WeightedPerPage, f.Score = report.Score(org.byImpact, org.pages)
	if v, ok := in.verdicts[org.name]; ok {
		f.Completeness, f.CompletenessReason = string(v.Verdict), v.Reason()
	}
	in.figures = append(in.figures, f)
	return nil
}

// matchBatch reads the stored issues and the last observations of a batch
// of the organisation's pages (reading.pages indexes), matches the batch's
// rows with them (matchPages), records the scan's visit of the pages and
// writes their issues' transitions.
func (in *ingestion) matchBatch(ctx context.Context, st *orgState, batch, rows []int32, t *tally) error {
	rd := in.rd
	ids := make([]int64, len(batch))
	st.pageOf = make(map[int64]int32, len(batch))
	for i, p := range batch {
		ids[i] = st.pageIDs.get(int(p))
		st.pageOf[ids[i]] = p
	}
	slices.Sort(ids)
	var err error
	if st.prev, err = in.w.Observations(ctx, ids); err != nil {
		return err
	}
	st.cands = map[matchKey][]candidate{}
	err = in.w.EachIssueOn(ctx, ids, func(is *store.StoredIssue) error {
		key := matchKey{page: is.PageID, width: int32(is.Width), rule: rd.strs.ID(is.Audit + "\x00" + is.Rule)}
		if _, ok := rd.ruleAuds[key.rule]; !ok {
			// A rule the scan has no row of, maybe of an audit it read no
			// file of: the audit is numbered as the scan's are (its groups
			// are none of the scan's, so it did not run there).
			audit, err := rd.auditNo(rd.strs.ID(is.Audit))
			if err != nil {
				return err
			}
			rd.ruleAuds[key.rule] = audit
		}
		c := candidate{id: is.ID, html: is.ElementHash, target: is.TargetHash, open: is.Open}
		c.fp, _ = diff.ParseIssueID(is.Fingerprint) // every stored one parses; one that did not holds no id
		st.cands[key] = append(st.cands[key], c)
		return ctx.Err()
	})
	if err != nil {
		return err
	}
	tr, err := in.matchPages(ctx, rows, st)
	if err != nil {
		return err
	}
	if err := in.observe(ctx, st, ids); err != nil {
		return err
	}
	if err := in.w.Fix(ctx, tr.fixed, store.ReasonFixed); err != nil {
		return err
	}
	if err := in.w.Reopen(ctx, append(tr.reopened, tr.reopenedUncompared...)); err != nil {
		return err
	}
	t.add(&tr)
	return nil
}

// observe records this scan's visit of a batch of the organisation's pages
// (store ids) and which audits wrote rows there at which widths
// (store.Observe): what the next scan's rows there are compared by
// (compared).
func (in *ingestion) observe(ctx context.Context, st *orgState, pages []int64) error {
	rd := in.rd
	var seen []store.Sighting
	var kept []int64
	before := make(map[int64]int, len(st.prev.Visited)) // each page's observations at its last visit
	for k := range st.prev.Seen {
		before[k.PageID]++
	}
	for _, pageID := range pages {
		p := st.pageOf[pageID]
		from := len(seen)
		at, _ := slices.BinarySearchFunc(in.groups, p, func(g seenGroup, p int32) int { return cmp.Compare(g.page, p) })
		for _, g := range in.groups[at:] {
			if g.page != p {
				break
			}
			seen = append(seen, store.Sighting{
				ObservationKey: store.ObservationKey{PageID: pageID, Width: int(g.width), Audit: rd.auditName(g.key().audit)},
				Observed:       store.Observed{Animating: g.animating(), Replaced: rd.pages.at(int(p)).titleVaries()},
			})
		}
		if st.prev.Visited[pageID] && sameObservations(st.prev.Seen, before[pageID], seen[from:]) {
			seen, kept = seen[:from], append(kept, pageID)
		}
	}
	return in.w.Observe(ctx, pages, seen, kept)
}

// sameObservations reports whether a page's sightings in this scan are
// what its last visit saw: as many (n), each seen then the same way.
func sameObservations(last map[store.ObservationKey]store.Observed, n int, now []store.Sighting) bool {
	if len(now) != n {
		return false
	}
	for _, s := range now {
		if o, ok := last[s.ObservationKey]; !ok || o != s.Observed {
			return false
		}
	}
	return true
}

// compareGroups is ingestion.groups' order: by page, audit and width.
func compareGroups(a, b groupKey) int {
	return cmp.Or(cmp.Compare(a.page, b.page), cmp.Compare(a.audit, b.audit), cmp.Compare(a.width, b.width))
}

// sortGroups moves reading.groups into ingestion.groups: sorted, each
// group once, with what any of its runs of rows saw.
func (in *ingestion) sortGroups() {
	gs := in.rd.groups.slice()
	slices.SortFunc(gs, func(a, b seenGroup) int { return compareGroups(a.key(), b.key()) })
	kept := gs[:0]
	for _, g := range gs {
		if n := len(kept); n > 0 && kept[n-1].key() == g.key() {
			kept[n-1].audit |= g.audit & groupAnimating
			continue
		}
		kept = append(kept, g)
	}
	in.groups = slices.Clip(kept)
}

// flagsOf is what was seen of a group (nothing: the audit wrote no row there).
func (in *ingestion) flagsOf(g groupKey) groupFlags {
	at, ok := slices.BinarySearchFunc(in.groups, g, func(s seenGroup, g groupKey) int { return compareGroups(s.key(), g) })
	if !ok {
		return groupFlags{}
	}
	return groupFlags{present: true, animating: in.groups[at].animating()}
}

// pages gives each of the organisation's pages in this scan its store id,
// adding the pages seen for the first time, a batch of pages at a time.
func (in *ingestion) pages(ctx context.Context, orgID int64, pages []int32, st *orgState) error {
	rd := in.rd
	st.pageIDs = &in.pageStore
	// An organisation new to the history has no stored pages, and each of
	// its pages here is in one batch: none is looked up (on PostgreSQL the
	// lookups were 1.5 s of a first million-row ingest's server time).
	added := in.w.AddedOrganisation(orgID)
	for start := 0; start < len(pages); start += pageBatch {
		batch := pages[start:min(start+pageBatch, len(pages))]
		// Each key made once (a page's key is its host's and the rest,
		// joined anew each time it is asked for).
		keys := make([]string, len(batch))
		for i, p := range batch {
			keys[i] = rd.pageKey(p)
		}
		var stored map[string]int64
		if !added {
			var err error
			if stored, err = in.w.PagesNamed(ctx, orgID, keys); err != nil {
				return err
			}
		}
		var fresh []string
		var freshAt []int32
		for i, p := range batch {
			key := keys[i]
			if id, ok := stored[key]; ok {
				in.pageStore.set(int(p), id)
			} else {
				fresh, freshAt = append(fresh, key), append(freshAt, p)
			}
		}
		ids, err := in.w.AddPages(ctx, orgID, fresh)
		if err != nil {
			return err
		}
		for i, p := range freshAt {
			in.pageStore.set(int(p), ids[i])
			in.freshPages[p] = true
		}
	}
	return nil
}

// elements counts an organisation's elements as the report does: one per
// page, rule and element (target, else HTML), whatever its viewports,
// leaving out the rows about a page's <body>, as the report sets them
// aside. idx is the organisation's indexes in page order
// (orderOrganisation): each page's rows are sorted alone, in place, by
// rule and element, where one sort of them all by page, rule and element
// took 0.3 s of the 7.5 s of CPU of the next week's ingest of a million
// rows on SQLite. Indexes not in page order are sorted by page first: no
// memory beyond the indexes either way.
func elements(rd *reading, idx []int32) int64 {
	pageOf := func(i int32) int32 { return rd.recs.at(int(i)).page }
	byPage := func(x, y int32) int { return cmp.Compare(pageOf(x), pageOf(y)) }
	if !slices.IsSortedFunc(idx, byPage) {
		slices.SortFunc(idx, byPage)
	}
	key := func(i int32) (int32, uint64) { return rd.recs.at(int(i)).rule, rd.elemOf(i) }
	var n int64
	for start := 0; start < len(idx); {
		page, end := pageOf(idx[start]), start+1
		for end < len(idx) && pageOf(idx[end]) == page {
			end++
		}
		rows := idx[start:end]
		start = end
		slices.SortFunc(rows, func(x, y int32) int {
			rx, ex := key(x)
			ry, ey := key(y)
			return cmp.Or(cmp.Compare(rx, ry), cmp.Compare(ex, ey))
		})
		var last struct { // the page's last element counted
			rule int32
			elem uint64
			ok   bool
		}
		for _, x := range rows {
			if rd.recs.at(int(x)).body() {
				continue
			}
			if r, e := key(x); !last.ok || r != last.rule || e != last.elem {
				n++
				last.rule, last.elem, last.ok = r, e, true
			}
		}
	}
	return n
}

// cmpBool orders false before true.
func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case b:
		return -1
	}
	return 1
}

// minTemplatePages is how many pages one rule and element must fail on to
// be a template.
const minTemplatePages = 2

// templates groups an organisation's rows by rule and element HTML (CWAC's
// template-aware grouping) and keeps those on two pages or more, with
// their pages and instances (issues). It sorts idx (the organisation's own
// indexes, reordered) rather than a copy: a copy, grown a row at a time,
// was the peak of a million-row ingest.
func (in *ingestion) templates(ctx context.Context, orgID int64, idx []int32) error {
	rd := in.rd
	empty := emptyHash
	// Rows with no HTML, in no template, sort last.
	slices.SortFunc(idx, func(x, y int32) int {
		a, b := rd.recs.at(int(x)), rd.recs.at(int(y))
		if ea, eb := a.html == empty, b.html == empty; ea != eb {
			return cmpBool(ea, eb)
		}
		return cmp.Or(cmp.Compare(a.rule, b.rule), cmp.Compare(a.html, b.html), cmp.Compare(a.page, b.page), cmp.Compare(x, y))
	})
	rows := idx[:sort.Search(len(idx), func(k int) bool { return rd.recs.at(int(idx[k])).html == empty })]
	var known map[store.TemplateKey]int64
	for start := 0; start < len(rows); {
		first := rd.recs.at(int(rows[start]))
		pages, instances, firstRow := 0, int64(0), rows[start]
		end := start
		for ; end < len(rows) && rd.recs.at(int(rows[end])).rule == first.rule && rd.recs.at(int(rows[end])).html == first.html; end++ {
			r := rd.recs.at(int(rows[end]))
			if end == start || r.page != rd.recs.at(int(rows[end-1])).page {
				pages++
			}
			instances += int64(r.issues)
			firstRow = min(firstRow, rows[end])
		}
		start = end
		if pages < minTemplatePages {
			continue
		}
		if known == nil {
			var err error
			if known, err = in.w.Templates(ctx, orgID); err != nil {
				return err
			}
		}
		audit, rule := diff.SplitAuditRule(rd.strs.Text(first.rule))
		key := store.TemplateKey{Audit: audit, Rule: rule, ElementHash: first.html}
		id, ok := known[key]
		if !ok {
			id = in.w.TemplateIDs(1)
			known[key] = id
			in.newTemplates[firstRow] = id
		}
		in.counts = append(in.counts, store.TemplateCount{TemplateID: id, Pages: pages, Instances: instances})
	}
	return nil
}

// presenceBatch is how many presences are written at a time.
const presenceBatch = 4000

// presences records every tracked row's issue stored before this scan as
// shown by it (the store shows the new ones at its commit), then updates
// those issues' last sighting in one statement.
func (in *ingestion) presences(ctx context.Context) error {
	batch := make([]int64, 0, presenceBatch)
	for i := range in.rd.recs.len() {
		if f := in.rd.recs.at(i).fate(); f == fateUnstable || f == fateNew {
			continue
		}
		batch = append(batch, in.issueIDs.get(i))
		if len(batch) == presenceBatch {
			if err := in.w.AddPresences(ctx, batch); err != nil {
				return err
			}
			batch = batch[:0]
		}
	}
	if err := in.w.AddPresences(ctx, batch); err != nil {
		return err
	}
	return in.w.FinishPresences(ctx)
}
