package cireport

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/a11y-dev/cwac-operator/internal/decision"
	"github.com/a11y-dev/cwac-operator/internal/diff"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

// AxeAuditFile is the CSV both formats read (see the package doc).
const AxeAuditFile = "axe_core_audit.csv"

// Caps on what one issue carries into either format: an element's HTML can
// be kilobytes, and whoever can write the results volume chooses every cell.
const (
	maxHTMLBytes = diff.MaxHTMLBytes
	maxTextBytes = 1000
)

// issue is one row of the axe audit as both formats see it, cells capped.
type issue struct {
	organisation, url, title string
	width                    int
	rule, impact             string
	help, helpURL            string
	description              string
	target, html             string
	tags                     []string
	issues                   int64
	// parts are what the row's id is made of (without the namespace): see
	// identity.go.
	parts diff.IssueParts
	// id is the issue's id (a row with issues only).
	id diff.IssueID
	// decision covers the issue (nil: none; see Options.Decisions).
	decision *decision.Decision
}

// readIssues passes each row of the axe audit to fn, in file order, each
// issue named (namesFor). A results directory without the audit (a scan
// that ran none) has no rows; a row that cannot be read is an error naming
// the file and row.
func readIssues(fsys fs.FS, opts Options, fn func(*issue) error) error {
	if _, err := fs.Stat(fsys, AxeAuditFile); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	names, err := namesFor(fsys, opts, nil, nil)
	if err != nil {
		return err
	}
	defer names.close()
	n := 0
	var p issueParser
	err = results.EachRowFS(fsys, AxeAuditFile, func(r *results.Reader, row results.Row) error {
		n++
		is, err := p.parse(r, row)
		if err != nil {
			return fmt.Errorf("row %d: %w", n, err)
		}
		if err := names.name(is); err != nil {
			return err
		}
		is.decision = opts.covering(is)
		return fn(is)
	})
	if err != nil {
		return fmt.Errorf("%s: %w", AxeAuditFile, err)
	}
	return nil
}

// maxCachedCells bounds each of issueParser's caches: axe gives each rule
// one tags cell and CWAC each viewport one cell, so a real scan has a few
// hundred distinct ones; past the bound a cell is parsed every time.
const maxCachedCells = 4096

// issueParser reads the axe audit's rows into issues. The cells that are
// Python literals (tags, viewport) repeat from row to row, so each distinct
// one is parsed once; so is each page's key, which the rows of one page
// share.
type issueParser struct {
	tags         map[string][]string // capped and trimmed: shared, never changed
	viewports    map[string]int
	url, key     string             // the last row's page URL and its diff.PageKey
	auditRules   map[string]string  // a rule's diff.AuditRule
	lastViewport lastCell[int]      // the last viewport cell, read
	lastTags     lastCell[[]string] // the last tags cell, read

	reader *results.Reader // the file col was looked up in
	col    issueColumns

	// is is the issue parse returns, made again for each row: a scan has
	// an issue row for every element axe flagged, and one issue allocated
	// per row was half of what the runner allocated, each kept by no one.
	is issue
}

// issueColumns are the audit's columns, looked up once per file (-1: none);
// position is diff.PositionColumn.
type issueColumns struct {
	org, url, title, viewport, numIssues, rule, impact, help, helpURL, description, target, position, html, tags int
}

func (p *issueParser) columns(r *results.Reader) issueColumns {
	if p.reader != r {
		p.reader = r
		p.col = issueColumns{
			org: r.Column("organisation"), url: r.Column("url"), title: r.Column("page_title"), viewport: r.Column("viewport_size"),
			numIssues: r.Column("num_issues"), rule: r.Column("id"), impact: r.Column("impact"), help: r.Column("help"),
			helpURL: r.Column("helpUrl"), description: r.Column("description"), target: r.Column("target"), html: r.Column("html"),
			tags: r.Column("tags"), position: diff.PositionColumn(r),
		}
	}
	return p.col
}

// parse reads a row into the parser's issue, which stays valid until the
// next row is parsed: whoever keeps a cell of it copies the cell.
func (p *issueParser) parse(r *results.Reader, row results.Row) (*issue, error) {
	c := p.columns(r)
	width, err := p.width(row.Field(c.viewport))
	if err != nil {
		return nil, err
	}
	n, err := results.ParseNumIssues(row.Field(c.numIssues))
	if err != nil {
		return nil, err
	}
	tags, err := p.tagsOf(row.Field(c.tags))
	if err != nil {
		return nil, err
	}
	org, url, rule, html := row.Field(c.org), row.Field(c.url), row.Field(c.rule), row.Field(c.html)
	target := row.Field(c.position)
	p.is = issue{
		organisation: textcap.Head(org, maxTextBytes),
		url:          textcap.Head(url, urlpolicy.MaxURLLength),
		title:        textcap.Head(row.Field(c.title), maxTextBytes),
		width:        width,
		rule:         textcap.Head(rule, maxTextBytes),
		impact:       textcap.Head(row.Field(c.impact), maxTextBytes),
		help:         textcap.Head(row.Field(c.help), maxTextBytes),
		helpURL:      textcap.Head(row.Field(c.helpURL), urlpolicy.MaxURLLength),
		description:  textcap.Head(row.Field(c.description), maxTextBytes),
		target:       textcap.Head(row.Field(c.target), maxTextBytes),
		html:         textcap.Head(html, maxHTMLBytes),
		tags:         tags,
		issues:       n,
	}
	if url != p.url || p.key == "" {
		p.url, p.key = url, diff.PageKey(url)
	}
	p.is.parts = partsOf(org, p.key, width, p.auditRule(rule), html, target)
	return &p.is, nil
}

// auditRule is diff.AuditRule of the axe audit and rule, made once per
// distinct rule.
func (p *issueParser) auditRule(rule string) string {
	if ar, ok := p.auditRules[rule]; ok {
		return ar
	}
	ar := diff.AuditRule(axeAudit, rule)
	if p.auditRules == nil {
		p.auditRules = map[string]string{}
	}
	if len(p.auditRules) < maxCachedCells {
		p.auditRules[rule] = ar
	}
	return ar
}

// lastCell is the last cell of a column the parser read, and what it was
// read as: the rows of a page repeat it, and comparing it costs less than
// looking a long cell up in the parser's table.
type lastCell[T any] struct {
	cell  string
	value T
	ok    bool
}

// read is parse(p, cell), or what it was for the last cell when cell is
// that one.
func (l *lastCell[T]) read(p *issueParser, cell string, parse func(*issueParser, string) (T, error)) (T, error) {
	if l.ok && cell == l.cell {
		return l.value, nil
	}
	v, err := parse(p, cell)
	if err == nil {
		*l = lastCell[T]{cell: cell, value: v, ok: true}
	}
	return v, err
}

// width is the viewport cell's width, parsed once per distinct cell.
func (p *issueParser) width(cell string) (int, error) {
	return p.lastViewport.read(p, cell, (*issueParser).parseWidth)
}

func (p *issueParser) parseWidth(cell string) (int, error) {
	if w, ok := p.viewports[cell]; ok {
		return w, nil
	}
	vp, err := results.ParseViewport(cell)
	if err != nil {
		return 0, err
	}
	if p.viewports == nil {
		p.viewports = map[string]int{}
	}
	if len(p.viewports) < maxCachedCells {
		p.viewports[cell] = vp.Width
	}
	return vp.Width, nil
}

// tagsOf is the tags cell's tags, capped and trimmed, parsed once per
// distinct cell. The slice is shared by every issue of that cell.
func (p *issueParser) tagsOf(cell string) ([]string, error) {
	return p.lastTags.read(p, cell, (*issueParser).parseTags)
}

func (p *issueParser) parseTags(cell string) ([]string, error) {
	if t, ok := p.tags[cell]; ok {
		return t, nil
	}
	tags, err := results.ParseTags(cell)
	if err != nil {
		return nil, err
	}
	if len(tags) > maxTags {
		tags = tags[:maxTags]
	}
	for i, t := range tags {
		tags[i] = textcap.Head(strings.TrimSpace(t), maxTagBytes)
	}
	if p.tags == nil {
		p.tags = map[string][]string{}
	}
	if len(p.tags) < maxCachedCells {
		p.tags[cell] = tags
	}
	return tags, nil
}

// Caps on a rule's tags: axe gives a rule a dozen short ones.
const (
	maxTags     = 64
	maxTagBytes = 64
)
