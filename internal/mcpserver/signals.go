package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"

	"github.com/a11y-dev/cwac-operator/internal/mcpapi"
	"github.com/a11y-dev/cwac-operator/internal/results"
)

// The signals tools (tool_get_templates.go, tool_get_page_titles.go,
// tool_get_broken_responses.go, tool_get_readability.go) read CWAC's CSVs
// for one signal each through results.SignalsBuilder, as the report does:
// only the files that signal needs, row by row, into lists the builder
// bounds (results.MaxSignalItems); the answer is one page of a list,
// filtered by organisation, within the server's response cap.

// signalsAnswerReserve is what a signals answer keeps of the response cap
// for its totals, its organisations and its note.
const signalsAnswerReserve = 64 << 10

// maxSignalSummaryURLBytes and maxSignalSummaryTextBytes cut the signals'
// URLs and texts in cwac_get_summary's answer (capSignals).
const (
	maxSignalSummaryURLBytes  = 512
	maxSignalSummaryTextBytes = 256
)

// maxSignalOrganisations caps the by_organisation lists of an answer.
const maxSignalOrganisations = 1000

// readSignals checks the caller may read the scan (as every results tool
// does), then reads files of its results into the signals.
func (s *Server) readSignals(ctx context.Context, call *callInfo, in mcpapi.SignalsInput, files ...string) (*results.Signals, error) {
	if err := s.checkSignalsInput(in); err != nil {
		return nil, err
	}
	res, err := s.access.results(ctx, call, in.ScanID)
	if err != nil {
		return nil, err
	}
	fsys, closeFn, err := s.access.openResults(ctx, res)
	if err != nil {
		return nil, err
	}
	defer closeFn()
	b := results.NewSignalsBuilder()
	if err := results.WalkNamed(ctx, fsys, files, b); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("reading results timed out: %w", ctx.Err())
		}
		return nil, fmt.Errorf("reading %w", err) // WalkNamed names the file
	}
	return b.Signals(-1), nil
}

// checkSignalsInput refuses bad arguments before anything is read.
func (s *Server) checkSignalsInput(in mcpapi.SignalsInput) error {
	if in.Limit < 0 || in.Limit > s.cfg.MaxResults {
		return fmt.Errorf("Invalid limit: %d (must be 1-%d)", in.Limit, s.cfg.MaxResults)
	}
	if in.Offset < 0 {
		return fmt.Errorf("Invalid offset: %d (must be 0 or more)", in.Offset)
	}
	if len(in.Organisation) > 1024 {
		return fmt.Errorf("Invalid organisation: %d bytes (at most 1024)", len(in.Organisation))
	}
	return nil
}

// noSignalFile is the error of a scan whose results lack the signal's CSV.
func noSignalFile(file, plugin string) error {
	return fmt.Errorf("the scan's results have no %s: CWAC's %s was not enabled, or CWAC stopped before writing it", file, plugin)
}

// ofOrganisation keeps the items of one organisation ("" keeps all).
func ofOrganisation[T any](items []T, org string, orgOf func(*T) string) []T {
	if org == "" {
		return items
	}
	var out []T
	for i := range items {
		if orgOf(&items[i]) == org {
			out = append(out, items[i])
		}
	}
	return out
}

// signalsPage cuts one page of items for an answer: from offset, at most
// limit (0: the server's default), and no more than budget bytes of JSON.
func (s *Server) signalsPage(in mcpapi.SignalsInput, total int, sizeOf func(i int) int) (from, to int, page mcpapi.SignalsPage) {
	limit := in.Limit
	if limit == 0 {
		limit = s.cfg.DefaultResults
	}
	page = mcpapi.SignalsPage{ScanID: in.ScanID, Total: total, Offset: in.Offset}
	from = min(in.Offset, total)
	to = from
	budget := s.cfg.MaxResponseBytes - signalsAnswerReserve
	for to < total && to-from < limit {
		n := sizeOf(to)
		if n > budget {
			page.Truncated = true
			break
		}
		budget -= n
		to++
	}
	page.Returned = to - from
	switch {
	case page.Truncated:
		page.Note = fmt.Sprintf("Response capped at %d bytes: %d of %d items returned; use offset=%d to read on.", s.cfg.MaxResponseBytes, page.Returned, total, to)
	case to < total:
		page.Note = fmt.Sprintf("%d of %d items returned; use offset=%d to read on.", page.Returned, total, to)
	}
	return from, to, page
}

// itemJSONSize is v's encoded size (0 when it cannot be encoded: it then costs nothing it could not).
func itemJSONSize(v any) int {
	data, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return len(data) + 1
}

// firstOrganisations keeps at most maxSignalOrganisations of one list,
// saying in note how many it left out.
func firstOrganisations[T any](items []T, note *string) []T {
	if items == nil {
		return []T{} // an empty list, never null, in the answer's JSON
	}
	if len(items) <= maxSignalOrganisations {
		return items
	}
	*note = joinNotes(*note, fmt.Sprintf("by_organisation lists %d of %d organisations; filter by organisation for the others.",
		maxSignalOrganisations, len(items)))
	return items[:maxSignalOrganisations]
}

// listCutNote says when the builder's list was cut (results.MaxSignalItems):
// the totals count everything, the list holds the first items.
func listCutNote(listed, total int64, what string) string {
	if total <= listed {
		return ""
	}
	return fmt.Sprintf("The results hold %d %s; %d are kept for listing (the totals count them all).", total, what, listed)
}

// summarySignals reads the signals for a summary computed from the CSVs
// (summary.json keeps them; one recomputed must too), cut as the runner
// cuts them. nil when none of their CSVs is there or they cannot be read:
// the summary stands without them.
func summarySignals(ctx context.Context, fsys fs.FS) *results.Signals {
	b := results.NewSignalsBuilder()
	if err := results.WalkNamed(ctx, fsys, results.SignalFiles, b); err != nil {
		return nil
	}
	if s := b.Signals(results.SummarySignalItems); *s != (results.Signals{}) {
		return s
	}
	return nil
}

// capSignals bounds the signals of a summary read from a file (a scan pod
// wrote it): each list to results.SummarySignalItems, the organisations to
// maxSummaryOrganisation, every text cut; it returns a note naming what
// was cut ("" when nothing was).
func capSignals(s *results.Signals) string {
	if s == nil {
		return ""
	}
	var cut []string
	list := func(what string, n, keep int) int {
		if n > keep {
			cut = append(cut, fmt.Sprintf("%d of %d %s", keep, n, what))
			return keep
		}
		return n
	}
	// Shorter than the summary's other URLs and texts: the signals' lists
	// together must leave the answer room (at most ~120 KiB so).
	u := func(p *string) { *p = truncate(*p, maxSignalSummaryURLBytes) }
	txt := func(p *string) { *p = truncate(*p, maxSignalSummaryTextBytes) }
	name := func(p *string) { *p = truncate(*p, maxCompareNameBytes) }
	if t := s.Templates; t != nil {
		t.Issues = t.Issues[:list("template issues", len(t.Issues), results.SummarySignalItems)]
		for i := range t.Issues {
			x := &t.Issues[i]
			name(&x.Organisation)
			name(&x.RuleID)
			name(&x.Impact)
			name(&x.Viewport)
			u(&x.BaseURL)
			u(&x.ExampleURL)
			txt(&x.Help)
			txt(&x.HTML)
		}
		t.ByOrganisation = t.ByOrganisation[:list("organisations' template issues", len(t.ByOrganisation), maxSummaryOrganisation)]
		for i := range t.ByOrganisation {
			name(&t.ByOrganisation[i].Organisation)
		}
	}
	if t := s.Titles; t != nil {
		t.Missing = t.Missing[:list("pages without a title", len(t.Missing), results.SummarySignalItems)]
		for i := range t.Missing {
			name(&t.Missing[i].Organisation)
			u(&t.Missing[i].BaseURL)
			u(&t.Missing[i].URL)
		}
		t.Duplicates = t.Duplicates[:list("duplicate titles", len(t.Duplicates), results.SummarySignalItems)]
		for i := range t.Duplicates {
			d := &t.Duplicates[i]
			name(&d.Organisation)
			u(&d.BaseURL)
			txt(&d.Title)
			d.URLs = d.URLs[:min(len(d.URLs), results.MaxDuplicateTitleURLs)]
			for j := range d.URLs {
				u(&d.URLs[j])
			}
		}
		t.ByOrganisation = t.ByOrganisation[:list("organisations' page titles", len(t.ByOrganisation), maxSummaryOrganisation)]
		for i := range t.ByOrganisation {
			name(&t.ByOrganisation[i].Organisation)
		}
	}
	if r := s.Responses; r != nil {
		r.List = r.List[:list("broken responses", len(r.List), results.SummarySignalItems)]
		for i := range r.List {
			x := &r.List[i]
			name(&x.Organisation)
			name(&x.Status)
			u(&x.BaseURL)
			u(&x.URL)
			u(&x.LinkedFrom)
		}
		r.ByStatus = capCounts(r.ByStatus, maxSummaryMapEntries)
		r.ByOrganisation = r.ByOrganisation[:list("organisations' broken responses", len(r.ByOrganisation), maxSummaryOrganisation)]
		for i := range r.ByOrganisation {
			name(&r.ByOrganisation[i].Organisation)
			r.ByOrganisation[i].ByStatus = capCounts(r.ByOrganisation[i].ByStatus, maxSummaryMapEntries)
		}
	}
	if r := s.Readability; r != nil {
		r.List = r.List[:list("pages' reading levels", len(r.List), results.SummarySignalItems)]
		for i := range r.List {
			x := &r.List[i]
			name(&x.Organisation)
			u(&x.BaseURL)
			u(&x.URL)
			txt(&x.Title)
		}
		r.ByOrganisation = r.ByOrganisation[:list("organisations' reading levels", len(r.ByOrganisation), maxSummaryOrganisation)]
		for i := range r.ByOrganisation {
			name(&r.ByOrganisation[i].Organisation)
		}
	}
	if len(cut) == 0 {
		return ""
	}
	return "The signals list " + strings.Join(cut, ", ") + "; the signals tools list them all."
}
