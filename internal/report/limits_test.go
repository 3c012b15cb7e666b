package report

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/a11y-dev/cwac-operator/internal/results"
)

// axeRow is one axe_core_audit.csv row in axeHead's columns.
type axeRow struct {
	org, url, vp, target, n, id, impact, html, tags string
}

func (r axeRow) line() string {
	q := func(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
	n := r.n
	if n == "" {
		n = "1"
	}
	org := r.org
	if org == "" {
		org = "O"
	}
	return strings.Join([]string{q(org), "S", "T", q(r.url), q(r.vp), q(r.target), n, "h", "https://h/", q(r.id), r.impact, q(r.html), q(r.tags)}, ",") + "\r\n"
}

// walkAxe builds a report from axe_core_audit.csv rows.
func walkAxe(t testing.TB, rows []axeRow) *Builder {
	t.Helper()
	return walkAxeWithin(t, DefaultLimits, rows)
}

// walkAxeWithin is walkAxe with limits.
func walkAxeWithin(t testing.TB, lim Limits, rows []axeRow) *Builder {
	t.Helper()
	var body strings.Builder
	body.WriteString(axeHead)
	for _, r := range rows {
		body.WriteString(r.line())
	}
	b := NewBuilderWithLimits(lim)
	if err := results.Walk(context.Background(), fstest.MapFS{"axe_core_audit.csv": csvFile(body.String())}, b); err != nil {
		t.Fatal(err)
	}
	return b
}

// viewOf is the report's view of a builder, with an empty summary.
func viewOf(b *Builder) *view {
	return b.view(Meta{}, &results.Summary{}, b.Leaderboard())
}

// TestSamplesPerRule: a rule lists MaxElementsPerRule elements and counts the rest.
func TestSamplesPerRule(t *testing.T) {
	for _, n := range []int{MaxElementsPerRule - 1, MaxElementsPerRule, MaxElementsPerRule + 1} {
		rows := make([]axeRow, n)
		for i := range rows {
			rows[i] = axeRow{url: "https://a/", target: fmt.Sprintf("/img[%d]", i), id: "image-alt", impact: "critical"}
		}
		v := viewOf(walkAxe(t, rows))
		if len(v.Rules) != 1 || len(v.Rules[0].Where) != 1 {
			t.Fatalf("%d elements: rules %+v", n, v.Rules)
		}
		shown := len(v.Rules[0].Where[0].Elements)
		if want := min(n, MaxElementsPerRule); shown != want || v.Rules[0].MoreElements != int64(n-want) {
			t.Errorf("%d elements: %d shown, %d more; want %d and %d", n, shown, v.Rules[0].MoreElements, want, n-want)
		}
	}
}

// TestRulesPerPage: a page names maxRulesPerPage rules and counts the rest,
// each further rule once however many elements it has.
func TestRulesPerPage(t *testing.T) {
	for _, n := range []int{maxRulesPerPage - 1, maxRulesPerPage, maxRulesPerPage + 1, maxRulesPerPage + 2} {
		rows := make([]axeRow, 0, 2*n)
		for i := range n {
			for e := range 2 { // two elements a rule
				rows = append(rows, axeRow{url: "https://a/", target: fmt.Sprint("/x", e), id: fmt.Sprintf("rule-%02d", i), impact: "minor"})
			}
		}
		v := viewOf(walkAxe(t, rows))
		if len(v.Pages) != 1 {
			t.Fatalf("%d rules: %d pages", n, len(v.Pages))
		}
		p := v.Pages[0]
		if want := min(n, maxRulesPerPage); len(p.Rules) != want || p.MoreRules != n-want || p.Elements != int64(2*n) {
			t.Errorf("%d rules: %d named, %d more, %d elements; want %d, %d, %d", n, len(p.Rules), p.MoreRules, p.Elements, want, n-want, 2*n)
		}
	}
}

// TestViewportsNamed: maxViewports distinct viewports are named; elements
// found at any further one are shown at "other".
func TestViewportsNamed(t *testing.T) {
	for _, n := range []int{maxViewports - 1, maxViewports, maxViewports + 1, maxViewports + 2} {
		rows := make([]axeRow, 0, n)
		for i := range n {
			rows = append(rows, axeRow{url: "https://a/", vp: fmt.Sprintf("{'width': %d, 'height': 450}", 300+i), target: "/img", id: "image-alt", impact: "critical"})
		}
		b := walkAxe(t, rows)
		v := viewOf(b)
		if want := min(n, maxViewports); len(v.Viewports) != want {
			t.Errorf("%d viewports: %d named, want %d", n, len(v.Viewports), want)
		}
		got := v.Rules[0].Where[0].Elements[0].Viewports
		wantLast := fmt.Sprintf("%d×450", 300+n-1)
		if n > maxViewports {
			wantLast = "other"
		}
		if len(got) != min(n, maxViewports+1) || got[len(got)-1] != wantLast || got[0] != "300×450" {
			t.Errorf("%d viewports: element shown at %v, want %d ending in %s", n, got, min(n, maxViewports+1), wantLast)
		}
	}
}

// TestViewportLabel: a cell that is not a viewport is shown cut to 40
// bytes, the mark of the cut included.
func TestViewportLabel(t *testing.T) {
	tests := map[string]string{
		"{'width': 320, 'height': 450}": "320×450",
		strings.Repeat("v", 39):         strings.Repeat("v", 39),
		strings.Repeat("v", 40):         strings.Repeat("v", 40),
		strings.Repeat("v", 41):         strings.Repeat("v", 40-len("…")) + "…",
	}
	for cell, want := range tests {
		if got := viewportLabel(cell); got != want {
			t.Errorf("viewportLabel(%q) = %q, want %q", cell, got, want)
		}
	}
}

// TestElementIdentity: an element is its target, else its HTML, else its
// description; the same at two viewports is one element, CWAC's count two.
func TestElementIdentity(t *testing.T) {
	vp1, vp2 := "{'width': 320, 'height': 450}", "{'width': 1280, 'height': 800}"
	rows := []axeRow{
		{url: "https://a/", vp: vp1, target: "/a", html: "<a>", id: "r", impact: "minor"},
		{url: "https://a/", vp: vp2, target: "/a", html: "<b>", id: "r", impact: "minor"}, // same target
		{url: "https://a/", vp: vp1, html: "<i>", id: "r", impact: "minor"},               // by HTML
		{url: "https://a/", vp: vp2, html: "<i>", id: "r", impact: "minor"},               // same HTML
		{url: "https://a/", vp: vp1, html: "<u>", id: "r", impact: "minor", n: "0"},       // no issue
		{url: "https://a/", vp: vp1, target: "/a", id: "r", impact: "minor", n: "2"},      // same again, count 2
		{url: "https://b/", vp: vp1, target: "/a", html: "<a>", id: "r", impact: "minor"}, // another page
	}
	b := walkAxe(t, rows)
	ru := b.rules["axe_core_audit\x00r"]
	if ru == nil || ru.Elements != 3 || ru.Count != 7 || ru.Pages != 2 {
		t.Fatalf("rule = %+v, want 3 elements, count 7, 2 pages", ru)
	}
	if b.totalElements[3] != 3 || b.totalCount[3] != 7 {
		t.Errorf("totals %v / %v", b.totalElements, b.totalCount)
	}
}

// TestElementByDescription: rows with neither target nor HTML (CWAC's own
// audits) are told apart by their description.
func TestElementByDescription(t *testing.T) {
	fsys := fstest.MapFS{"focus_indicator_audit.csv": csvFile("organisation,sector,page_title,url,viewport_size,description,num_issues\r\n" +
		"O,S,T,https://a/,\"{'width': 320, 'height': 450}\",Tab key press #1,1\r\n" +
		"O,S,T,https://a/,\"{'width': 1280, 'height': 450}\",Tab key press #1,1\r\n" +
		"O,S,T,https://a/,\"{'width': 320, 'height': 450}\",Tab key press #2,1\r\n")}
	b := NewBuilder()
	if err := results.Walk(context.Background(), fsys, b); err != nil {
		t.Fatal(err)
	}
	if b.totalElements[4] != 2 || b.totalCount[4] != 3 {
		t.Errorf("focus elements %v, count %v; want 2 and 3 other", b.totalElements, b.totalCount)
	}
	if c := b.criteria["2.4.7"]; c == nil || c.Elements != 2 || c.Count != 3 || c.Pages != 1 {
		t.Errorf("criterion 2.4.7 = %+v", c)
	}
}

// TestRuleImpactIsTheWorst: a rule shows the worst impact its rows carry,
// whatever their order; an impact axe does not have is "other".
func TestRuleImpactIsTheWorst(t *testing.T) {
	tests := []struct {
		impacts []string
		want    string
	}{
		{[]string{"minor", "serious", "moderate"}, "serious"},
		{[]string{"critical", "minor"}, "critical"},
		{[]string{"minor", "critical"}, "critical"},
		{[]string{"moderate", "moderate"}, "moderate"},
		{[]string{"", "minor"}, "minor"},
		{[]string{"odd"}, "other"},
	}
	for _, tt := range tests {
		var rows []axeRow
		for i, imp := range tt.impacts {
			rows = append(rows, axeRow{url: "https://a/", target: fmt.Sprint(i), id: "r", impact: imp})
		}
		if got := walkAxe(t, rows).rules["axe_core_audit\x00r"].Impact; got != tt.want {
			t.Errorf("impacts %v: rule impact %q, want %q", tt.impacts, got, tt.want)
		}
	}
}

func TestImpactIndexAndWeights(t *testing.T) {
	tests := []struct {
		impact string
		index  int
		weight float64
	}{
		{"critical", 0, 10}, {"serious", 1, 5}, {"moderate", 2, 2}, {"minor", 3, 1}, {"other", 4, 3}, {"", 4, 3}, {"Critical", 4, 3},
	}
	for _, tt := range tests {
		i := impactIndex(tt.impact)
		if i != tt.index || weightOf(i) != tt.weight {
			t.Errorf("%q: index %d, weight %v; want %d, %v", tt.impact, i, weightOf(i), tt.index, tt.weight)
		}
	}
}

// TestRuleOrder: rules are listed worst impact first, then most elements,
// then by id.
func TestRuleOrder(t *testing.T) {
	var rows []axeRow
	add := func(id, impact string, n int) {
		for i := range n {
			rows = append(rows, axeRow{url: "https://a/", target: fmt.Sprint(i), id: id, impact: impact})
		}
	}
	add("m-few", "minor", 1)
	add("s-few", "serious", 1)
	add("s-many", "serious", 3)
	add("c-one", "critical", 1)
	add("s-b", "serious", 2)
	add("s-a", "serious", 2)
	v := viewOf(walkAxe(t, rows))
	got := make([]string, 0, len(v.Rules))
	for _, r := range v.Rules {
		got = append(got, r.ID)
	}
	if diff := cmp.Diff([]string{"c-one", "s-many", "s-a", "s-b", "s-few", "m-few"}, got); diff != "" {
		t.Errorf("rule order (-want +got):\n%s", diff)
	}
}

// TestRulesShownAndNamed: MaxRulesShown rules get sections; of the rest,
// maxNamedRest are named and the others counted.
func TestRulesShownAndNamed(t *testing.T) {
	tests := []struct {
		rules                int
		more, named, unnamed int
		moreElements         int64
	}{
		{MaxRulesShown - 1, 0, 0, 0, 0},
		{MaxRulesShown, 0, 0, 0, 0},
		{MaxRulesShown + 1, 1, 1, 0, 2},
		{MaxRulesShown + maxNamedRest - 1, maxNamedRest - 1, maxNamedRest - 1, 0, 2 * (maxNamedRest - 1)},
		{MaxRulesShown + maxNamedRest, maxNamedRest, maxNamedRest, 0, 2 * maxNamedRest},
		{MaxRulesShown + maxNamedRest + 1, maxNamedRest + 1, maxNamedRest, 1, 2 * (maxNamedRest + 1)},
	}
	for _, tt := range tests {
		var rows []axeRow
		for i := range tt.rules {
			for e := range 2 {
				rows = append(rows, axeRow{url: "https://a/", target: fmt.Sprint(e), id: fmt.Sprintf("rule-%04d", i), impact: "minor"})
			}
		}
		v := viewOf(walkAxe(t, rows))
		if len(v.Rules) != min(tt.rules, MaxRulesShown) || v.RulesMore != tt.more || len(v.RulesMoreNames) != tt.named ||
			v.RulesMoreUnnamed != tt.unnamed || v.RulesMoreElements != tt.moreElements {
			t.Errorf("%d rules: %d shown, %d more, %d named, %d unnamed, %d elements; want %d, %d, %d, %d, %d", tt.rules,
				len(v.Rules), v.RulesMore, len(v.RulesMoreNames), v.RulesMoreUnnamed, v.RulesMoreElements,
				min(tt.rules, MaxRulesShown), tt.more, tt.named, tt.unnamed, tt.moreElements)
		}
		if tt.named > 0 && v.RulesMoreNames[0] != fmt.Sprintf("rule-%04d", MaxRulesShown) {
			t.Errorf("%d rules: first named rest %q", tt.rules, v.RulesMoreNames[0])
		}
	}
}

// TestPagesShown: MaxPagesShown pages are listed, worst weighted first
// (then by address); the rest are counted with their elements.
func TestPagesShown(t *testing.T) {
	for _, n := range []int{MaxPagesShown - 1, MaxPagesShown, MaxPagesShown + 1} {
		rows := make([]axeRow, 0, n+1)
		for i := range n {
			rows = append(rows, axeRow{url: fmt.Sprintf("https://a/%04d", i), target: "/x", id: "r", impact: "minor"})
		}
		// The last page is the worst: a critical element.
		rows = append(rows, axeRow{url: fmt.Sprintf("https://a/%04d", n-1), target: "/y", id: "c", impact: "critical"})
		v := viewOf(walkAxe(t, rows))
		more := max(0, n-MaxPagesShown)
		if len(v.Pages) != min(n, MaxPagesShown) || v.PagesMore != int64(more) || v.PagesMoreElements != int64(more) {
			t.Errorf("%d pages: %d shown, %d more with %d elements", n, len(v.Pages), v.PagesMore, v.PagesMoreElements)
			continue
		}
		if v.Pages[0].URL != fmt.Sprintf("https://a/%04d", n-1) || v.Pages[0].Elements != 2 || v.Pages[1].URL != "https://a/0000" {
			t.Errorf("%d pages: order starts %s (%d), %s", n, v.Pages[0].URL, v.Pages[0].Elements, v.Pages[1].URL)
		}
	}
}

// TestTrackedPagesCap: past MaxTrackedPages, further pages are counted
// together (each page once, each element).
func TestTrackedPagesCap(t *testing.T) {
	b := NewBuilder()
	shared := &page{}
	for i := range MaxTrackedPages - 1 {
		b.pages[uint64(i)+1<<40] = shared // keys no URL hashes to in practice
	}
	rows := []axeRow{
		{url: "https://a/1", target: "/x", id: "r", impact: "minor"}, // the last tracked page
		{url: "https://a/2", target: "/x", id: "r", impact: "minor"}, // untracked
		{url: "https://a/2", target: "/y", id: "r", impact: "minor"}, // untracked, same page
		{url: "https://a/3", target: "/x", id: "r", impact: "minor"}, // untracked
		{url: "https://a/1", target: "/y", id: "r", impact: "minor"}, // tracked still
	}
	var body strings.Builder
	body.WriteString(axeHead)
	for _, r := range rows {
		body.WriteString(r.line())
	}
	if err := results.Walk(context.Background(), fstest.MapFS{"axe_core_audit.csv": csvFile(body.String())}, b); err != nil {
		t.Fatal(err)
	}
	if p := b.pages[b.hash("https://a/1")]; p == nil || p.Elements != (pageCounts{3: 2}) {
		t.Errorf("the last tracked page = %+v, want 2 elements", p)
	}
	// The pages not listed: the two untracked ones with their 3 elements,
	// and the tracked ones but the last, which have none.
	if v := viewOf(b); len(b.pages) != MaxTrackedPages || b.untrackedPages != 2 ||
		v.PagesMore != 2+MaxTrackedPages-1 || v.PagesMoreElements != 3 {
		t.Errorf("%d pages tracked, %d untracked; %d not listed with %d elements; want %d, 2, %d, 3",
			len(b.pages), b.untrackedPages, v.PagesMore, v.PagesMoreElements, MaxTrackedPages, 2+MaxTrackedPages-1)
	}
}

// TestTrackedRulesCap: past MaxTrackedRules distinct rules, the rest are
// counted together as "other rules".
func TestTrackedRulesCap(t *testing.T) {
	for _, n := range []int{MaxTrackedRules - 1, MaxTrackedRules, MaxTrackedRules + 1, MaxTrackedRules + 2} {
		rows := make([]axeRow, 0, n)
		for i := range n {
			rows = append(rows, axeRow{url: "https://a/", target: fmt.Sprint("/x", i), id: fmt.Sprintf("rule-%05d", i), impact: "minor"})
		}
		b := walkAxe(t, rows)
		wantRules := min(n, MaxTrackedRules+1)
		other := b.rules["\x00overflow"]
		if len(b.ruleList) != wantRules || (other != nil) != (n > MaxTrackedRules) {
			t.Errorf("%d rules: %d kept, overflow %v", n, len(b.ruleList), other)
			continue
		}
		if other != nil && (other.ID != "other rules" || other.Elements != int64(n-MaxTrackedRules)) {
			t.Errorf("%d rules: overflow %q with %d elements", n, other.ID, other.Elements)
		}
	}
}

// TestTrackedOrganisationsCap: past MaxTrackedOrganisations, the rest are
// one "(other organisations)".
func TestTrackedOrganisationsCap(t *testing.T) {
	for _, n := range []int{MaxTrackedOrganisations - 1, MaxTrackedOrganisations, MaxTrackedOrganisations + 1, MaxTrackedOrganisations + 2} {
		var body strings.Builder
		body.WriteString("organisation,base_url,number_of_pages,sector\r\n")
		for i := range n {
			fmt.Fprintf(&body, "org-%05d,https://a/,1,S\r\n", i)
		}
		b := NewBuilder()
		if err := results.Walk(context.Background(), fstest.MapFS{"pages_scanned.csv": csvFile(body.String())}, b); err != nil {
			t.Fatal(err)
		}
		other := b.orgs[b.hash("(other organisations)")]
		if len(b.orgs) != min(n, MaxTrackedOrganisations+1) || (other != nil) != (n > MaxTrackedOrganisations) {
			t.Errorf("%d organisations: %d kept, other %+v", n, len(b.orgs), other)
			continue
		}
		if other != nil && (other.BaseURLs != n-MaxTrackedOrganisations || other.Pages != n-MaxTrackedOrganisations || other.Sector != "") {
			t.Errorf("%d organisations: other = %+v", n, other)
		}
	}
}

// TestTrackedElementsCap: up to MaxTrackedElements elements are told apart
// across viewports; past it, each further issue row counts as an element of
// its own and the report says counts may overstate. One builder, filled to
// two below the cap, is taken past it one element at a time (each element
// found at two viewports).
func TestTrackedElementsCap(t *testing.T) {
	b := NewBuilder()
	turn(t, &b.elements, "https://another/", 1) // another page's elements
	for i := range MaxTrackedElements - 2 {
		b.elements.add(uint64(i) + 1<<40)
	}
	b.elementsTold = MaxTrackedElements - 2
	tests := []struct {
		target       string
		tracked      int
		wantElements int64 // of the rule, so far
		capped       bool
	}{
		{"/a", MaxTrackedElements - 1, 1, false},
		{"/b", MaxTrackedElements, 2, false},
		{"/c", MaxTrackedElements, 4, true},
	}
	for _, tt := range tests {
		var body strings.Builder
		body.WriteString(axeHead)
		for _, vp := range []string{"{'width': 320, 'height': 450}", "{'width': 1280, 'height': 450}"} {
			body.WriteString(axeRow{url: "https://a/", vp: vp, target: tt.target, id: "r", impact: "minor"}.line())
		}
		if err := results.Walk(context.Background(), fstest.MapFS{"axe_core_audit.csv": csvFile(body.String())}, b); err != nil {
			t.Fatal(err)
		}
		ru := b.rules["axe_core_audit\x00r"]
		if b.elementsTold != tt.tracked || ru.Elements != tt.wantElements || b.elementsCapped != tt.capped {
			t.Errorf("element %s: %d tracked, %d elements, capped %v; want %d, %d, %v", tt.target, b.elementsTold, ru.Elements, b.elementsCapped,
				tt.tracked, tt.wantElements, tt.capped)
		}
	}
}

// TestFirstPairCap: pairs are told apart up to MaxTrackedElements; past it
// every pair is "first" and the builder says so.
func TestFirstPairCap(t *testing.T) {
	b := NewBuilder()
	b.pairsTold = MaxTrackedElements - 1
	tests := []struct {
		part          string
		first, capped bool
	}{
		{"a", true, false},  // the last pair kept
		{"a", false, false}, // known
		{"b", true, true},   // past the cap
		{"b", true, true},   // not kept, so first again
	}
	for i, tt := range tests {
		if got := b.firstPair(tt.part); got != tt.first || b.elementsCapped != tt.capped || b.pairsTold != MaxTrackedElements || b.elements.len() != 1 {
			t.Errorf("step %d (%s): first %v, capped %v, %d counted, %d kept; want %v, %v, %d, 1", i, tt.part, got, b.elementsCapped, b.pairsTold, b.elements.len(),
				tt.first, tt.capped, MaxTrackedElements)
		}
	}
}

// TestHashTuples: no two tuples hash alike because their parts are
// length-prefixed in full, even when the bytes they join to agree.
func TestHashTuples(t *testing.T) {
	b := NewBuilder()
	tail := strings.Repeat("t", 248)
	tests := [][2][]string{
		{{"ab", "c"}, {"a", "bc"}},
		{{"abc"}, {"abc", ""}},
		// 256 bytes that begin with the low byte of 248 and seven zero bytes, against a
		// tuple whose second part has 248 bytes: alike if only a length's first byte counted.
		{{"\xf8\x00\x00\x00\x00\x00\x00\x00" + tail}, {"", tail}},
		// Alike if lengths were not written at all (eight zero bytes each).
		{{"a\x00\x00\x00\x00\x00\x00\x00\x00b"}, {"a", "b"}},
		{{strings.Repeat("x", 1<<16)}, {strings.Repeat("x", 1<<16-8) + "\x00\x00\x00\x00\x00\x00\x00\x00", ""}},
	}
	for _, tt := range tests {
		if b.hash(tt[0]...) == b.hash(tt[1]...) {
			t.Errorf("hash(%.20q) = hash(%.20q)", tt[0], tt[1])
		}
	}
	if a, again := b.hash("a", "b"), b.hash("a", "b"); a != again {
		t.Error("hash is not stable")
	}
}

// TestCellCaps: kept cells are cut to maxCellChars, the mark of the cut
// included, on a character boundary; links longer than maxLinkChars are
// shown but not linked.
func TestCellCaps(t *testing.T) {
	for _, n := range []int{maxCellChars - 1, maxCellChars, maxCellChars + 1} {
		if got := clip(strings.Repeat("a", n)); len(got) != min(n, maxCellChars) {
			t.Errorf("clip of %d bytes: %d", n, len(got))
		}
	}
	if got := clip(strings.Repeat("a", maxCellChars-4) + "ééé"); got != strings.Repeat("a", maxCellChars-4)+"…" {
		t.Errorf("clip cut a character: %q", got[len(got)-4:])
	}
	// A cell within the cap is kept as it is, invalid bytes too (html/template escapes them).
	if in := strings.Repeat("a", maxCellChars-1) + "\xff"; clip(in) != in {
		t.Error("clip changed a cell of maxCellChars bytes")
	}
	for _, n := range []int{maxLinkChars - 1, maxLinkChars, maxLinkChars + 1} {
		u := "https://a/" + strings.Repeat("p", n-len("https://a/"))
		if got := httpURL(u); (got != "") != (n <= maxLinkChars) {
			t.Errorf("httpURL of %d bytes = %.20q", n, got)
		}
	}
	for u, want := range map[string]string{
		" https://a/ ": "https://a/", "HTTP://A/": "HTTP://A/", "http://a": "http://a", "javascript:x": "", "ftp://a/": "", "https:/a": "", "": "",
	} {
		if got := httpURL(u); got != want {
			t.Errorf("httpURL(%q) = %q, want %q", u, got, want)
		}
	}
}

func TestThousandsAndPlural(t *testing.T) {
	tests := map[int64]string{
		0: "0", 1: "1", 999: "999", 1000: "1,000", 9999: "9,999", 10000: "10,000", 100000: "100,000", 999999: "999,999",
		1000000: "1,000,000", 1234567: "1,234,567", -1: "-1", -999: "-999", -1000: "-1,000", -1234567: "-1,234,567",
		math.MaxInt64: "9,223,372,036,854,775,807",
	}
	for n, want := range tests {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
	if got := number(1234); got != "1,234" {
		t.Errorf("number(int) = %q", got)
	}
	if got := number(int64(1234)); got != "1,234" {
		t.Errorf("number(int64) = %q", got)
	}
	if got := number("x"); got != "x" {
		t.Errorf("number(string) = %q", got)
	}
	for n, want := range map[int]string{0: "0 pages", 1: "1 page", 2: "2 pages", 1001: "1,001 pages"} {
		if got := plural(n, "page", "pages"); got != want {
			t.Errorf("plural(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestWidthOf: bars are a share of the top figure, to one decimal, with a
// sliver of 0.5 for any non-zero figure.
func TestWidthOf(t *testing.T) {
	tests := []struct {
		n, top int64
		want   float64
	}{
		{0, 10, 0}, {-1, 10, 0}, {1, 0, 0}, {1, -1, 0}, {10, 10, 100}, {5, 10, 50}, {1, 3, 33.3}, {2, 3, 66.7},
		{1, 200, 0.5}, {1, 1000, 0.5}, {1, 199, 0.5}, {1, 100, 1}, {3, 1000, 0.5}, {6, 1000, 0.6},
	}
	for _, tt := range tests {
		if got := widthOf(tt.n, tt.top); got != tt.want {
			t.Errorf("widthOf(%d, %d) = %v, want %v", tt.n, tt.top, got, tt.want)
		}
	}
}

func TestImpactBars(t *testing.T) {
	got := impactBars(byImpact{4, 0, 2, 1, 8})
	want := []bar{
		{Label: "critical", Class: "critical", Value: 4, Width: 50}, {Label: "serious", Class: "serious", Value: 0, Width: 0},
		{Label: "moderate", Class: "moderate", Value: 2, Width: 25}, {Label: "minor", Class: "minor", Value: 1, Width: 12.5},
		{Label: "other", Class: "other", Value: 8, Width: 100},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("impact bars (-want +got):\n%s", diff)
	}
}

// TestOrgBars: organisations with elements, most first (then by name), at
// most MaxChartOrganisations; segments laid end to end.
func TestOrgBars(t *testing.T) {
	b := NewBuilder()
	b.orgs[b.hash("none")] = &organisation{Name: "none"}
	b.orgs[b.hash("big")] = &organisation{Name: "big", Elements: byImpact{2, 0, 1, 0, 1}}
	b.orgs[b.hash("b-tie")] = &organisation{Name: "b-tie", Elements: byImpact{0, 1}}
	b.orgs[b.hash("a-tie")] = &organisation{Name: "a-tie", Elements: byImpact{0, 0, 0, 1}}
	bars, more := b.orgBars()
	want := []stackedBar{
		{Label: "big", Total: 4, Segments: []segment{
			{Class: "critical", X: 0, Width: 50, Value: 2}, {Class: "moderate", X: 50, Width: 25, Value: 1}, {Class: "other", X: 75, Width: 25, Value: 1},
		}},
		{Label: "a-tie", Total: 1, Segments: []segment{{Class: "minor", X: 0, Width: 25, Value: 1}}},
		{Label: "b-tie", Total: 1, Segments: []segment{{Class: "serious", X: 0, Width: 25, Value: 1}}},
	}
	if diff := cmp.Diff(want, bars); diff != "" || more != 0 {
		t.Errorf("org bars (-want +got), %d more:\n%s", more, diff)
	}
	for _, n := range []int{MaxChartOrganisations - 1, MaxChartOrganisations, MaxChartOrganisations + 1} {
		b := NewBuilder()
		for i := range n {
			name := fmt.Sprintf("org-%02d", i)
			b.orgs[b.hash(name)] = &organisation{Name: name, Elements: byImpact{int64(i + 1)}}
		}
		bars, more := b.orgBars()
		if len(bars) != min(n, MaxChartOrganisations) || more != max(0, n-MaxChartOrganisations) || bars[0].Label != fmt.Sprintf("org-%02d", n-1) {
			t.Errorf("%d organisations: %d bars, %d more, first %s", n, len(bars), more, bars[0].Label)
		}
	}
}

// TestDiffBars: new and fixed per impact share one scale; organisations
// most changed first (then by name), at most MaxChartOrganisations.
func TestDiffBars(t *testing.T) {
	d := &results.DiffCounts{
		NewByImpact: map[string]int64{"critical": 2, "minor": 1}, FixedByImpact: map[string]int64{"serious": 4},
		ByOrganisation: []results.OrganisationChange{{Organisation: "b", New: 1, Fixed: 1}, {Organisation: "a", New: 2}, {Organisation: "c", Fixed: 8}},
	}
	dv := diffBars(d)
	gotImpact := make([]string, 0, len(dv.ByImpact))
	for _, b := range dv.ByImpact {
		gotImpact = append(gotImpact, fmt.Sprintf("%s %d/%v %d/%v", b.Label, b.New.Value, b.New.Width, b.Fixed.Value, b.Fixed.Width))
	}
	if diff := cmp.Diff([]string{"critical 2/50 0/0", "serious 0/0 4/100", "moderate 0/0 0/0", "minor 1/25 0/0"}, gotImpact); diff != "" {
		t.Errorf("by impact (-want +got):\n%s", diff)
	}
	gotOrg := make([]string, 0, len(dv.ByOrg))
	for _, b := range dv.ByOrg {
		gotOrg = append(gotOrg, fmt.Sprintf("%s %v %v", b.Label, b.New.Width, b.Fixed.Width))
	}
	if diff := cmp.Diff([]string{"c 0 100", "a 25 0", "b 12.5 12.5"}, gotOrg); diff != "" || dv.MoreOrgs != 0 {
		t.Errorf("by organisation (-want +got), %d more:\n%s", dv.MoreOrgs, diff)
	}
	if d.ByOrganisation[0].Organisation != "b" {
		t.Error("diffBars sorted the summary's own list")
	}
	for _, n := range []int{MaxChartOrganisations - 1, MaxChartOrganisations, MaxChartOrganisations + 1} {
		d := &results.DiffCounts{}
		for i := range n {
			d.ByOrganisation = append(d.ByOrganisation, results.OrganisationChange{Organisation: fmt.Sprint(i), New: int64(i + 1)})
		}
		dv := diffBars(d)
		if len(dv.ByOrg) != min(n, MaxChartOrganisations) || dv.MoreOrgs != max(0, n-MaxChartOrganisations) {
			t.Errorf("%d organisations: %d bars, %d more", n, len(dv.ByOrg), dv.MoreOrgs)
		}
	}
}

// TestNamedRules: a criterion's row names maxRulesPerCriterion rules, sorted, and counts the rest.
func TestNamedRules(t *testing.T) {
	for _, n := range []int{maxRulesPerCriterion - 1, maxRulesPerCriterion, maxRulesPerCriterion + 1} {
		ids := map[string]bool{}
		for i := range n {
			ids[fmt.Sprintf("r%02d", n-i)] = true
		}
		named, more := namedRules(ids)
		if len(named) != min(n, maxRulesPerCriterion) || more != max(0, n-maxRulesPerCriterion) || named[0] != "r01" {
			t.Errorf("%d rules: %v, %d more", n, named, more)
		}
	}
}

// TestLeaderboardRowsShown: the report lists MaxLeaderboardRows organisations.
func TestLeaderboardRowsShown(t *testing.T) {
	for _, n := range []int{MaxLeaderboardRows - 1, MaxLeaderboardRows, MaxLeaderboardRows + 1} {
		b := NewBuilder()
		for i := range n {
			name := fmt.Sprintf("org-%03d", i)
			b.orgs[b.hash(name)] = &organisation{Name: name, Pages: 1}
		}
		v := viewOf(b)
		if len(v.Leaderboard) != min(n, MaxLeaderboardRows) || v.LeaderboardMore != max(0, n-MaxLeaderboardRows) {
			t.Errorf("%d organisations: %d listed, %d more", n, len(v.Leaderboard), v.LeaderboardMore)
		}
	}
}

// TestScoreBounds: no page, no score; the score never goes below 0 and is
// rounded to one decimal.
func TestScoreBounds(t *testing.T) {
	tests := []struct {
		pages   int
		count   byImpact
		perPage float64
		score   *float64
	}{
		{0, byImpact{1}, 0, nil},
		{1, byImpact{}, 0, f(100)},
		{1, byImpact{10}, 100, f(0)},
		{1, byImpact{11}, 110, f(0)},
		{1, byImpact{9, 1, 1, 1, 1}, 101, f(0)},
		{3, byImpact{0, 0, 0, 1}, 0.3, f(99.7)},
		{1, byImpact{0, 0, 0, 0, 1}, 3, f(97)},
		{2, byImpact{0, 1, 1}, 3.5, f(96.5)},
	}
	for _, tt := range tests {
		b := NewBuilder()
		b.orgs[b.hash("o")] = &organisation{Name: "o", Pages: tt.pages, Count: tt.count}
		got := b.Leaderboard()[0]
		if got.WeightedPerPage != tt.perPage || !cmp.Equal(got.Score, tt.score) {
			t.Errorf("%d pages, %v: %v per page, score %s; want %v, %s", tt.pages, tt.count,
				got.WeightedPerPage, formatScore(got.Score), tt.perPage, formatScore(tt.score))
		}
	}
}

// TestPagesScannedCount: a base URL's pages are added up, one base URL a
// row, a count past int32 held at its largest.
func TestPagesScannedCount(t *testing.T) {
	fsys := fstest.MapFS{"pages_scanned.csv": csvFile("organisation,base_url,number_of_pages,sector\r\n" +
		"A,https://a/,3,\r\nA,https://a2/,4,Late\r\nA,https://a3/,0,Other\r\nB,https://b/,2147483647,S\r\nC,https://c/,2147483648,S\r\n")}
	b := NewBuilder()
	if err := results.Walk(context.Background(), fsys, b); err != nil {
		t.Fatal(err)
	}
	a, bb, c := b.orgs[b.hash("A")], b.orgs[b.hash("B")], b.orgs[b.hash("C")]
	if a.BaseURLs != 3 || a.Pages != 7 || a.Sector != "Late" {
		t.Errorf("A = %+v, want 3 base URLs, 7 pages, the first sector given", a)
	}
	if bb.Pages != math.MaxInt32 || c.Pages != math.MaxInt32 {
		t.Errorf("pages %d and %d, want both %d", bb.Pages, c.Pages, math.MaxInt32)
	}
}

// TestTrendPointOrganisations: a point keeps the MaxTrendOrganisations
// organisations with the most issues (ties by name), its issues in CWAC's count.
func TestTrendPointOrganisations(t *testing.T) {
	// n organisations and two more that tie at the top: 49, 50 and 51 in all.
	for _, n := range []int{MaxTrendOrganisations - 3, MaxTrendOrganisations - 2, MaxTrendOrganisations - 1} {
		b := NewBuilder()
		for i := range n {
			name := fmt.Sprintf("org-%02d", i)
			b.orgs[b.hash(name)] = &organisation{Name: name, Pages: 1, Count: byImpact{0, 0, 0, 0, int64(i)}}
		}
		b.orgs[b.hash("tie-b")] = &organisation{Name: "tie-b", Pages: 1, Count: byImpact{int64(n)}}
		b.orgs[b.hash("tie-a")] = &organisation{Name: "tie-a", Pages: 1, Count: byImpact{0, int64(n)}}
		b.totalCount = byImpact{4, 5}
		p := b.TrendPoint(Meta{ResultsDir: "d"}, &results.Summary{TotalIssues: 12, PagesScanned: 2})
		kept := min(n+2, MaxTrendOrganisations)
		if len(p.Organisations) != kept || p.TotalIssues != 9 || p.Pages != 2 || p.ResultsDir != "d" {
			t.Fatalf("%d+2 organisations: point %+v", n, p)
		}
		got := []string{p.Organisations[0].Organisation, p.Organisations[1].Organisation, p.Organisations[2].Organisation}
		if diff := cmp.Diff([]string{"tie-a", "tie-b", fmt.Sprintf("org-%02d", n-1)}, got); diff != "" {
			t.Errorf("%d+2 organisations: first three (-want +got):\n%s", n, diff)
		}
		last := p.Organisations[len(p.Organisations)-1]
		if want := fmt.Sprintf("org-%02d", n+2-kept); last.Organisation != want || last.Issues != int64(n+2-kept) {
			t.Errorf("%d+2 organisations: last kept %+v, want %s", n, last, want)
		}
	}
}

// TestReadTrendBounds: a trend.json at each bound is read; one byte,
// point, organisation or results-directory character past it is refused.
func TestReadTrendBounds(t *testing.T) {
	orgs := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprint("o", i)
		}
		return out
	}
	dir := func(n int) TrendPoint { p := point(0); p.ResultsDir = strings.Repeat("d", n); return p }
	padded := func(extra int) []byte {
		data, err := EncodeTrend([]TrendPoint{point(0, "A")})
		if err != nil {
			t.Fatal(err)
		}
		return append(data, []byte(strings.Repeat(" ", maxTrendFileBytes-len(data)+extra))...)
	}
	enc := func(points ...TrendPoint) []byte {
		data, err := EncodeTrend(points)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	tests := []struct {
		name    string
		data    []byte
		wantErr string
	}{
		{"file at the limit", padded(0), ""},
		{"file a byte over", padded(1), "more than 1048576 bytes"},
		{"organisations at the limit", enc(point(0, orgs(MaxTrendOrganisations)...)), ""},
		{"an organisation over", enc(point(0, orgs(MaxTrendOrganisations+1)...)), "51 organisations"},
		{"results dir at 512", enc(dir(512)), ""},
		{"results dir at 513", enc(dir(513)), "beyond the bounds"},
		{"points one under", enc(make([]TrendPoint, MaxTrendPoints-1)...), ""},
		{"points over", enc(make([]TrendPoint, MaxTrendPoints+1)...), "13 points, more than 12"},
	}
	for _, tt := range tests {
		_, err := ReadTrend(fstest.MapFS{TrendFile: {Data: tt.data}})
		if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.wantErr)
		}
	}
}

// TestTrendRowsShown: the "Over time" table lists maxTrendRows organisations.
func TestTrendRowsShown(t *testing.T) {
	for _, n := range []int{maxTrendRows - 1, maxTrendRows, maxTrendRows + 1} {
		orgs := make([]string, n)
		for i := range orgs {
			orgs[i] = fmt.Sprint("org", i)
		}
		v := trendOf([]TrendPoint{point(0, orgs[0]), point(1, orgs...)})
		if len(v.Rows) != min(n, maxTrendRows) || v.More != max(0, n-maxTrendRows) {
			t.Errorf("%d organisations: %d rows, %d more", n, len(v.Rows), v.More)
		}
		if got := strings.Join(v.Rows[0].Cells, " "); got != "0 1" || v.Scans[0] != "1 Nov 2026 03:00" || v.Total[1] != "10" {
			t.Errorf("%d organisations: first row %q, scans %v, totals %v", n, got, v.Scans, v.Total)
		}
	}
	if v := trendOf([]TrendPoint{point(0), point(1)}); v == nil || len(v.Scans) != 2 {
		t.Errorf("two points: %+v, want a trend", v)
	}
	if v := trendOf(nil); v != nil {
		t.Errorf("no points: %+v", v)
	}
}

// TestErrorsNameTheirCause: a bad count names its column (the file is
// added by results.Walk), a missing summary and a failed write are named.
func TestErrorsNameTheirCause(t *testing.T) {
	for name, fsys := range map[string]fstest.MapFS{
		"num_issues":      {"axe_core_audit.csv": csvFile(axeHead + "O,S,T,https://a/,,,x,h,,r,minor,,\r\n")},
		"number_of_pages": {"pages_scanned.csv": csvFile("organisation,base_url,number_of_pages,sector\r\nA,https://a/,many,S\r\n")},
	} {
		if err := results.Walk(context.Background(), fsys, NewBuilder()); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: err = %v", name, err)
		}
		if _, err := leaderboardOf(fsys); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("Leaderboard, %s: err = %v", name, err)
		}
		if _, err := Generate(fsys, Meta{}, func(string, []byte) error { return nil }); err == nil {
			t.Errorf("Generate, %s: no error", name)
		}
	}
	if _, _, err := NewBuilder().Render(Meta{}, nil); err == nil || !strings.Contains(err.Error(), "no summary") {
		t.Errorf("Render without a summary: err = %v", err)
	}
	if _, err := NewBuilder().WriteFiles(Meta{}, nil, func(string, []byte) error { return nil }); err == nil {
		t.Error("WriteFiles without a summary: no error")
	}
	for _, failing := range []string{LeaderboardFile, HTMLFile} {
		var written []string
		_, err := NewBuilder().WriteFiles(Meta{}, &results.Summary{}, func(name string, _ []byte) error {
			if name == failing {
				return fmt.Errorf("disk full")
			}
			written = append(written, name)
			return nil
		})
		if err == nil || !strings.Contains(err.Error(), "writing "+failing+": disk full") {
			t.Errorf("writing %s fails: err = %v (wrote %v)", failing, err, written)
		}
	}
}

// TestUnsampledElementAtTwoViewports: an element past the rule's samples,
// found again at another viewport, adds that viewport to no sample.
func TestUnsampledElementAtTwoViewports(t *testing.T) {
	vp1, vp2 := "{'width': 320, 'height': 450}", "{'width': 1280, 'height': 800}"
	rows := make([]axeRow, 0, MaxElementsPerRule+2)
	for i := range MaxElementsPerRule + 1 {
		rows = append(rows, axeRow{url: "https://a/", vp: vp1, target: fmt.Sprint("/", i), id: "r", impact: "minor"})
	}
	rows = append(rows, axeRow{url: "https://a/", vp: vp2, target: fmt.Sprint("/", MaxElementsPerRule), id: "r", impact: "minor"})
	b := walkAxe(t, rows)
	ru := b.rules["axe_core_audit\x00r"]
	for i, s := range ru.samples {
		if got := b.viewportNames(s.viewports); len(got) != 1 || got[0] != "320×450" {
			t.Errorf("sample %d shown at %v, want 320×450 only", i, got)
		}
	}
	if ru.Elements != MaxElementsPerRule+1 || ru.Count != MaxElementsPerRule+2 {
		t.Errorf("rule: %d elements, count %d", ru.Elements, ru.Count)
	}
}

// TestNoCriterion: rules whose tags name no WCAG criterion are counted
// under their own row, in elements and in CWAC's count.
func TestNoCriterion(t *testing.T) {
	rows := []axeRow{
		{url: "https://a/", target: "/r1", id: "region", impact: "moderate", tags: "['cat.keyboard', 'best-practice']"},
		{url: "https://a/", target: "/r2", id: "region", impact: "moderate", tags: "['cat.keyboard', 'best-practice']", n: "2"},
		{url: "https://a/", target: "/i", id: "image-alt", impact: "critical", tags: "['wcag2a', 'wcag111']"},
		{url: "https://a/", target: "/b", id: "bypass-ish", impact: "minor"},
	}
	v := viewOf(walkAxe(t, rows))
	nc := v.NoCriterion
	if nc.Elements != 3 || nc.Count != 4 || !cmp.Equal(nc.Rules, []string{"bypass-ish", "region"}) || nc.MoreRules != 0 {
		t.Errorf("no criterion: %d elements, count %d, rules %v (+%d); want 3, 4, [bypass-ish region]", nc.Elements, nc.Count, nc.Rules, nc.MoreRules)
	}
	if len(v.Criteria) != 1 || v.Criteria[0].Number != "1.1.1" || v.Criteria[0].Elements != 1 || v.Criteria[0].Count != 1 {
		t.Errorf("criteria %+v, want 1.1.1 with one element", v.Criteria)
	}
}

// TestPagesByWeight: pages are ordered by their elements weighted as the
// leaderboard weighs issues: one critical (10) before two minor (2).
func TestPagesByWeight(t *testing.T) {
	rows := []axeRow{
		{url: "https://a/minor", target: "/1", id: "m", impact: "minor"},
		{url: "https://a/minor", target: "/2", id: "m", impact: "minor"},
		{url: "https://a/other", target: "/1", id: "", impact: ""},
		{url: "https://a/critical", target: "/1", id: "c", impact: "critical"},
	}
	v := viewOf(walkAxe(t, rows))
	got := make([]string, 0, len(v.Pages))
	for _, p := range v.Pages {
		got = append(got, p.URL)
	}
	if diff := cmp.Diff([]string{"https://a/critical", "https://a/other", "https://a/minor"}, got); diff != "" {
		t.Errorf("page order (-want +got):\n%s", diff)
	}
}

// TestTrendPointIssues: an organisation's issues in a point are all five
// impact classes added up.
func TestTrendPointIssues(t *testing.T) {
	b := NewBuilder()
	b.orgs[b.hash("o")] = &organisation{Name: "o", Pages: 1, Count: byImpact{1, 2, 4, 8, 16}}
	p := b.TrendPoint(Meta{}, &results.Summary{})
	if len(p.Organisations) != 1 || p.Organisations[0].Issues != 31 {
		t.Errorf("point organisations %+v, want o with 31 issues", p.Organisations)
	}
}

// TestDiffBarsOrderBySum: organisations are ordered by new and fixed added up.
func TestDiffBarsOrderBySum(t *testing.T) {
	d := &results.DiffCounts{ByOrganisation: []results.OrganisationChange{
		{Organisation: "z", Fixed: 2}, {Organisation: "x", New: 1, Fixed: 5}, {Organisation: "w", New: 3, Fixed: 4}, {Organisation: "y", New: 4},
		{Organisation: "v", New: 0, Fixed: 1},
	}}
	dv := diffBars(d)
	got := make([]string, 0, len(dv.ByOrg))
	for _, b := range dv.ByOrg {
		got = append(got, b.Label)
	}
	if diff := cmp.Diff([]string{"w", "x", "y", "z", "v"}, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

// TestUntrackedPagesComeBack: the pages past lim.Pages tell their rules,
// criteria and themselves apart across their runs of rows: a page whose
// rows come back after other pages' counts once under each of its rules
// and criteria, and once among the untracked pages.
func TestUntrackedPagesComeBack(t *testing.T) {
	const tags = "['wcag2a', 'wcag111', 'wcag2aa', 'wcag143']"
	row := func(page, target, id string) axeRow {
		return axeRow{url: "https://a/" + page, vp: "{'width': 320, 'height': 450}", target: target, id: id, impact: "minor", tags: tags}
	}
	var body strings.Builder
	body.WriteString(axeHead)
	for _, r := range []axeRow{
		row("tracked", "/x", "r"),
		row("b", "/x", "r"), row("c", "/x", "r"),
		row("b", "/y", "r"), row("b", "/z", "q"), // b again: r known there, q new
		row("c", "/y", "q"), row("b", "/w", "r"),
	} {
		body.WriteString(r.line())
	}
	b := NewBuilderWithLimits(Limits{Pages: 1})
	if err := results.Walk(context.Background(), fstest.MapFS{"axe_core_audit.csv": csvFile(body.String())}, b); err != nil {
		t.Fatal(err)
	}
	r, q := b.rules["axe_core_audit\x00r"], b.rules["axe_core_audit\x00q"]
	if r == nil || q == nil || r.Pages != 3 || q.Pages != 2 || r.Elements != 5 || q.Elements != 2 {
		t.Fatalf("rules r %+v and q %+v, want 3 and 2 pages, 5 and 2 elements", r, q)
	}
	for _, n := range []string{"1.1.1", "1.4.3"} {
		if c := b.criteria[n]; c == nil || c.Pages != 3 || c.Elements != 7 {
			t.Errorf("criterion %s: %+v, want 3 pages, 7 elements", n, c)
		}
	}
	// The one tracked page is listed: the pages not listed are the two
	// untracked ones and their 6 elements.
	if v := viewOf(b); len(b.pages) != 1 || b.untrackedPages != 2 || v.PagesMoreElements != 6 || b.elementsCapped {
		t.Errorf("%d pages kept, %d untracked with %d elements, capped %v; want 1, 2, 6, false",
			len(b.pages), b.untrackedPages, v.PagesMoreElements, b.elementsCapped)
	}
}
