package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/a11y-dev/cwac-operator/internal/diff"
	"github.com/a11y-dev/cwac-operator/internal/gcpace"
	"github.com/a11y-dev/cwac-operator/internal/mcpapi"
	"github.com/a11y-dev/cwac-operator/internal/results"
)

// compareScansDescription is what MCP clients show for cwac_compare_scans.
const compareScansDescription = "Compare a finished scan with an earlier one (its spec.baseline by default): " +
	"how many issues are new, fixed, unchanged or unstable, by impact, organisation and rule, " +
	"and the rows of one change (default new), optionally one axe impact, with limit and offset."

// Caps on the figures in an answer; diff.json has them all.
const (
	maxCompareOrganisations = 50
	maxCompareRules         = 50
	maxCompareImpacts       = 10
	maxImpactNameBytes      = 64
	maxCompareNameBytes     = 256
	defaultCompareRows      = 50
	// compareFiguresReserve is the part of the answer kept for the figures
	// (capped above), the rest being the rows' budget.
	compareFiguresReserve = 64 << 10
)

func init() { defineTool("cwac_compare_scans", compareScansDescription, true, (*Server).compareScans) }

// compareScans answers from the scan pod's diff.json when it compares the
// same two scans, and otherwise compares both results directories now. Either
// way the rows stream past a filter into one page: nothing is held whole.
func (s *Server) compareScans(ctx context.Context, call *callInfo, in mcpapi.CompareInput) (mcpapi.CompareOutput, error) {
	q, err := s.compareQuery(in)
	if err != nil {
		return mcpapi.CompareOutput{}, err
	}
	res, err := s.access.results(ctx, call, in.ScanID)
	if err != nil {
		return mcpapi.CompareOutput{}, err
	}
	baselineID := in.BaselineID
	if baselineID == "" && res.Scan != nil {
		baselineID = res.Scan.Spec.Baseline
	}
	switch baselineID {
	case "":
		return mcpapi.CompareOutput{}, fmt.Errorf("Scan %s has no spec.baseline: give baseline_id, the scan to compare with", truncate(in.ScanID, 256))
	case in.ScanID:
		return mcpapi.CompareOutput{}, fmt.Errorf("Invalid baseline_id: %s is the scan itself", truncate(baselineID, 256))
	}
	target := call.Target
	defer func() { call.Target = target + " baseline=" + truncate(baselineID, 256) }()

	fsys, closeFn, err := s.access.openResults(ctx, res)
	if err != nil {
		return mcpapi.CompareOutput{}, err
	}
	defer closeFn()
	out := mcpapi.CompareOutput{ScanID: in.ScanID, BaselineID: baselineID, Change: string(q.change), Impact: q.impact}
	pg := &rowPage{offset: in.Offset, limit: q.limit, budget: s.cfg.MaxResponseBytes - min(compareFiguresReserve, s.cfg.MaxResponseBytes/4)}

	fileErr := s.compareFromFile(fsys, baselineID, q, pg, &out)
	if fileErr == nil {
		return s.finishCompare(out, pg, in.Offset), nil
	}
	if ctx.Err() != nil {
		return mcpapi.CompareOutput{}, fmt.Errorf("reading %s timed out: %w", results.DiffFile, ctx.Err())
	}
	*pg = rowPage{offset: pg.offset, limit: pg.limit, budget: s.cfg.MaxResponseBytes - min(compareFiguresReserve, s.cfg.MaxResponseBytes/4)}
	namespace := ""
	if res.Scan != nil {
		namespace = res.Scan.Namespace
	}
	if err := s.compareNow(ctx, call, fsys, namespace, baselineID, q, pg, &out); err != nil {
		return mcpapi.CompareOutput{}, err
	}
	if !errors.Is(fileErr, fs.ErrNotExist) && !errors.Is(fileErr, errOtherBaseline) {
		out.Note = results.DiffFile + " could not be used (" + truncate(fileErr.Error(), 512) + "), so the scans were compared from their CSVs. "
	}
	return s.finishCompare(out, pg, in.Offset), nil
}

// compareQuery is one call's row filter and page size.
type compareQuery struct {
	change diff.Change
	impact string
	limit  int
}

// compareQuery checks the arguments before anything is read.
func (s *Server) compareQuery(in mcpapi.CompareInput) (compareQuery, error) {
	q := compareQuery{change: diff.ChangeNew, impact: strings.ToLower(in.Impact), limit: in.Limit}
	if in.Change != "" {
		c, err := diff.ParseChange(strings.ToLower(in.Change))
		if err != nil {
			return q, fmt.Errorf("Invalid change: %q (new, fixed, unchanged or unstable)", truncate(in.Change, 64))
		}
		q.change = c
	}
	if q.limit == 0 {
		q.limit = min(defaultCompareRows, s.cfg.MaxResults)
	}
	if q.limit < 1 || q.limit > s.cfg.MaxResults {
		return q, fmt.Errorf("Invalid limit: %d (must be 1-%d)", in.Limit, s.cfg.MaxResults)
	}
	if in.Offset < 0 {
		return q, fmt.Errorf("Invalid offset: %d", in.Offset)
	}
	if q.impact != "" && !slices.Contains(results.Impacts(), q.impact) {
		return q, fmt.Errorf("Invalid impact: %q (critical, serious, moderate or minor)", truncate(in.Impact, 64))
	}
	return q, nil
}

// errOtherBaseline: the scan's diff.json compares with another scan.
var errOtherBaseline = errors.New("diff.json compares with another baseline")

// compareFromFile pages through the scan pod's diff.json, if it compares
// with baselineID.
func (s *Server) compareFromFile(fsys fs.FS, baselineID string, q compareQuery, pg *rowPage, out *mcpapi.CompareOutput) error {
	f, err := fsys.Open(results.DiffFile) // a callFS: regular files only, reads end with the call
	if err != nil {
		return err
	}
	defer closeReadOnly(f)
	doc, err := diff.ReadDocumentThen(f, func(d *diff.Document) error {
		if d.Baseline != baselineID {
			return errOtherBaseline
		}
		return nil
	}, func(r *diff.Row) error {
		if q.matches(r) {
			pg.add(r)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if doc.Baseline != baselineID { // a document without rows never reached the check above
		return errOtherBaseline
	}
	out.Source, out.Counts, out.Totals, out.ByRule = mcpapi.SourceDiffFile, doc.Counts, doc.Totals, doc.ByRule
	return nil
}

// compareNow compares the two results directories, reading both through
// the store; new issues are named in the scan's namespace (its id's part),
// as the scan pod names them.
func (s *Server) compareNow(ctx context.Context, call *callInfo, fsys fs.FS, namespace, baselineID string, q compareQuery, pg *rowPage,
	out *mcpapi.CompareOutput) error {
	scanTarget := call.Target
	base, err := s.access.results(ctx, call, baselineID)
	call.Target = scanTarget
	switch {
	case errors.Is(err, errStillRunning):
		return fmt.Errorf("Baseline %s has not finished (%s): compare once it is complete", baselineID, base.Status)
	case errors.As(err, new(noScanError)):
		return fmt.Errorf("%w (the baseline)", err) // the original text first, as the other tools give it
	case err != nil:
		return fmt.Errorf("Baseline %s: %w", truncate(baselineID, 256), err)
	}
	baseFS, closeBase, err := s.access.openResults(ctx, base)
	if err != nil {
		return fmt.Errorf("Baseline %s: %w", baselineID, err)
	}
	defer closeBase()
	defer gcpace.During()() // a large comparison's tables are its own, as the scan pod's
	res, err := diff.Compare(ctx, baseFS, fsys, diff.Options{
		Baseline:   baselineID,
		Namespace:  namespace,
		SpillDir:   s.cfg.CompareDir,
		RowChanges: map[diff.Change]bool{q.change: true},
		Rows: func(r *diff.Row) error {
			if q.matches(r) {
				pg.add(r)
			}
			return nil
		},
	})
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("comparing the scans timed out: %w", ctx.Err())
		}
		return err
	}
	if res.IssueIDs != nil {
		_ = res.IssueIDs.Close() // the rows carry their ids; the list is not needed
	}
	out.Source, out.Counts, out.Totals, out.ByRule = mcpapi.SourceCompared, res.Counts, res.Totals, res.ByRule
	return nil
}

func (q compareQuery) matches(r *diff.Row) bool {
	return r.Change == q.change && (q.impact == "" || strings.EqualFold(r.Impact, q.impact))
}

// finishCompare caps the figures, which come from files the server does not
// trust with its answer's size, and says how to read on.
func (s *Server) finishCompare(out mcpapi.CompareOutput, pg *rowPage, offset int) mcpapi.CompareOutput {
	out.Rows, out.TotalRows, out.Returned, out.Truncated = pg.rows, pg.total, len(pg.rows), pg.full
	if out.Rows == nil {
		out.Rows = []diff.Row{}
	}
	c := &out.Counts
	c.Baseline = truncate(c.Baseline, maxCompareNameBytes)
	c.NewByImpact, c.FixedByImpact = capImpacts(c.NewByImpact), capImpacts(c.FixedByImpact)
	if len(c.ByOrganisation) > maxCompareOrganisations {
		out.Note += fmt.Sprintf("%d organisations; the %d with most new issues are shown (diff.json lists all). ", len(c.ByOrganisation), maxCompareOrganisations)
		c.ByOrganisation = c.ByOrganisation[:maxCompareOrganisations]
	}
	for i := range c.ByOrganisation {
		o := &c.ByOrganisation[i]
		o.Organisation, o.NewByImpact = truncate(o.Organisation, maxCompareNameBytes), capImpacts(o.NewByImpact)
	}
	if len(out.ByRule) > maxCompareRules {
		out.Note += fmt.Sprintf("%d rules; the %d with most new issues are shown. ", len(out.ByRule), maxCompareRules)
		out.ByRule = out.ByRule[:maxCompareRules]
	}
	if out.ByRule == nil {
		out.ByRule = []diff.RuleChange{}
	}
	for i := range out.ByRule {
		r := &out.ByRule[i]
		r.Audit, r.Rule, r.Impact = truncate(r.Audit, maxCompareNameBytes), truncate(r.Rule, maxCompareNameBytes), truncate(r.Impact, 64)
	}
	next := offset + len(pg.rows)
	switch {
	case pg.full:
		out.Note += fmt.Sprintf("Response capped at %d bytes: %d of %d matching rows returned; use offset=%d to read on.",
			s.cfg.MaxResponseBytes, len(pg.rows), pg.total, next)
	case next < pg.total:
		out.Note += fmt.Sprintf("%d of %d matching rows returned; use offset=%d to read on.", len(pg.rows), pg.total, next)
	}
	out.Note = strings.TrimSpace(out.Note)
	return out
}

// capImpacts keeps at most maxCompareImpacts impacts (axe has four), with
// names of at most maxImpactNameBytes: a map past either keeps axe's four
// impacts only.
func capImpacts(m map[string]int64) map[string]int64 {
	fits := len(m) <= maxCompareImpacts
	for k := range m {
		fits = fits && len(k) <= maxImpactNameBytes
	}
	if fits {
		return m
	}
	out := map[string]int64{}
	for _, k := range results.Impacts() {
		if n, ok := m[k]; ok {
			out[k] = n
		}
	}
	return out
}

// rowPage collects one page of rows: it skips offset rows, keeps at most
// limit, stops keeping when the answer would pass its byte budget, and counts
// every row offered so the caller knows how many there are.
type rowPage struct {
	offset, limit, budget int
	skipped, total        int
	full                  bool
	rows                  []diff.Row
}

func (p *rowPage) add(r *diff.Row) {
	p.total++
	if p.skipped < p.offset {
		p.skipped++
		return
	}
	if len(p.rows) >= p.limit || p.full {
		return
	}
	capRow(r)
	data, err := json.Marshal(r)
	if err != nil || len(data)+1 > p.budget {
		p.full = true
		return
	}
	p.budget -= len(data) + 1
	p.rows = append(p.rows, *r)
}

// capRow bounds a row's cells: the diff package caps the rows it makes, but
// a diff.json on the volume may hold anything.
func capRow(r *diff.Row) {
	for _, f := range []*string{&r.Page, &r.Reason, &r.MatchedOn, &r.Audit, &r.Organisation, &r.URL, &r.Rule, &r.Impact,
		&r.Target, &r.HTML, &r.Help, &r.HelpURL} {
		*f = truncate(*f, maxCellBytes)
	}
	r.Change = diff.Change(truncate(string(r.Change), 64))
}
