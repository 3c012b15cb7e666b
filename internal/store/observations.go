package store

import (
	"context"
	"fmt"
)

// ObservationKey is one audit on one page at one viewport width.
type ObservationKey struct {
	PageID int64
	Width  int
	Audit  string
}

// Observed is what a scan saw of an audit on a page at a width, beyond
// that the audit wrote rows there (internal/diff's Observation).
type Observed struct {
	// Animating: the focus audit could not tab through the page.
	Animating bool
	// Replaced: the page's rows carried more than one title.
	Replaced bool
}

// Sighting is one audit and width that wrote rows on a page this scan
// visited, and what the scan saw there.
type Sighting struct {
	ObservationKey
	Observed
}

// Observations are what the last scan that visited each of an
// organisation's pages saw there (see migration 0006).
type Observations struct {
	// Visited holds the pages whose last visit was recorded with its
	// observations (a page last visited before they were kept is not).
	Visited map[int64]bool
	// Seen holds each audit and width that wrote rows at that visit.
	Seen map[ObservationKey]Observed
}

// Observations reads what the last visit of each of the pages (store
// ids) saw there, a statement of at most maxParams pages at a time.
func (w *ScanWriter) Observations(ctx context.Context, pages []int64) (Observations, error) {
	out := Observations{Visited: map[int64]bool{}, Seen: map[ObservationKey]Observed{}}
	for start := 0; start < len(pages); start += maxParams {
		if err := w.observations(ctx, pages[start:min(start+maxParams, len(pages))], &out); err != nil {
			return out, fmt.Errorf("store: reading observations: %w", err)
		}
	}
	return out, nil
}

func (w *ScanWriter) observations(ctx context.Context, pages []int64, out *Observations) error {
	rows, err := w.tx.QueryContext(ctx, w.s.q(`SELECT p.id, o.viewport_width, o.audit, o.animating, o.replaced
		FROM pages p LEFT JOIN observations o ON o.page_id = p.id
		WHERE p.last_scan_id IS NOT NULL AND p.id IN (`+placeholders(len(pages))+`)`), idArgs(pages)...)
	if err != nil {
		return err
	}
	defer func() { _ = rows.Close() }() // read only
	for rows.Next() {
		var page int64
		var width, animating, replaced *int64
		var audit *string
		if err := rows.Scan(&page, &width, &audit, &animating, &replaced); err != nil {
			return err
		}
		out.Visited[page] = true
		if audit != nil {
			out.Seen[ObservationKey{PageID: page, Width: int(*width), Audit: *audit}] = Observed{Animating: *animating != 0, Replaced: *replaced != 0}
		}
	}
	return rows.Err()
}

// Observe records this scan's visit of pages (store ids) and what it saw
// there, replacing what their last visit saw: seen holds one entry per
// audit and width that wrote rows on one of those pages. The visits are
// kept per scan too (page_visits, migration 0007). kept are pages among
// them whose last visit saw exactly what this one did (seen holds none of
// theirs): their observations stay as they are. Most pages of a weekly
// scan are kept, and deleting and writing their observations again cost
// each scan as much as writing the rows of its visits.
func (w *ScanWriter) Observe(ctx context.Context, pages []int64, seen []Sighting, kept []int64) error {
	if len(pages) == 0 {
		return nil
	}
	replaced, err := replacedPages(pages, seen, kept)
	if err != nil {
		return err
	}
	if err := w.updateIDs(ctx, tablePages, `UPDATE pages SET last_scan_id = ? WHERE id IN `, []any{w.scanID}, pages); err != nil {
		return err
	}
	for start := 0; start < len(replaced); start += maxParams {
		chunk := replaced[start:min(start+maxParams, len(replaced))]
		query := `DELETE FROM observations WHERE page_id IN (` + placeholders(len(chunk)) + `)`
		if _, err := w.exec(ctx, query, idArgs(chunk)...); err != nil {
			return fmt.Errorf("store: replacing observations: %w", err)
		}
	}
	err = w.insertEach(ctx, "page_visits", []string{colPage}, []sameInEveryRow{{colScan, w.scanID}}, len(pages),
		func(i int, args []any) []any { return append(args, pages[i]) })
	if err != nil {
		return err
	}
	return w.insertEach(ctx, "observations", []string{colPage, "viewport_width", colAudit, "animating", "replaced"}, nil, len(seen),
		func(i int, args []any) []any {
			s := &seen[i]
			return append(args, s.PageID, s.Width, s.Audit, flag(s.Animating), flag(s.Replaced))
		})
}

// replacedPages are the pages whose observations Observe replaces: those
// not kept. A kept page that is not among pages, or that seen names, is
// refused: its observations would be left saying what this scan did not see.
func replacedPages(pages []int64, seen []Sighting, kept []int64) ([]int64, error) {
	if len(kept) == 0 {
		return pages, nil
	}
	keep := make(map[int64]bool, len(kept))
	for _, p := range kept {
		keep[p] = true
	}
	for i := range seen {
		if keep[seen[i].PageID] {
			return nil, fmt.Errorf("store: observations both kept and seen again for page %d", seen[i].PageID)
		}
	}
	replaced := make([]int64, 0, max(0, len(pages)-len(kept)))
	for _, p := range pages {
		if keep[p] {
			delete(keep, p)
			continue
		}
		replaced = append(replaced, p)
	}
	for p := range keep {
		return nil, fmt.Errorf("store: observations kept for page %d, which this scan did not visit", p)
	}
	return replaced, nil
}

func flag(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
