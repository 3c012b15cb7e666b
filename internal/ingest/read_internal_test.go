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
		if got := rd.page(s.org, s.url); got != s.want {
			t.Errorf("step %d: page(%d, %q) = %d, want %d", i, s.org, s.url, got, s.want)
		}
	}
	if len(rd.pages) != 3 {
		t.Errorf("%d pages, want 3", len(rd.pages))
	}

	ids := map[string]int32{}
	files := []struct{ audit, rule string }{
		{"axe", "image-alt"}, {"axe", "region"}, {"axe", "image-alt"}, {"focus", "image-alt"}, {"focus", "image-alt"},
	}
	for _, f := range files {
		rd.file, rd.fileRules = f.audit, nil
		rd.audit = rd.strs.ID(f.audit)
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
