package store

import (
	"context"
	"database/sql"
	"fmt"
)

// Pages returns an organisation's stored pages, by URL.
func (w *ScanWriter) Pages(ctx context.Context, orgID int64) (map[string]int64, error) {
	rows, err := w.tx.QueryContext(ctx, w.s.q(`SELECT id, url FROM pages WHERE organisation_id = ?`), orgID)
	if err != nil {
		return nil, fmt.Errorf("store: reading pages: %w", err)
	}
	out := map[string]int64{}
	if err := readPageIDs(rows, out); err != nil {
		return nil, fmt.Errorf("store: reading pages: %w", err)
	}
	return out, nil
}

// readPageIDs adds rows of (id, url) to out by URL, and closes rows.
func readPageIDs(rows *sql.Rows, out map[string]int64) error {
	defer func() { _ = rows.Close() }() // read only
	for rows.Next() {
		var id int64
		var u string
		if err := rows.Scan(&id, &u); err != nil {
			return err
		}
		out[u] = id
	}
	return rows.Err()
}

// PagesNamed returns which of urls are an organisation's stored pages,
// by URL, a statement of at most maxParams URLs at a time.
func (w *ScanWriter) PagesNamed(ctx context.Context, orgID int64, urls []string) (map[string]int64, error) {
	out := map[string]int64{}
	per := maxParams - 1
	for start := 0; start < len(urls); start += per {
		chunk := urls[start:min(start+per, len(urls))]
		args := make([]any, 0, len(chunk)+1)
		for _, u := range chunk {
			args = append(args, u)
		}
		args = append(args, orgID)
		if err := w.pagesNamed(ctx, args, out); err != nil {
			return nil, fmt.Errorf("store: reading pages: %w", err)
		}
	}
	return out, nil
}

// pagesNamed looks the URLs up (args: the URLs, then the organisation's
// id). The URLs are a table joined to the pages, not a list the pages are
// filtered by: PostgreSQL plans the same statement once for every batch of
// a scan, and its plan for a list of parameters compared every page of the
// organisation with every URL of the list (1,000 × 70,000 comparisons a
// batch, half of a million-row ingest's time).
func (w *ScanWriter) pagesNamed(ctx context.Context, args []any, out map[string]int64) error {
	rows, err := w.tx.QueryContext(ctx, w.s.q(`SELECT p.id, p.url FROM (VALUES `+valueRows(len(args)-1)+`) AS v
		JOIN pages p ON p.url = v.column1 AND p.organisation_id = ?`), args...)
	if err != nil {
		return err
	}
	return readPageIDs(rows, out)
}

// AddPages stores new pages of an organisation and returns their ids, in order.
func (w *ScanWriter) AddPages(ctx context.Context, orgID int64, urls []string) ([]int64, error) {
	ids := make([]int64, len(urls))
	for i := range urls {
		ids[i] = w.alloc(tablePages, 1)
	}
	err := w.insertEach(ctx, tablePages, []string{"id", colOrganisation, "url"}, nil, len(urls), func(i int, args []any) []any {
		return append(args, ids[i], orgID, urls[i])
	})
	if err != nil {
		return nil, err
	}
	return ids, nil
}

// PageIssues is one page of an organisation with its open issues.
type PageIssues struct {
	Page string
	Open int64
}

// MaxOrganisationPages bounds the pages OrganisationPages returns.
const MaxOrganisationPages = 10000

// OrganisationPages returns the pages the history holds for an
// organisation (every page a scan of it showed an issue on or visited)
// with their open issues, most first (then by URL), at most limit
// (1..MaxOrganisationPages).
func (s *Store) OrganisationPages(ctx context.Context, namespace, organisation string, limit int) ([]PageIssues, error) {
	if limit < 1 || limit > MaxOrganisationPages {
		return nil, fmt.Errorf("limit %d is not between 1 and %d", limit, MaxOrganisationPages)
	}
	ids, err := s.organisationIDs(ctx, []string{namespace}, organisation, nil)
	if err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT p.url, COUNT(i.id) FROM pages p
		LEFT JOIN issues i ON i.page_id = p.id AND i.state = 'open'
		WHERE p.organisation_id = ?
		GROUP BY p.url ORDER BY COUNT(i.id) DESC, p.url LIMIT ?`), ids[0], limit)
	if err != nil {
		return nil, fmt.Errorf("store: reading organisation %q's pages: %w", organisation, err)
	}
	defer func() { _ = rows.Close() }() // read only
	out := []PageIssues{}
	for rows.Next() {
		var p PageIssues
		if err := rows.Scan(&p.Page, &p.Open); err != nil {
			return nil, fmt.Errorf("store: reading organisation %q's pages: %w", organisation, err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: reading organisation %q's pages: %w", organisation, err)
	}
	return out, nil
}
