package mcpserver

import (
	"context"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"

	"github.com/a11y-dev/cwac-operator/internal/mcpapi"
	"github.com/a11y-dev/cwac-operator/internal/results"
)

// auditTypeRE is a CSV stem; it keeps audit_type from naming a path.
var auditTypeRE = regexp.MustCompile(`^[a-z0-9_]{1,64}$`)

// maxCellBytes caps one cell in a tool answer: CWAC puts whole HTML
// snippets in cells.
const maxCellBytes = 4096

// getResultsDescription is what MCP clients show of cwac_get_results.
const getResultsDescription = "Read a complete scan's result rows, optionally one audit type and one axe impact, " +
	"with limit and offset."

func init() { defineTool("cwac_get_results", getResultsDescription, true, (*Server).getResults) }

// getResults reads one page of a scan's rows through a row filter. With the
// row index the runner wrote (results.RowIndexFile) the total is known
// unread and the read starts near the page; without one (CWAC run by hand,
// older scans) the read stops one matching row past the page and the total
// is reported as a lower bound. Files are read row by row, never whole.
func (s *Server) getResults(ctx context.Context, call *callInfo, in mcpapi.ResultsInput) (mcpapi.ResultsOutput, error) {
	q, err := s.resultsQuery(in)
	if err != nil {
		return mcpapi.ResultsOutput{}, err
	}
	res, err := s.access.results(ctx, call, in.ScanID)
	if err != nil {
		return mcpapi.ResultsOutput{}, err
	}
	fsys, closeFn, err := s.access.openResults(ctx, res)
	if err != nil {
		return mcpapi.ResultsOutput{}, err
	}
	defer closeFn()
	files, err := resultFiles(fsys, in.AuditType)
	if err != nil {
		return mcpapi.ResultsOutput{}, err
	}
	pg := &page{limit: q.limit, budget: s.cfg.MaxResponseBytes - 1024, rows: []map[string]any{}}
	read, err := results.ReadPage(ctx, fsys, results.PageRequest{
		Files: files, Filter: q.filter, Offset: int64(in.Offset), Limit: int64(q.limit),
		Index: rowIndex(fsys), Keep: pg.add,
	})
	if err != nil {
		if ctx.Err() != nil {
			return mcpapi.ResultsOutput{}, fmt.Errorf("reading results timed out: %w", ctx.Err())
		}
		return mcpapi.ResultsOutput{}, fmt.Errorf("reading %w", err) // ReadPage names the file
	}
	out := mcpapi.ResultsOutput{ScanID: in.ScanID, AuditType: in.AuditType, Results: pg.rows,
		TotalResults: int(read.Total), TotalIsLowerBound: !read.Exact, ReturnedResults: len(pg.rows), Truncated: pg.full}
	if out.AuditType == "" {
		out.AuditType = "all"
	}
	out.Note = s.pageNote(pg, in.Offset, read)
	return out, nil
}

// rowIndex is the results' row index, or nil when there is none or it is
// not one the runner could have written (the volume is writable by scan
// pods): the rows are then read from the start.
func rowIndex(fsys fs.FS) *results.RowIndex {
	data, err := readFile(fsys, results.RowIndexFile, results.MaxRowIndexBytes)
	if err != nil {
		return nil
	}
	x, err := results.ParseRowIndex(data)
	if err != nil {
		return nil
	}
	return x
}

// resultsQuery is the row filter and page size of one call.
type resultsQuery struct {
	limit  int
	filter results.RowFilter // impact in lower case; empty for any
}

// resultsQuery checks the arguments before anything is read.
func (s *Server) resultsQuery(in mcpapi.ResultsInput) (resultsQuery, error) {
	q := resultsQuery{limit: in.Limit, filter: results.RowFilter{Impact: strings.ToLower(in.Impact), IssuesOnly: in.IssuesOnly}}
	if q.limit == 0 {
		q.limit = s.cfg.DefaultResults
	}
	if q.limit < 1 || q.limit > s.cfg.MaxResults {
		return q, fmt.Errorf("Invalid limit: %d (must be 1-%d)", in.Limit, s.cfg.MaxResults)
	}
	if in.Offset < 0 {
		return q, fmt.Errorf("Invalid offset: %d", in.Offset)
	}
	if in.AuditType != "" && !auditTypeRE.MatchString(in.AuditType) {
		return q, fmt.Errorf("Invalid audit_type: %q (a CSV name such as axe_core_audit)", truncate(in.AuditType, 128))
	}
	if q.filter.Impact != "" && !slices.Contains(results.Impacts(), q.filter.Impact) {
		return q, fmt.Errorf("Invalid impact: %q (critical, serious, moderate or minor)", truncate(in.Impact, 64))
	}
	return q, nil
}

// resultFiles selects the CSVs to read: the one audit asked for, or every
// audit CSV in the directory (not CWAC's logs and bookkeeping files).
func resultFiles(fsys fs.FS, auditType string) ([]string, error) {
	if auditType != "" {
		name := auditType + ".csv"
		if !isRegularFile(fsys, name) {
			return nil, noAuditFileError(auditType)
		}
		return []string{name}, nil
	}
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range entries {
		if _, ok := results.AuditName(e.Name()); ok && e.Type().IsRegular() {
			files = append(files, e.Name())
		}
	}
	return files, nil
}

// page collects one page of matching rows: at most limit, and no more once
// the answer would pass its byte budget.
type page struct {
	limit, budget int
	full          bool // the byte budget ran out
	rows          []map[string]any
}

// add keeps a row; false stops the read.
func (p *page) add(file string, _ *results.Reader, row results.Row) bool {
	if len(p.rows) >= p.limit || p.full {
		return false
	}
	item := rowObject(strings.TrimSuffix(file, ".csv"), row)
	size := approxJSONSize(item)
	if size > p.budget {
		p.full = true
		return false
	}
	p.budget -= size
	p.rows = append(p.rows, item)
	return true
}

// pageNote tells the caller how to read on when the page is not everything.
func (s *Server) pageNote(p *page, offset int, read results.PageResult) string {
	next := offset + len(p.rows)
	total := fmt.Sprint(read.Total)
	if !read.Exact {
		total = "at least " + total
	}
	switch {
	case p.full:
		return fmt.Sprintf("Response capped at %d bytes: %d of %s matching rows returned; use offset=%d to read on.",
			s.cfg.MaxResponseBytes, len(p.rows), total, next)
	case int64(next) < read.Total:
		return fmt.Sprintf("%d of %s matching rows returned; use offset=%d to read on.", len(p.rows), total, next)
	}
	return ""
}

// rowObject turns a CSV row into JSON, parsing CWAC's Python-literal cells.
// CWAC's own audit_type column (the class name) becomes audit_class, so
// audit_type is the CSV name every row of every audit shares.
func rowObject(audit string, row results.Row) map[string]any {
	m := map[string]any{"audit_type": audit}
	for k, v := range row.Map() {
		if k == "audit_type" {
			m["audit_class"] = v
			continue
		}
		switch k {
		case "viewport_size":
			if vp, err := results.ParseViewport(v); err == nil {
				m[k] = vp
				continue
			}
		case "tags":
			if tags, err := results.ParseTags(v); err == nil {
				m[k] = tags
				continue
			}
		}
		m[k] = truncate(v, maxCellBytes)
	}
	return m
}

// approxJSONSize estimates a row's encoded size from above, without encoding it.
func approxJSONSize(m map[string]any) int {
	n := 2
	for k, v := range m {
		n += len(k) + 6
		switch t := v.(type) {
		case string:
			n += len(t) + len(t)/8 // escapes
		case []string:
			for _, s := range t {
				n += len(s) + 3
			}
		default:
			n += 48
		}
	}
	return n
}
