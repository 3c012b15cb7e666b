package ingest

import (
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/diff"
)

// TestRunNamerOrdinals: the ordinal a run's namer returns makes the id it
// named, for rows alike in every part past ids the stored issues hold.
func TestRunNamerOrdinals(t *testing.T) {
	p := diff.PartsOf("ns", "org", "https://example.org/", 320, diff.AuditRule("axe_core_audit", "image-alt"), 1, 2)
	q := p
	q.Target = 3
	for _, tc := range []struct {
		name  string
		held  []diff.IssueID
		parts []diff.IssueParts
		want  []int
	}{
		{"one row", nil, []diff.IssueParts{p}, []int{0}},
		{"rows alike", nil, []diff.IssueParts{p, p, p}, []int{0, 1, 2}},
		{"others between", nil, []diff.IssueParts{p, q, p, q, p}, []int{0, 0, 1, 1, 2}},
		{"past held ids", []diff.IssueID{diff.NewIssueID(p, 0), diff.NewIssueID(p, 2)}, []diff.IssueParts{p, p, p, q}, []int{1, 3, 4, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cands := make([]candidate, len(tc.held))
			for i, id := range tc.held {
				cands[i].fp = id
			}
			n := newRunNamer(cands)
			for i, parts := range tc.parts {
				if got := n.name(parts); got != tc.want[i] {
					t.Errorf("row %d: ordinal %d, want %d", i, got, tc.want[i])
				}
			}
		})
	}
}
