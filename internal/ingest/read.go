package ingest

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/cespare/xxhash/v2"

	"github.com/a11y-dev/cwac-operator/internal/diff"
	"github.com/a11y-dev/cwac-operator/internal/report"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/store"
)

// Caps on the text kept from a cell, whatever a planted CSV holds (the
// results reader already caps a record at results.MaxRecordBytes).
const (
	maxNameBytes   = store.MaxNameBytes    // sector, impact (organisation and rule: diff.IdentityNameBytes)
	maxURLBytes    = diff.IdentityURLBytes // help URLs (page URLs: diff.IdentityURLBytes, the identity's cut)
	maxTargetBytes = 1000
)

// maxRows bounds the issue rows of one scan held in memory (40 bytes each
// while read, 48 once matched, so 480 MB at most): ten times the largest
// scans CWAC is run for.
const maxRows = 10_000_000

// record is one issue row (num_issues > 0) of the scan, in fixed size: the
// strings that identify it are hashed (xxhash, stable across processes and
// versions, as stored hashes must be) or numbered. Records are kept in
// file order, so the k-th issue row of a CSV is its file's k-th record.
type record struct {
	html   uint64 // the element's whole HTML
	target uint64 // diff.ElementTarget: the XPath target, or the focus audit's tab press
	page   int32  // index in reading.pages
	rule   int32  // interned audit + "\x00" + rule
	issues uint32 // CWAC's num_issues (at most maxRowIssues)
	width  uint16 // at most maxWidth
	impact uint8  // report.ImpactClass
	// flags holds the record's fate, which hash is its element key and
	// whether it is about the page's <body> (flagBody): 32 bytes a record,
	// not 40 (6.9 MB at a million rows, held through the whole ingest).
	flags uint8
}

// The bits of record.flags.
const (
	fateBits     = 0b0000_0111 // fateUnstable … fateNew
	elemFromBits = 0b0001_1000 // elemTarget, elemHTML or elemOwn, shifted by elemFromShift
	flagBody     = 0b0010_0000 // a focus row about the page's <body>: always unstable
)

const elemFromShift = 3

// fate is what became of the record's issue.
func (r *record) fate() uint8 { return r.flags & fateBits }

func (r *record) setFate(f uint8) { r.flags = r.flags&^fateBits | f&fateBits }

// elemFrom is which hash is the report's element key (reading.elemOf).
func (r *record) elemFrom() uint8 { return (r.flags & elemFromBits) >> elemFromShift }

func (r *record) setElemFrom(e uint8) {
	r.flags = r.flags&^elemFromBits | (e<<elemFromShift)&elemFromBits
}

// body says the record is a focus row about the page's <body>.
func (r *record) body() bool { return r.flags&flagBody != 0 }

// Bounds of a record's cells: a row beyond them is refused (the scan is not
// recorded, and says which cell), not wrapped. No browser window is wider
// than maxWidth pixels, and no page has maxRowIssues elements failing one
// rule.
const (
	maxWidth     = math.MaxUint16
	maxRowIssues = math.MaxUint32
)

// Where a record's element key (the report's: target, else HTML, else
// description) is: it is almost always its target's or its HTML's hash,
// so a record keeps which rather than a third hash.
const (
	elemTarget uint8 = iota
	elemHTML
	elemOwn // neither: in reading.elemOwn
)

// What became of a row's issue.
const (
	fateUnstable uint8 = iota // not compared: see diff's unstable rules
	fateOpen                  // matched an open issue: still open
	fateRetarget              // matched an open issue on its target; its HTML changed
	fateReopened              // matched a fixed issue
	fateNew                   // a new issue
)

// page is one page of one organisation, as this scan saw it, in 16 bytes:
// a scan has a page for every few issue rows. Its key (reading.pageKey) is
// its host's (reading.hosts), kept once for all its pages, then the rest,
// in reading.keys.
type page struct {
	keyAt  uint32 // where the rest of its key is in reading.keys
	org    int32
	keyLen uint16 // the rest's length: at most diff.IdentityURLBytes
	host   uint16 // reading.hosts index
	flags  uint8  // pageTitled, pageTitleVaries
}

// The bits of page.flags.
const (
	pageTitled      = 1 << iota // a row gave the page's title (reading.titles)
	pageTitleVaries             // rows carried more than one title: the page replaced itself
)

// titleVaries says the page replaced itself while it was scanned.
func (p *page) titleVaries() bool { return p.flags&pageTitleVaries != 0 }

// groupKey is one audit (its reading.audits index) on one page at one
// viewport width.
type groupKey struct {
	audit, page, width int32
}

// seenGroup is a group rows were read for (so its audit ran there), in 8
// bytes, as a scan has one for every few issue rows: the audit's number in
// the low bits of audit, and in the top one whether the focus audit could
// not run there.
type seenGroup struct {
	page  int32
	width uint16
	audit uint16
}

// groupAnimating is seenGroup.audit's flag bit; the audit numbers are
// below it (maxAudits).
const groupAnimating = 1 << 15

func (g *seenGroup) key() groupKey {
	return groupKey{audit: int32(g.audit &^ groupAnimating), page: g.page, width: int32(g.width)}
}

func (g *seenGroup) animating() bool { return g.audit&groupAnimating != 0 }

func (g *seenGroup) setAnimating() { g.audit |= groupAnimating }

// maxAudits bounds the audits whose result files a scan has: CWAC has a
// handful.
const maxAudits = groupAnimating - 1

// groupFlags are what a scan saw of a group.
type groupFlags struct {
	present   bool // the audit wrote a row (issue or not) for the page and width
	animating bool // the focus audit could not run there
}

// orgFigures are one organisation's counts in this scan, as CWAC and the
// leaderboard count them (every issue row, tracked or not).
type orgFigures struct {
	name, sector string
	baseURLs     int
	pages        int
	issues       int64
	byImpact     report.ImpactCounts
	byAudit      map[string]int64
	// setAside is CWAC's count of timing-dependent rows, which are in
	// none of the figures above (report.TimingDependentWhy).
	setAside int64
	// decided is CWAC's count of issues a decision covered, taken out of
	// the figures above once the rows are matched (leaveOutDecided).
	decided int64
}

// fileSpan is where one issue CSV's records are.
type fileSpan struct {
	name       string
	start, end int
}

// reading is the first pass over the results (a results.RowVisitor): what
// the scan saw, in memory bounded by its issue rows.
type reading struct {
	strs   diff.Interner
	orgIDs map[string]int32
	orgs   []*orgFigures
	// pageSlots finds a page by its organisation and key while the scan
	// is read (reading.findPage).
	pageSlots pageTable
	// pages are the scan's pages, in blocks as the records are: a scan
	// has a page for every few issue rows, and a slice of them doubling
	// held its old and new arrays at once at the read's peak. Their keys
	// are in keys, and their titles' hashes, needed only while reading,
	// in titles: 32 bits of one, as a title that changed to one whose
	// hash has the same 32 bits (one change in four billion) only leaves
	// the page taken as not replacing itself.
	pages  blockList[page]
	keys   textArena
	titles blockList[uint32]
	// hosts are the scheme and host the pages' keys begin with (the
	// first, "": none), and hostIDs their indexes.
	hosts   []string
	hostIDs map[string]uint16
	// keyOf and keyOfPage are the key pageKey made last, and its page's
	// index: a page's rows are matched and written together.
	keyOf     string
	keyOfPage int32
	// groups are the groups rows were read for, each once among the
	// latest of its page and audit (reading.group; ingestion.sortGroups
	// merges the rest): no map of them, which at a page of its own for
	// every few rows was the largest table of the read but the records,
	// and in blocks, for the pages' reason.
	groups blockList[seenGroup]
	recs   blockList[record]
	// elemOwn holds the element keys of the records whose key is neither
	// their target's hash nor their HTML's (a row with neither cell), by
	// record index.
	elemOwn  map[int32]uint64
	files    []fileSpan
	widths   map[string]int32
	ruleAuds map[int32]int32 // rule id → its audit's number
	// audits are the names' ids (strs) of the scan's audits, by number;
	// auditNos numbers them.
	audits   []int32
	auditNos map[int32]int32
	axe      string // axe-core's version, from help URLs
	// skipped say which result files were not read, and why (at most
	// maxSkippedNamed, then how many more).
	skipped     []string
	skippedMore int

	// The file being read.
	file  string
	kind  fileKind
	audit int32 // its number (reading.audits)
	focus bool
	col   columns
	// fileRules are the file's rules (its audit's) by id cell, and
	// lastURL, lastOrg and lastPage the page of the last row: rows of a
	// page come together and repeat a few rules, and finding the page (its
	// URL parsed into diff.PageKey) and naming the rule afresh for each row
	// made more garbage than the rest of the read. lastPage is -1 before
	// the first page.
	fileRules map[string]int32
	lastURL   string
	lastOrg   int32
	lastPage  int32
}

type fileKind int

const (
	fileOther fileKind = iota
	fileIssues
	filePagesScanned
	fileAuditLog
)

// maxSkippedNamed bounds the skipped result files named: a results
// directory is written by a scan pod and may hold any number of them.
const maxSkippedNamed = 10

// SkipFile implements results.SkipVisitor: a result CSV that is not a
// regular file is not read, so the scan is recorded without its rows, and
// Result says so.
func (rd *reading) SkipFile(_, why string) error {
	if len(rd.skipped) < maxSkippedNamed {
		rd.skipped = append(rd.skipped, why)
	} else {
		rd.skippedMore++
	}
	return nil
}

// skippedFiles is what Result.Skipped says.
func (rd *reading) skippedFiles() []string {
	out := slices.Clone(rd.skipped)
	if rd.skippedMore > 0 {
		out = append(out, fmt.Sprintf("and %d more result files that are not regular files", rd.skippedMore))
	}
	return out
}

func newReading() *reading {
	return &reading{
		orgIDs:    map[string]int32{},
		widths:    map[string]int32{},
		ruleAuds:  map[int32]int32{},
		auditNos:  map[int32]int32{},
		hosts:     []string{""},
		hostIDs:   map[string]uint16{"": 0},
		keyOfPage: -1,
		elemOwn:   map[int32]uint64{},
		lastPage:  -1,
	}
}

// BeginFile notes what the rows that follow are.
func (rd *reading) BeginFile(file string, r *results.Reader) error {
	if n := len(rd.files); n > 0 && rd.files[n-1].end < 0 {
		rd.files[n-1].end = rd.recs.len()
	}
	rd.file, rd.kind, rd.fileRules, rd.col = file, fileOther, nil, columnsOf(r)
	switch file {
	case results.PagesScannedFile:
		rd.kind = filePagesScanned
	case results.AuditLogFile:
		rd.kind = fileAuditLog
	default:
		if audit, ok := results.AuditName(file); ok && r.Has("num_issues") {
			n, err := rd.auditNo(rd.strs.ID(capText(audit, maxNameBytes)))
			if err != nil {
				return err
			}
			rd.kind, rd.audit = fileIssues, n
			rd.focus = file == diff.FocusAuditFile
			rd.files = append(rd.files, fileSpan{name: file, start: rd.recs.len(), end: -1})
		}
	}
	return nil
}

// EndFile closes an issue CSV's span of records.
func (rd *reading) EndFile(string, *results.Reader) error {
	if n := len(rd.files); n > 0 && rd.files[n-1].end < 0 {
		rd.files[n-1].end = rd.recs.len()
	}
	return nil
}

// VisitRow reads one row (see results.RowVisitor).
func (rd *reading) VisitRow(file string, r *results.Reader, row results.Row) error {
	if file != rd.file {
		return fmt.Errorf("row of %s read before its header", file)
	}
	switch rd.kind {
	case filePagesScanned:
		n, err := results.ParseCount(row.Field(rd.col.numPages))
		if err != nil {
			return fmt.Errorf("number_of_pages: %w", err)
		}
		o := rd.org(row.Field(rd.col.organisation), row.Field(rd.col.sector))
		o.baseURLs++
		o.pages += int(min(n, 1<<31-1))
	case fileAuditLog:
		if u := row.Field(rd.col.url); u != "" {
			// a page visited, issues or not
			if _, err := rd.page(rd.orgID(row.Field(rd.col.organisation), row.Field(rd.col.sector)), u); err != nil {
				return err
			}
		}
	case fileIssues:
		return rd.issueRow(row)
	}
	return nil
}

// groupLookBack is how many of the latest groups of the same page and
// audit group looks among before it adds one.
const groupLookBack = 16

// group is the entry of g among the latest groups of its page and audit,
// added when it is not there. A page's rows may come at its widths in
// turn (a rule at 320, 1280, 320 …): kept once per run of rows, a
// million-row scan so ordered held four entries a group, 9 MiB where 2
// do. More widths than groupLookBack only add entries, which sortGroups
// merges.
func (rd *reading) group(g groupKey) *seenGroup {
	for i := rd.groups.len() - 1; i >= 0 && i >= rd.groups.len()-groupLookBack; i-- {
		s := rd.groups.at(i)
		k := s.key()
		if k.page != g.page || k.audit != g.audit {
			break
		}
		if k.width == g.width {
			return s
		}
	}
	// The audit is below maxAudits (auditNo) and the width at most
	// maxWidth (width).
	rd.groups.add(seenGroup{page: g.page, width: uint16(g.width), audit: uint16(g.audit)})
	return rd.groups.at(rd.groups.len() - 1)
}

// auditNo numbers an audit (its name's id in strs).
func (rd *reading) auditNo(name int32) (int32, error) {
	if n, ok := rd.auditNos[name]; ok {
		return n, nil
	}
	if len(rd.audits) >= maxAudits {
		return 0, fmt.Errorf("more than %d audits' result files: too many to ingest", maxAudits)
	}
	n := int32(len(rd.audits))
	rd.audits = append(rd.audits, name)
	rd.auditNos[name] = n
	return n, nil
}

// auditName is the name of audit number n.
func (rd *reading) auditName(n int32) string { return rd.strs.Text(rd.audits[n]) }

func (rd *reading) issueRow(row results.Row) error {
	c := &rd.col
	width, err := rd.width(row.Field(c.viewport))
	if err != nil {
		return err
	}
	n, err := results.ParseNumIssues(row.Field(c.numIssues))
	if err != nil {
		return err
	}
	org := rd.orgID(row.Field(c.organisation), row.Field(c.sector))
	p, err := rd.page(org, row.Field(c.url))
	if err != nil {
		return err
	}
	pg := rd.pages.at(int(p))
	title := uint32(xxhash.Sum64String(row.Field(c.pageTitle)))
	switch seen := rd.titles.at(int(p)); {
	case pg.flags&pageTitled == 0:
		pg.flags |= pageTitled
		*seen = title
	case *seen != title:
		pg.flags |= pageTitleVaries
	}
	last := rd.group(groupKey{audit: rd.audit, page: p, width: width})
	if rd.focus && diff.FocusAnimating(row.Field(c.description)) {
		last.setAnimating()
	}
	if n <= 0 {
		return nil // "No issues found" and passing rows: the audit ran, nothing to track
	}
	if rd.recs.len() >= maxRows {
		return fmt.Errorf("more than %d issue rows: too many to ingest", maxRows)
	}
	auditName := rd.auditName(rd.audit)
	rule := rd.rule(auditName, row.Field(c.id))
	html := row.Field(c.html)
	elem := row.Field(c.target)
	if elem == "" {
		elem = html
	}
	if elem == "" {
		elem = row.Field(c.description)
	}
	impact := report.ImpactClass(row.Field(c.impact))
	body := rd.focus && diff.FocusedBody(html)
	if n > maxRowIssues {
		return fmt.Errorf("num_issues %d is out of range (at most %d)", n, maxRowIssues)
	}
	rec := record{
		html:   xxhash.Sum64String(html),
		target: xxhash.Sum64String(row.Field(c.position)),
		issues: uint32(n),
		page:   p,
		rule:   rule,
		impact: uint8(impact),
		width:  uint16(width),
	}
	if body {
		rec.flags |= flagBody
	}
	switch key := xxhash.Sum64String(elem); key {
	case rec.target:
		rec.setElemFrom(elemTarget)
	case rec.html:
		rec.setElemFrom(elemHTML)
	default:
		rec.setElemFrom(elemOwn)
		rd.elemOwn[int32(rd.recs.len())] = key
	}
	rd.recs.add(rec)
	o := rd.orgs[org]
	if body {
		o.setAside += n // in no figure, as the report counts (report.TimingDependentWhy)
		return nil
	}
	o.issues += n
	o.byImpact[impact] += n
	o.byAudit[auditName] += n
	if rd.axe == "" {
		rd.axe = axeVersion(row.Field(c.helpURL))
	}
	return nil
}

// elemOf is the report's element key of the i-th record.
func (rd *reading) elemOf(i int32) uint64 {
	r := rd.recs.at(int(i))
	switch r.elemFrom() {
	case elemTarget:
		return r.target
	case elemHTML:
		return r.html
	}
	return rd.elemOwn[i]
}

// org finds or adds an organisation, noting its sector.
func (rd *reading) org(name, sector string) *orgFigures {
	return rd.orgs[rd.orgID(name, sector)]
}

func (rd *reading) orgID(name, sector string) int32 {
	name = diff.IdentityText(name, diff.IdentityNameBytes)
	id, ok := rd.orgIDs[name]
	if !ok {
		id = int32(len(rd.orgs))
		rd.orgIDs[strings.Clone(name)] = id
		rd.orgs = append(rd.orgs, &orgFigures{name: strings.Clone(name), byAudit: map[string]int64{}})
	}
	if o := rd.orgs[id]; o.sector == "" && sector != "" {
		o.sector = strings.Clone(capText(sector, maxNameBytes))
	}
	return id
}

// page finds or adds an organisation's page by its normalised URL.
func (rd *reading) page(org int32, url string) (int32, error) {
	if rd.lastPage >= 0 && url == rd.lastURL && org == rd.lastOrg {
		return rd.lastPage, nil
	}
	id, err := rd.findPage(org, url)
	if err != nil {
		return 0, err
	}
	rd.lastURL, rd.lastOrg, rd.lastPage = url, org, id
	return id, nil
}

// findPage finds or adds the page of an organisation's URL.
func (rd *reading) findPage(org int32, url string) (int32, error) {
	key := diff.IdentityText(diff.PageKey(url), diff.IdentityURLBytes)
	host, rest := splitHost(key)
	h := pageHash(org, host, rest)
	slot := rd.pageSlots.find(h, func(id int32) bool {
		p := rd.pages.at(int(id))
		return p.org == org && rd.pageKeyIs(p, key)
	})
	if slot.used() {
		return slot.page(), nil
	}
	if rd.pages.len() >= maxPages {
		return 0, fmt.Errorf("more than %d pages: too many to ingest", maxPages)
	}
	hostID, ok := rd.hostIDs[host]
	if !ok {
		if len(rd.hosts) <= maxHosts {
			hostID = uint16(len(rd.hosts))
			host = strings.Clone(host)
			rd.hosts = append(rd.hosts, host)
			rd.hostIDs[host] = hostID
		} else {
			rest = key // past maxHosts hosts, a key is kept whole
		}
	}
	at, err := rd.keys.add(rest)
	if err != nil {
		return 0, err
	}
	id := int32(rd.pages.len())
	rd.pages.add(page{org: org, keyAt: at, keyLen: uint16(len(rest)), host: hostID})
	rd.titles.add(0)
	slot.set(id, h)
	rd.pageSlots.added(func(id int32) uint64 {
		p := rd.pages.at(int(id))
		return pageHash(p.org, rd.hosts[p.host], rd.keys.text(p.keyAt, int(p.keyLen)))
	})
	return id, nil
}

// maxHosts bounds reading.hosts: past it a page's key is kept whole.
const maxHosts = math.MaxUint16

// splitHost splits a page key after its scheme and host
// ("https://example.govt.nz", "/a/b"): the pages of a site share the
// first part.
func splitHost(key string) (host, rest string) {
	i := strings.Index(key, "://")
	if i < 0 {
		return "", key
	}
	j := strings.IndexByte(key[i+3:], '/')
	if j < 0 {
		return key, ""
	}
	return key[:i+3+j], key[i+3+j:]
}

// pageKeyIs says whether key is page p's key, without making the key.
func (rd *reading) pageKeyIs(p *page, key string) bool {
	host := rd.hosts[p.host]
	return len(key) == len(host)+int(p.keyLen) && key[:len(host)] == host &&
		key[len(host):] == rd.keys.text(p.keyAt, int(p.keyLen))
}

// pageKey is page id's key: diff.PageKey of its URL, capped.
func (rd *reading) pageKey(id int32) string {
	if id == rd.keyOfPage {
		return rd.keyOf
	}
	p := rd.pages.at(int(id))
	rest := rd.keys.text(p.keyAt, int(p.keyLen))
	if p.host == 0 {
		return rest
	}
	rd.keyOf, rd.keyOfPage = rd.hosts[p.host]+rest, id
	return rd.keyOf
}

// maxPages bounds the pages of one scan, as maxRows its issue rows: each
// issue row is on a page, and an audit log's rows add pages without issues.
const maxPages = maxRows

// A page's index fits in a pageSlot.
const _ = uint(maxTablePages - maxPages)

// maxFileRules bounds reading.fileRules: axe has about a hundred rules.
const maxFileRules = 4096

// rule is the interned diff.AuditRule of the file's audit and a rule id
// cell, noted with its audit.
func (rd *reading) rule(audit, id string) int32 {
	if r, ok := rd.fileRules[id]; ok {
		return r
	}
	r := rd.strs.ID(diff.AuditRule(audit, id))
	rd.ruleAuds[r] = rd.audit
	if rd.fileRules == nil {
		rd.fileRules = map[string]int32{}
	}
	if len(rd.fileRules) < maxFileRules {
		rd.fileRules[id] = r
	}
	return r
}

// pageHash is what reading.pageSlots finds a page by, of its organisation
// and its key (host, then the rest: the key's hash, whatever the split):
// any two pages may share one, as the page found is checked.
func pageHash(org int32, host, rest string) uint64 {
	var d xxhash.Digest
	d.Reset()
	_, _ = d.WriteString(host)
	_, _ = d.WriteString(rest)
	return (d.Sum64() ^ uint64(org)*0x9e3779b97f4a7c15) & pageHashMask
}

// pageHashMask is in every pageHash: tests clear it, so that every page's
// hash is the same.
var pageHashMask = ^uint64(0)

// maxWidths bounds the distinct viewport cells remembered; CWAC writes a few.
const maxWidths = 4096

func (rd *reading) width(cell string) (int32, error) {
	if w, ok := rd.widths[cell]; ok {
		return w, nil
	}
	vp, err := results.ParseViewport(cell)
	if err != nil {
		return 0, err
	}
	if vp.Width < 0 || vp.Width > maxWidth {
		return 0, fmt.Errorf("viewport width %d is out of range", vp.Width)
	}
	if len(rd.widths) < maxWidths {
		rd.widths[strings.Clone(cell)] = int32(vp.Width)
	}
	return int32(vp.Width), nil
}

// axeHelp finds axe-core's version in a rule's help URL
// (https://dequeuniversity.com/rules/axe/4.13/color-contrast?…).
var axeHelp = regexp.MustCompile(`/rules/axe/([0-9]+\.[0-9]+(?:\.[0-9]+)?)/`)

func axeVersion(helpURL string) string {
	if m := axeHelp.FindStringSubmatch(helpURL); m != nil {
		return strings.Clone(m[1])
	}
	return ""
}

// capText is a cell as stored: valid UTF-8 without NUL (PostgreSQL's text
// holds neither; SQLite would keep them, and the engines must agree), cut
// to at most n bytes on a character boundary, unmarked, as stored text always
// was: a long name cut today is the key rows stored before were kept under.
// It is the cut an issue's id is made of (diff.IdentityText).
func capText(s string, n int) string { return diff.IdentityText(s, n) }
