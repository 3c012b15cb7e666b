package ingest

import (
	"slices"
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

// TestSortGroups: a group read in two runs of rows is one group, with what
// either run saw; groups come out sorted by page, audit and width.
func TestSortGroups(t *testing.T) {
	a := groupKey{audit: 1, page: 2, width: 320}
	b := groupKey{audit: 1, page: 1, width: 1280}
	c := groupKey{audit: 0, page: 2, width: 320}
	in := &ingestion{rd: &reading{}}
	for _, g := range []seenGroup{
		{a, groupFlags{present: true}}, {b, groupFlags{present: true}}, {a, groupFlags{animating: true}}, {c, groupFlags{present: true}},
	} {
		in.rd.groups.add(g)
	}
	in.sortGroups()
	want := []seenGroup{{b, groupFlags{present: true}}, {c, groupFlags{present: true}}, {a, groupFlags{present: true, animating: true}}}
	if !slices.Equal(in.groups, want) || in.rd.groups.len() != 0 {
		t.Errorf("groups %+v, want %+v (and none left in the reading)", in.groups, want)
	}
	if f := in.flagsOf(a); f != (groupFlags{present: true, animating: true}) {
		t.Errorf("flags of a: %+v", f)
	}
	if f := in.flagsOf(groupKey{audit: 9, page: 2, width: 320}); f != (groupFlags{}) {
		t.Errorf("flags of a group not read: %+v", f)
	}
}

// TestPagesOfOneHash: pages whose hashes are the same are still each their
// own page, found again by organisation and URL.
func TestPagesOfOneHash(t *testing.T) {
	defer func(h func(int32, string) uint64) { pageHash = h }(pageHash)
	pageHash = func(int32, string) uint64 { return 7 }
	rd := newReading()
	got := []int32{
		rd.page(0, "https://a.example/"), rd.page(0, "https://b.example/"), rd.page(1, "https://a.example/"),
		rd.page(0, "https://b.example/"), rd.page(0, "https://a.example/"), rd.page(1, "https://a.example/"),
	}
	if want := []int32{0, 1, 2, 1, 0, 2}; !slices.Equal(got, want) || rd.pages.len() != 3 {
		t.Errorf("pages %v of %d, want %v of 3", got, rd.pages.len(), want)
	}
}
