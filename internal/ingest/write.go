package ingest

import (
	"context"
	"errors"
	"strings"

	"github.com/cespare/xxhash/v2"

	"github.com/a11y-dev/cwac-operator/internal/diff"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/wcag"
	"github.com/a11y-dev/cwac-operator/internal/weblink"
)

// emptyHash is the hash of an empty cell: a row without element HTML
// belongs to no template.
var emptyHash = xxhash.Sum64String("")

// issueBatch is how many new issues are written at a time.
const issueBatch = 1000

// errChanged is returned when the second read of the results does not
// find the rows the first read matched.
var errChanged = errors.New("the results changed while they were being ingested")

// writing is the second pass over the results (a results.RowVisitor): it
// writes what needs the CSVs' text — new issues, changed elements, new
// templates — for the records the first pass matched.
type writing struct {
	in  *ingestion
	ctx context.Context

	file   string
	col    columns
	span   *fileSpan
	next   int // index of the next issue CSV in reading.files
	k      int // the file's issue rows so far
	batch  []store.NewIssue
	ids    []int64
	tmpls  []store.NewTemplate
	active bool
	// criteria are the WCAG criteria of each tags cell seen (at most
	// maxTagCells): a rule's rows repeat its cell, and parsing it (a Python
	// list) for each row was a tenth of a large ingest.
	criteria map[string]string
}

// maxTagCells and maxTagCellBytes bound writing.criteria: axe's rules have
// about a hundred tags cells of a few hundred bytes; another cell is
// parsed each time.
const (
	maxTagCells     = 1024
	maxTagCellBytes = 2048
)

// BeginFile finds the records of an issue CSV, in the first pass's order.
func (wr *writing) BeginFile(file string, r *results.Reader) error {
	wr.file, wr.span, wr.k, wr.active, wr.col = file, nil, 0, false, columnsOf(r)
	if _, ok := results.AuditName(file); !ok || !r.Has("num_issues") {
		return nil
	}
	files := wr.in.rd.files
	if wr.next >= len(files) || files[wr.next].name != file {
		return errChanged
	}
	wr.span, wr.active = &files[wr.next], true
	wr.next++
	return nil
}

// EndFile checks that the file had as many issue rows as before.
func (wr *writing) EndFile(string, *results.Reader) error {
	if wr.active && wr.span.start+wr.k != wr.span.end {
		return errChanged
	}
	return nil
}

// VisitRow writes what one issue row's record needs.
func (wr *writing) VisitRow(file string, r *results.Reader, row results.Row) error {
	if !wr.active || file != wr.file {
		return nil
	}
	n, err := results.ParseNumIssues(row.Field(wr.col.numIssues))
	if err != nil || n <= 0 {
		return err
	}
	i := wr.span.start + wr.k
	wr.k++
	rd := wr.in.rd
	html := row.Field(wr.col.html)
	if i >= wr.span.end || rd.recs.at(i).html != xxhash.Sum64String(html) {
		return errChanged
	}
	rec := rd.recs.at(i)
	switch rec.fate() {
	case fateNew:
		wr.add(int32(i), row, html)
	case fateRetarget:
		if err := wr.in.w.SetElement(wr.ctx, wr.in.issueIDs.get(i), capText(html, diff.MaxHTMLBytes), rec.html); err != nil {
			return err
		}
	}
	if id, ok := wr.in.newTemplates[int32(i)]; ok {
		audit, rule := diff.SplitAuditRule(rd.strs.Text(rec.rule))
		wr.tmpls = append(wr.tmpls, store.NewTemplate{
			ID: id, OrgID: wr.in.orgStore[rd.pages.at(int(rec.page)).org],
			Key: store.TemplateKey{Audit: audit, Rule: rule, ElementHash: rec.html}, ElementHTML: capText(html, diff.MaxHTMLBytes),
		})
	}
	if len(wr.batch) >= issueBatch || len(wr.tmpls) >= issueBatch {
		return wr.flush()
	}
	return nil
}

// add queues the new issue of record i with its text.
func (wr *writing) add(i int32, row results.Row, html string) {
	rd := wr.in.rd
	rec := rd.recs.at(int(i))
	audit, rule := diff.SplitAuditRule(rd.strs.Text(rec.rule))
	target := row.Field(wr.col.position)
	help := weblink.HTTP(row.Field(wr.col.helpURL)) // a link people follow: nothing else
	wr.ids = append(wr.ids, wr.in.issueIDs.get(int(i)))
	wr.batch = append(wr.batch, store.NewIssue{
		Fingerprint: wr.in.newID(i).String(),
		OrgID:       wr.in.orgStore[rd.pages.at(int(rec.page)).org], PageID: wr.in.pageStore.get(int(rec.page)),
		Width: int(rec.width), Audit: audit, Rule: rule, Impact: capText(row.Field(wr.col.impact), maxNameBytes),
		ElementHTML: capText(html, diff.MaxHTMLBytes), ElementHash: rec.html,
		Target: capText(target, maxTargetBytes), TargetHash: rec.target,
		HelpURL: capText(help, maxURLBytes), WCAG: wr.criteriaOf(row.Field(wr.col.tags)),
	})
}

// criteriaOf is the WCAG criteria of a tags cell, comma-separated ("" for
// a cell that is not a list).
func (wr *writing) criteriaOf(cell string) string {
	if c, ok := wr.criteria[cell]; ok {
		return c
	}
	var numbers []string
	if tags, err := results.ParseTags(cell); err == nil {
		for _, c := range wcag.Criteria(tags) {
			numbers = append(numbers, c.Number)
		}
	}
	c := strings.Join(numbers, ",")
	if wr.criteria == nil {
		wr.criteria = map[string]string{}
	}
	if len(wr.criteria) < maxTagCells && len(cell) <= maxTagCellBytes {
		wr.criteria[strings.Clone(cell)] = c
	}
	return c
}

// flush writes the queued issues and templates.
func (wr *writing) flush() error {
	if err := wr.in.w.AddIssues(wr.ctx, wr.ids, wr.batch); err != nil {
		return err
	}
	if err := wr.in.w.AddTemplates(wr.ctx, wr.tmpls); err != nil {
		return err
	}
	wr.batch, wr.ids, wr.tmpls = wr.batch[:0], wr.ids[:0], wr.tmpls[:0]
	return nil
}
