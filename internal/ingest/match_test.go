package ingest

import (
	"math"
	"slices"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/diff"
)

// TestRunNamerOrdinals: the ordinal a run's namer returns makes the id
// diff.IssueNamer names, for rows alike in every part past ids the stored
// issues hold, with or without ids held, past the parts it counts in a
// list, and for a run after another (one namer serves them in turn).
func TestRunNamerOrdinals(t *testing.T) {
	p := diff.PartsOf("ns", "org", "https://example.org/", 320, diff.AuditRule("axe_core_audit", "image-alt"), 1, 2)
	q := p
	q.Target = 3
	distinct := maxFewParts + 3 // more distinct parts than the list counts, each twice
	many := make([]diff.IssueParts, 0, 2*distinct)
	manyWant := make([]int, 0, 2*distinct)
	for round := range 2 {
		for i := range distinct {
			m := p
			m.HTML = uint64(100 + i)
			many = append(many, m)
			manyWant = append(manyWant, round)
		}
	}
	for _, tc := range []struct {
		name  string
		held  []diff.IssueID
		parts []diff.IssueParts
		want  []int
	}{
		{"one row", nil, []diff.IssueParts{p}, []int{0}},
		{"rows alike", nil, []diff.IssueParts{p, p, p}, []int{0, 1, 2}},
		{"others between", nil, []diff.IssueParts{p, q, p, q, p}, []int{0, 0, 1, 1, 2}},
		{"past the list", nil, many, manyWant},
		{"past held ids", []diff.IssueID{diff.NewIssueID(p, 0), diff.NewIssueID(p, 2)}, []diff.IssueParts{p, p, p, q}, []int{1, 3, 4, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cands := make([]candidate, len(tc.held))
			for i, id := range tc.held {
				cands[i].fp = id
			}
			n := &runNamer{}
			// A run before, of other rows and with an id held, leaves no count.
			n.reset([]candidate{{fp: diff.NewIssueID(q, 0)}})
			n.name(q)
			n.reset(nil)
			for range maxFewParts + 1 {
				n.name(p)
				n.name(q)
			}
			n.reset(cands)
			ref := diff.NewIssueNamer(slices.Clone(tc.held))
			for i, parts := range tc.parts {
				got := n.name(parts)
				if got != tc.want[i] {
					t.Errorf("row %d: ordinal %d, want %d", i, got, tc.want[i])
				}
				if id := ref.Name(parts); diff.NewIssueID(parts, got) != id {
					t.Errorf("row %d: ordinal %d makes another id than diff.IssueNamer names", i, got)
				}
			}
		})
	}
}

// TestSortGroups: a group read in two runs of rows is one group, with what
// either run saw; groups come out sorted by page, audit and width.
func TestSortGroups(t *testing.T) {
	a := seenGroup{audit: 1, page: 2, width: 320}
	b := seenGroup{audit: 1, page: 1, width: 1280}
	c := seenGroup{audit: 0, page: 2, width: 320}
	aAnimating := a
	aAnimating.setAnimating()
	in := &ingestion{rd: &reading{}}
	for _, g := range []seenGroup{a, b, aAnimating, c, a} {
		in.rd.groups.add(g)
	}
	in.sortGroups()
	want := []seenGroup{b, c, aAnimating}
	if !slices.Equal(in.groups, want) || in.rd.groups.len() != 0 {
		t.Errorf("groups %+v, want %+v (and none left in the reading)", in.groups, want)
	}
	for _, tc := range []struct {
		key  groupKey
		want groupFlags
	}{
		{a.key(), groupFlags{present: true, animating: true}},
		{b.key(), groupFlags{present: true}},
		{c.key(), groupFlags{present: true}},
		{groupKey{audit: 9, page: 2, width: 320}, groupFlags{}},
		{groupKey{audit: 1, page: 2, width: 320 + 1<<16}, groupFlags{}}, // a stored width no group can have
	} {
		if f := in.flagsOf(tc.key); f != tc.want {
			t.Errorf("flags of %+v: %+v, want %+v", tc.key, f, tc.want)
		}
	}
}

// TestSeenGroupKey: a group's key is what it was added with, whether or
// not the focus audit could run there, up to the largest audit number and
// width.
func TestSeenGroupKey(t *testing.T) {
	for _, k := range []groupKey{{0, 0, 0}, {3, 7, 1280}, {maxAudits - 1, math.MaxInt32, maxWidth}} {
		rd := newReading()
		g := rd.group(k)
		if g.key() != k || g.animating() {
			t.Errorf("group %+v: key %+v, animating %v", k, g.key(), g.animating())
		}
		g.setAnimating()
		if g.key() != k || !g.animating() {
			t.Errorf("group %+v marked animating: key %+v, animating %v", k, g.key(), g.animating())
		}
	}
}

// TestPagesOfOneHash: pages whose hashes are the same are still each their
// own page, found again by organisation and URL.
func TestPagesOfOneHash(t *testing.T) {
	defer func(m uint64) { pageHashMask = m }(pageHashMask)
	pageHashMask = 0
	rd := newReading()
	steps := []struct {
		org int32
		url string
	}{
		{0, "https://a.example/"}, {0, "https://b.example/"}, {1, "https://a.example/"},
		{0, "https://b.example/"}, {0, "https://a.example/"}, {1, "https://a.example/"},
	}
	got := make([]int32, 0, len(steps))
	for _, p := range steps {
		id, err := rd.page(p.org, p.url)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, id)
	}
	if want := []int32{0, 1, 2, 1, 0, 2}; !slices.Equal(got, want) || rd.pages.len() != 3 {
		t.Errorf("pages %v of %d, want %v of 3", got, rd.pages.len(), want)
	}
}
