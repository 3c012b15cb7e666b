package diff

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/a11y-dev/cwac-operator/internal/results"
)

// focusFile is the focus-indicator audit's CSV, whose rows have unstable
// cases of their own (unstable.go).
const focusFile = "focus_indicator_audit.csv"

// record is one issue row (num_issues > 0) of one side, in fixed size: the
// strings that identify it are hashed or numbered. A partition's records
// are in file order (spill.go).
type record struct {
	html    uint64 // ElementHash of the element's HTML
	target  uint64 // ElementHash of the XPath target (focus rows: the tab press)
	issues  int64
	group   int32 // page and viewport width, within the audit
	rule    int32 // the matching rule (unstable.go splits some rows off)
	org     int32
	impact  int32
	partner int32 // the matched record on the other side, or -1
	state   uint8
	how     uint8 // matched: on what; unstable: why; open: whether only one side scanned the page
	decided bool  // the scan's side: a decision covers its new issues (Options.Covered)
}

const (
	stateOpen     uint8 = iota // not (yet) matched: new or fixed
	stateMatched               // unchanged
	stateUnstable              // not compared
)

// How an open or matched record came to be.
const (
	howNone       uint8 = iota
	howHTML             // matched: the same element HTML
	howTarget           // matched: the HTML changed, the target did not
	howPageOnly         // open: only one side scanned the page
	howOtherBlank       // unstable: the other side has no result for this audit, page and viewport
	howAnimating        // unstable: one side could not run the focus audit (the page kept animating)
	howReplaced         // unstable: the page replaced itself during the audits (its title changed)
	howOnBody           // unstable: the tab press focused the page's <body>, not an element
)

// groupKey is where rows are compared: one page at one viewport width.
type groupKey struct {
	page  int32
	width int32
}

type groupInfo struct {
	key       groupKey
	present   [2]bool // the side has any row (issue or not) for the group
	animating [2]bool // the side has a "never stopped animating" row
}

// auditState is one audit CSV of both sides, while it is compared.
type auditState struct {
	name, audit string
	groups      map[groupKey]int32
	info        []groupInfo
	// parts hold the records as they are read (spill.go); n counts each
	// side's.
	parts partitions
	n     [2]int
	// recs are the records of the partition being compared; ks the numbers
	// of their issue rows (nil: in one partition, record k is row k).
	recs [2]recordList
	ks   [2][]int32
	// out are the outcomes of the issue rows, once their partitions are
	// compared, when there are several (in one, its records are kept).
	out [2]outcomeList
	// naming says the scan's issue rows are named (IssueIDsAudit): ids
	// holds them and the baseline's (auditids.go), baseIDs reads the
	// baseline's while its rows are read (names.go).
	naming  bool
	ids     auditIDs
	baseIDs *baselineIDs
	// baseListed says the baseline's issue rows have anything to list
	// (fixed or unstable issues): only then does emit read its CSV again.
	// A weekly scan finds most audits' issues again, and reading the
	// baseline a second time to list nothing was a quarter of the reading.
	baseListed bool
}

// k is the issue row of the partition's record i on side s.
func (a *auditState) k(s int, i int32) int32 {
	if a.ks[s] == nil {
		return i
	}
	return a.ks[s][i]
}

// compareAudit reads, matches, counts and (when asked) lists one audit,
// one partition at a time.
func (c *comparison) compareAudit(name string) error {
	audit, _ := results.AuditName(name)
	n, err := c.partitionsOf(name)
	if err != nil {
		return err
	}
	parts, err := newPartitions(n, c.opts.SpillDir)
	if err != nil {
		return fmt.Errorf("comparing %s: %w", name, err)
	}
	defer parts.close()
	a := &auditState{name: name, audit: audit, groups: map[groupKey]int32{}, parts: parts, naming: name == IssueIDsAudit}
	defer a.ids.close()
	if a.naming {
		if a.baseIDs = c.openBaselineIDs(); a.baseIDs != nil {
			parts.carryIDs(baseSide)
			f := a.baseIDs.file
			defer func() { _ = f.Close() }() // read only (closed already once read to its end)
		}
	}
	for s := range c.fsys {
		if err := c.readSide(a, s); err != nil {
			return err
		}
	}
	if len(parts[baseSide]) > 1 {
		for s := range a.out {
			a.out[s] = newOutcomeList(a.n[s])
		}
	}
	if a.naming {
		c.startNaming(a)
	}
	baseBefore := c.baselineListed()
	for p := range parts[baseSide] {
		if err := c.comparePartition(a, p); err != nil {
			return err
		}
	}
	a.baseListed = c.baselineListed() != baseBefore
	if a.naming {
		list, err := a.ids.list(c.opts.SpillDir)
		if err != nil {
			return fmt.Errorf("comparing %s: keeping its issue ids in a file: %w", name, err)
		}
		c.res.IssueIDs = list
	}
	return c.emit(a)
}

// baselineListed is how many of the baseline's issues the comparison has
// counted so far with a change the rows list (fixed, unstable): what the
// baseline's rows pass to Options.Rows (emitRecord) adds up to it.
func (c *comparison) baselineListed() int64 {
	return c.res.Counts.Fixed + c.res.Totals.UnstableBaseline
}

// partitionsOf is how many partitions the audit is compared in: one
// without Options.SpillDir, else by the size of its two CSVs.
func (c *comparison) partitionsOf(name string) (int, error) {
	if c.opts.SpillDir == "" {
		return 1, nil
	}
	var size int64
	for s, fsys := range c.fsys {
		fi, err := fs.Stat(fsys, name)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return 0, fmt.Errorf("the %s's %s: %w", sideNames[s], name, err)
		}
		size += fi.Size()
	}
	per := c.opts.partitionBytes
	if per <= 0 {
		per = partitionBytes
	}
	return partitionsFor(size, per), nil
}

// comparePartition marks, matches, names and counts partition p's records;
// with several partitions it keeps their outcomes and lets them go.
func (c *comparison) comparePartition(a *auditState, p int) error {
	if err := c.ctx.Err(); err != nil {
		return err
	}
	for s := range a.recs {
		ks, ids, err := a.parts[s][p].load(&a.recs[s])
		if err != nil {
			return fmt.Errorf("the %s's %s: reading it back from its file: %w", sideNames[s], a.name, err)
		}
		a.ks[s] = ks
		if s == baseSide && a.ids.known[s] {
			a.ids.part[s] = ids
		}
	}
	c.markUnstable(a)
	matchAll(&a.recs[baseSide], &a.recs[curSide])
	if a.naming {
		c.nameIssues(a)
	}
	c.count(a)
	if a.naming {
		if err := a.ids.keep(p, len(a.parts[baseSide]), c.opts.SpillDir); err != nil {
			return fmt.Errorf("comparing %s: keeping its issue ids in a file: %w", a.name, err)
		}
	}
	if len(a.parts[baseSide]) > 1 {
		a.keepOutcomes()
	}
	return nil
}

// keepOutcomes keeps the partition's outcomes by their rows and lets its
// records go.
func (a *auditState) keepOutcomes() {
	for s := range a.recs {
		for i := range int32(a.recs[s].len()) {
			k := a.k(s, i)
			o, other := a.outcomeOfRecord(s, i)
			if o.otherDiffers {
				a.out[s].others[k] = other
			}
			*a.out[s].at(k) = o
		}
	}
	a.recs, a.ks = [2]recordList{}, [2][]int32{}
}

// outcomeOfRecord is the outcome of the partition's record i on side s,
// and the issues of the record it matched.
func (a *auditState) outcomeOfRecord(s int, i int32) (outcome, int64) {
	r := a.recs[s].at(i)
	o := outcome{check: checkOf(r.html, r.group, r.issues), state: r.state, how: r.how, decided: r.decided}
	other := r.issues
	if r.state == stateMatched {
		other = a.recs[1-s].at(r.partner).issues
		o.otherDiffers = other != r.issues
	}
	return o, other
}

// outcomeOf is issue row k's outcome on side s, once every partition is
// compared, and for a matched row the issues of the row it matched.
func (a *auditState) outcomeOf(s int, k int32, issues int64) (outcome, int64) {
	if len(a.parts[baseSide]) == 1 {
		return a.outcomeOfRecord(s, k)
	}
	o := *a.out[s].at(k)
	if o.otherDiffers {
		return o, a.out[s].others[k]
	}
	return o, issues
}

// scanned is one row as the comparison sees it.
type scanned struct {
	page      int32
	width     int
	issues    int64
	rule      string // shown: the axe rule id, or the audit's name
	matchRule string // matched on: rule, split for unstable kinds of row
	animating bool
	onBody    bool // a focus row about the page's <body>: see unstable.go
}

// openSide opens one side's CSV of the audit; a missing file, or one without
// num_issues, is an audit that side did not run (nil reader).
func (c *comparison) openSide(name string, s int) (*results.Reader, io.Closer, error) {
	f, err := c.fsys[s].Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("the %s's %s: %w", sideNames[s], name, err)
	}
	r, err := results.NewReader(f)
	if err != nil {
		_ = f.Close() // read only
		return nil, nil, fmt.Errorf("the %s's %s: %w", sideNames[s], name, err)
	}
	if !r.Has("num_issues") {
		_ = f.Close() // read only
		return nil, nil, nil
	}
	return r, f, nil
}

// eachRow streams one side's CSV of the audit to fn, checking the context
// on every row and naming the side and file in errors.
func (c *comparison) eachRow(a *auditState, s int, fn func(*cells, results.Row, scanned) error) error {
	r, closer, err := c.openSide(a.name, s)
	if err != nil || r == nil {
		return err
	}
	defer func() { _ = closer.Close() }() // read only
	cols := cellsOf(r)
	for {
		if err := c.ctx.Err(); err != nil {
			return err
		}
		row, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err == nil {
			var sc scanned
			if sc, err = c.parse(a, cols, row); err == nil {
				err = fn(cols, row, sc)
			}
		}
		if err != nil {
			if c.ctx.Err() != nil {
				return c.ctx.Err()
			}
			return fmt.Errorf("the %s's %s: %w", sideNames[s], a.name, err)
		}
	}
}

func (c *comparison) parse(a *auditState, cols *cells, row results.Row) (scanned, error) {
	var sc scanned
	var err error
	if sc.width, err = c.vps.width(row.Field(cols.viewport)); err != nil {
		return sc, err
	}
	if sc.issues, err = results.ParseNumIssues(row.Field(cols.numIssues)); err != nil {
		return sc, err
	}
	sc.page = c.pages.id(row.Field(cols.url))
	sc.rule = RuleOf(a.audit, row.Field(cols.id))
	sc.matchRule = sc.rule
	if a.name == focusFile && strings.HasPrefix(row.Field(cols.description), animatingPrefix) {
		sc.animating = true
		sc.matchRule += "\x00animating"
	}
	if a.name == focusFile && focusedBody(row.Field(cols.html)) {
		sc.onBody = true
	}
	return sc, nil
}

// readSide reads one side's rows of the audit into records and groups.
func (c *comparison) readSide(a *auditState, s int) error {
	return c.eachRow(a, s, func(cols *cells, row results.Row, sc scanned) error {
		c.notePage(s, sc.page, row.Field(cols.pageTitle))
		key := groupKey{page: sc.page, width: int32(sc.width)}
		g, ok := a.groups[key]
		if !ok {
			g = int32(len(a.info))
			a.groups[key] = g
			a.info = append(a.info, groupInfo{key: key})
		}
		a.info[g].present[s] = true
		if sc.issues <= 0 {
			return nil // "No issues found" and passing rows: the audit ran, nothing to compare
		}
		if sc.animating {
			a.info[g].animating[s] = true
		}
		if a.n[s] >= MaxIssueRows {
			return fmt.Errorf("more than %d issue rows: too many to compare", MaxIssueRows)
		}
		rec := record{
			html:    ElementHash(row.Field(cols.html)),
			target:  ElementHash(row.Field(cols.position)),
			issues:  sc.issues,
			group:   g,
			rule:    c.strs.ID(sc.matchRule),
			org:     c.strs.ID(row.Field(cols.organisation)),
			impact:  c.strs.ID(row.Field(cols.impact)),
			partner: -1,
		}
		if sc.onBody {
			rec.state, rec.how = stateUnstable, howOnBody
		}
		var id IssueID
		if s == baseSide {
			id = c.nextBaselineID(a.baseIDs)
		}
		p := a.parts.of(sc.page)
		if err := a.parts[s][p].add(rec, int32(a.n[s]), id); err != nil {
			return fmt.Errorf("writing its records to a file: %w", err)
		}
		if s == curSide && a.naming && len(a.parts[s]) > 1 {
			a.ids.partOf = append(a.ids.partOf, uint8(p))
		}
		a.n[s]++
		return nil
	})
}

// MaxIssueRows bounds one audit CSV's issue rows on one side (48 bytes each
// in memory, so at most 240 MB; 8 with Options.SpillDir), and so the ids a
// reader of IssueIDsFile takes: five times the largest scans CWAC is run
// for (a million rows), it keeps a planted file from taking the reader's
// memory.
const MaxIssueRows = 5_000_000
