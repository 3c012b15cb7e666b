package store

import (
	"context"
	"encoding/json"
	"fmt"
)

// Template is one rule failing on the same element HTML on several pages of
// an organisation in one scan.
type Template struct {
	Audit       string
	Rule        string
	ElementHTML string
	Pages       int
	Instances   int64
}

// Templates returns an organisation's templates in its latest scan in the
// namespace, most pages first, at most limit (1..MaxLimit).
func (s *Store) Templates(ctx context.Context, namespace, organisation string, limit int) ([]Template, error) {
	if limit < 1 || limit > MaxLimit {
		return nil, fmt.Errorf("limit %d is not between 1 and %d", limit, MaxLimit)
	}
	ids, err := s.organisationIDs(ctx, []string{namespace}, organisation, nil)
	if err != nil {
		return nil, err
	}
	id := ids[0]
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT t.audit, t.rule, t.element_html, ts.pages, ts.instances
		FROM template_scans ts JOIN templates t ON t.id = ts.template_id
		WHERE t.organisation_id = ? AND ts.scan_id = (SELECT l.scan_id FROM organisation_scans l
			WHERE l.organisation_id = ? ORDER BY l.finished_at DESC, l.scan_id DESC LIMIT 1)
		ORDER BY ts.pages DESC, ts.instances DESC, t.id LIMIT ?`), id, id, limit)
	if err != nil {
		return nil, fmt.Errorf("store: reading organisation %q's templates: %w", organisation, err)
	}
	defer func() { _ = rows.Close() }() // read only
	out := []Template{}
	for rows.Next() {
		var t Template
		if err := rows.Scan(&t.Audit, &t.Rule, &t.ElementHTML, &t.Pages, &t.Instances); err != nil {
			return nil, fmt.Errorf("store: reading organisation %q's templates: %w", organisation, err)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: reading organisation %q's templates: %w", organisation, err)
	}
	return out, nil
}

// TemplateKey identifies a template within an organisation.
type TemplateKey struct {
	Audit, Rule string
	ElementHash uint64
}

// Templates returns an organisation's stored templates, by key.
func (w *ScanWriter) Templates(ctx context.Context, orgID int64) (map[TemplateKey]int64, error) {
	rows, err := w.tx.QueryContext(ctx, w.s.q(`SELECT id, audit, rule, element_hash FROM templates WHERE organisation_id = ?`), orgID)
	if err != nil {
		return nil, fmt.Errorf("store: reading templates: %w", err)
	}
	defer func() { _ = rows.Close() }() // read only
	out := map[TemplateKey]int64{}
	for rows.Next() {
		var id, h int64
		var k TemplateKey
		if err := rows.Scan(&id, &k.Audit, &k.Rule, &h); err != nil {
			return nil, fmt.Errorf("store: reading templates: %w", err)
		}
		k.ElementHash = uint64(h)
		out[k] = id
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: reading templates: %w", err)
	}
	return out, nil
}

// TemplateIDs reserves ids for n new templates and returns the first.
func (w *ScanWriter) TemplateIDs(n int) int64 { return w.alloc("templates", n) }

// NewTemplate is a template seen for the first time.
type NewTemplate struct {
	ID          int64
	OrgID       int64
	Key         TemplateKey
	ElementHTML string
}

// AddTemplates stores new templates.
func (w *ScanWriter) AddTemplates(ctx context.Context, ts []NewTemplate) error {
	rows := make([][]any, len(ts))
	for i, t := range ts {
		rows[i] = []any{t.ID, t.OrgID, t.Key.Audit, t.Key.Rule, int64(t.Key.ElementHash), t.ElementHTML}
	}
	return w.insert(ctx, "templates", []string{"id", colOrganisation, colAudit, "rule", "element_hash", "element_html"}, rows)
}

// TemplateCount is a template's pages and instances in this scan.
type TemplateCount struct {
	TemplateID int64
	Pages      int
	Instances  int64
}

// AddTemplateCounts records templates' figures in this scan.
func (w *ScanWriter) AddTemplateCounts(ctx context.Context, cs []TemplateCount) error {
	rows := make([][]any, len(cs))
	for i, c := range cs {
		rows[i] = []any{w.scanID, c.TemplateID, c.Pages, c.Instances}
	}
	return w.insert(ctx, "template_scans", []string{colScan, "template_id", "pages", "instances"}, rows)
}

// encodeCounts stores a map of counts as a JSON object (sorted keys).
func encodeCounts(m map[string]int64) (string, error) {
	if m == nil {
		m = map[string]int64{}
	}
	b, err := json.Marshal(m)
	if err != nil {
		return "", fmt.Errorf("store: encoding counts: %w", err)
	}
	return string(b), nil
}

func decodeCounts(s string) (map[string]int64, error) {
	m := map[string]int64{}
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return nil, fmt.Errorf("by_audit is not a JSON object of counts: %w", err)
	}
	return m, nil
}
