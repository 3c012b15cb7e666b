package ingest

import "testing"

// TestReadingPagesAndRules: a page is one organisation's URL however its
// rows interleave with others' (the last page is remembered, not
// assumed), two organisations' equal URLs are two pages, and a rule id is
// its file's audit's rule, the same id in another audit's file another.
func TestReadingPagesAndRules(t *testing.T) {
	rd := newReading()
	a, b := rd.orgID("A", ""), rd.orgID("B", "")
	steps := []struct {
		org  int32
		url  string
		want int32
	}{
		{a, "https://x/1", 0},
		{a, "https://x/1", 0},
		{a, "https://x/2", 1},
		{a, "HTTPS://X/1", 0}, // the same page key
		{b, "https://x/1", 2}, // another organisation's
		{b, "https://x/1", 2},
		{a, "https://x/1", 0},
		{a, "https://x/2", 1},
	}
	for i, s := range steps {
		if got, err := rd.page(s.org, s.url); err != nil || got != s.want {
			t.Errorf("step %d: page(%d, %q) = %d, %v, want %d", i, s.org, s.url, got, err, s.want)
		}
	}
	if rd.pages.len() != 3 {
		t.Errorf("%d pages, want 3", rd.pages.len())
	}

	ids := map[string]int32{}
	files := []struct{ audit, rule string }{
		{"axe", "image-alt"}, {"axe", "region"}, {"axe", "image-alt"}, {"focus", "image-alt"}, {"focus", "image-alt"},
	}
	for _, f := range files {
		rd.file, rd.fileRules = f.audit, nil
		var err error
		if rd.audit, err = rd.auditNo(rd.strs.ID(f.audit)); err != nil {
			t.Fatal(err)
		}
		r := rd.rule(f.audit, f.rule)
		if got := rd.strs.Text(r); got != f.audit+"\x00"+f.rule {
			t.Errorf("rule(%q, %q) names %q", f.audit, f.rule, got)
		}
		if rd.ruleAuds[r] != rd.audit {
			t.Errorf("rule(%q, %q) noted with audit %d, want %d", f.audit, f.rule, rd.ruleAuds[r], rd.audit)
		}
		if id, ok := ids[f.audit+" "+f.rule]; ok && id != r {
			t.Errorf("rule(%q, %q) = %d, then %d", f.audit, f.rule, id, r)
		}
		ids[f.audit+" "+f.rule] = r
	}
	if ids["axe image-alt"] == ids["focus image-alt"] {
		t.Error("the same rule id in two audits is one rule")
	}
}

// TestReadingGroups: a page's rows at its widths in turn are one entry a
// width, what a later run saw marked on it; another page or audit in
// between starts new entries, as do more widths than the look-back holds,
// and sortGroups merges those into one group each with what any run saw.
func TestReadingGroups(t *testing.T) {
	rd := newReading()
	see := func(audit, page, width int32, animating bool) {
		g := rd.group(groupKey{audit: audit, page: page, width: width})
		if animating {
			g.setAnimating()
		}
	}
	for range 3 {
		for _, w := range []int32{320, 1280, 1920} {
			see(0, 0, w, false)
		}
	}
	see(0, 0, 1280, true)
	if rd.groups.len() != 3 {
		t.Fatalf("page 0's rows at three widths in turn: %d entries, want 3", rd.groups.len())
	}
	if !rd.groups.at(1).animating() || rd.groups.at(0).animating() || rd.groups.at(2).animating() {
		t.Errorf("a later run's finding went to another entry: %+v", rd.groups.blocks)
	}
	see(0, 1, 320, false)
	see(1, 1, 320, false)
	see(0, 1, 320, false) // after audit 1: a new entry
	if rd.groups.len() != 6 {
		t.Fatalf("another page, another audit between: %d entries, want 6", rd.groups.len())
	}
	for w := range int32(groupLookBack + 1) {
		see(2, 2, w, false)
	}
	see(2, 2, 1, false) // the look-back's oldest: found
	see(2, 2, 0, true)  // width 0 is past the look-back: a new entry
	if want := 6 + groupLookBack + 2; rd.groups.len() != want {
		t.Fatalf("%d widths on a page: %d entries, want %d", groupLookBack+1, rd.groups.len(), want)
	}
	in := &ingestion{rd: rd}
	in.sortGroups()
	if want := 3 + 2 + groupLookBack + 1; len(in.groups) != want {
		t.Fatalf("sorted: %d groups, want %d", len(in.groups), want)
	}
	for _, g := range []struct {
		key       groupKey
		animating bool
	}{
		{groupKey{0, 0, 1280}, true},
		{groupKey{0, 0, 320}, false},
		{groupKey{0, 1, 320}, false},
		{groupKey{1, 1, 320}, false},
		{groupKey{2, 2, 0}, true},
		{groupKey{2, 2, groupLookBack}, false},
	} {
		if f := in.flagsOf(g.key); !f.present || f.animating != g.animating {
			t.Errorf("group %+v: %+v, want present, animating %v", g.key, f, g.animating)
		}
	}
}
