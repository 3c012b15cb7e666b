package diff

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/a11y-dev/cwac-operator/internal/results"
)

// Synthetic results for boundary cases: a few rows, each column spelt out.
const (
	axeFile    = "axe_core_audit.csv"
	reflowFile = "reflow_audit.csv"
	vp320      = "{'width': 320, 'height': 450}"
	pageA      = "https://a.example/"
	pageB      = "https://a.example/b"
)

var (
	axeHeader    = []string{"organisation", "page_title", "url", "viewport_size", "target", "num_issues", "id", "impact", "html", "help", "helpUrl"}
	focusHeader  = []string{"organisation", "page_title", "url", "viewport_size", "description", "html", "num_issues"}
	reflowHeader = []string{"organisation", "page_title", "url", "viewport_size", "num_issues"}
)

// axe is an axe_core_audit.csv row on page url at 320 wide.
func axe(org, url, target, id, impact, html string, n int) []string {
	return []string{org, "T", url, vp320, target, fmt.Sprint(n), id, impact, html, "help of " + id, "https://help/" + id}
}

// passing is an axe row with no issue: the audit ran on the page.
func passing() []string { return axe("O", pageA, "", "", "", "", 0) }

// scanDir is one side: its audit CSVs' rows and the pages audit_log.csv
// lists (nil: no audit log, as after an interrupted scan).
type scanDir struct {
	axe, focus, reflow [][]string
	log                []string
}

func (d scanDir) fs() fstest.MapFS {
	m := fstest.MapFS{}
	for _, f := range []struct {
		name   string
		header []string
		rows   [][]string
	}{{axeFile, axeHeader, d.axe}, {focusFile, focusHeader, d.focus}, {reflowFile, reflowHeader, d.reflow}} {
		if f.rows != nil {
			m[f.name] = csvFile(f.header, f.rows)
		}
	}
	if d.log != nil {
		rows := make([][]string, 0, len(d.log))
		for _, u := range d.log {
			rows = append(rows, []string{"O", u, u, "S"})
		}
		m[results.AuditLogFile] = csvFile([]string{"organisation", "base_url", "url", "sector"}, rows)
	}
	return m
}

func compareDirs(t *testing.T, base, cur scanDir) (*Result, []Row) {
	t.Helper()
	res, rows := compareAll(t, base.fs(), cur.fs())
	checkInvariants(t, base.fs(), cur.fs(), res, rows)
	return res, rows
}

// TestCountsByImpactAndOrganisation: new and fixed issues are counted per
// impact (rows without one, as CWAC's own audits write, are left out) and
// per organisation; an unchanged issue counts for the scan's organisation.
func TestCountsByImpactAndOrganisation(t *testing.T) {
	pages := []string{pageA}
	base := scanDir{log: pages, axe: [][]string{
		axe("Old name", pageA, "/a", "r1", "critical", "<a>", 1),
		axe("Old name", pageA, "/b", "r2", "serious", "<b>", 1),
	}}
	cur := scanDir{log: pages, axe: [][]string{
		axe("New name", pageA, "/a", "r1", "critical", "<a>", 1),
		axe("New name", pageA, "/c", "r1", "critical", "<c>", 1),
		axe("New name", pageA, "/d", "r3", "minor", "<d>", 2),
		axe("New name", pageA, "/e", "r4", "", "<e>", 1),
		axe("New name", pageA, "/f", "r5", "bogus", "<f>", 3),
		axe("Third", pageA, "/g", "r1", "serious", "<g>", 5),
	}}
	res, _ := compareDirs(t, base, cur)
	c := res.Counts
	if diff := cmp.Diff(map[string]int64{"critical": 1, "minor": 2, "serious": 5, "bogus": 3}, c.NewByImpact); diff != "" {
		t.Errorf("new by impact (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int64{"serious": 1}, c.FixedByImpact); diff != "" {
		t.Errorf("fixed by impact (-want +got):\n%s", diff)
	}
	// Per organisation only axe-core's impacts are counted: "bogus" and no
	// impact are in New alone.
	want := []results.OrganisationChange{
		{Organisation: "New name", New: 7, Unchanged: 1, NewByImpact: map[string]int64{"critical": 1, "minor": 2}},
		{Organisation: "Third", New: 5, NewByImpact: map[string]int64{"serious": 5}},
		{Organisation: "Old name", Fixed: 1},
	}
	if diff := cmp.Diff(want, c.ByOrganisation); diff != "" {
		t.Errorf("by organisation (-want +got):\n%s", diff)
	}
}

// TestNothingChangedHasNoImpacts: with nothing new or fixed, the counts
// carry no per-impact maps and no organisation with nothing but unchanged issues is "changed".
func TestNothingChangedHasNoImpacts(t *testing.T) {
	side := scanDir{log: []string{pageA}, axe: [][]string{axe("O", pageA, "/a", "r1", "critical", "<a>", 1), axe("O", pageA, "/b", "r1", "minor", "<b>", 3)}}
	other := side
	other.axe = [][]string{axe("P", pageA, "/a", "r1", "critical", "<a>", 1), axe("P", pageA, "/b", "r1", "minor", "<b>", 3)}
	res, rows := compareDirs(t, side, other)
	c := res.Counts
	if c.NewByImpact != nil || c.FixedByImpact != nil || c.New != 0 || c.Fixed != 0 || c.Unchanged != 4 {
		t.Errorf("counts %+v, want 4 unchanged and no impacts", c)
	}
	if diff := cmp.Diff([]results.OrganisationChange{{Organisation: "P", Unchanged: 4}}, c.ByOrganisation); diff != "" {
		t.Errorf("by organisation (-want +got):\n%s", diff)
	}
	if len(rows) != 2 || rows[0].Change != ChangeUnchanged || rows[0].Organisation != "P" || rows[1].Issues != 3 {
		t.Errorf("rows:\n%s", rowsText(rows))
	}
}

// TestMatchedCountsDiffer: a matched pair whose num_issues differ counts the
// smaller as unchanged and the difference as new (or fixed).
func TestMatchedCountsDiffer(t *testing.T) {
	pages := []string{pageA}
	tests := []struct {
		base, cur          int
		unchanged, nw, fix int64
	}{
		{1, 1, 1, 0, 0}, {1, 2, 1, 1, 0}, {1, 3, 1, 2, 0}, {3, 1, 1, 0, 2}, {2, 1, 1, 0, 1},
	}
	for _, tt := range tests {
		base := scanDir{log: pages, axe: [][]string{axe("O", pageA, "/a", "r1", "critical", "<a>", tt.base)}}
		cur := scanDir{log: pages, axe: [][]string{axe("O", pageA, "/a", "r1", "critical", "<a>", tt.cur)}}
		res, rows := compareDirs(t, base, cur)
		c := res.Counts
		if c.Unchanged != tt.unchanged || c.New != tt.nw || c.Fixed != tt.fix || c.NewElements != 0 || c.FixedElements != 0 {
			t.Errorf("%d then %d: %+v", tt.base, tt.cur, c)
		}
		if len(rows) != 1+min(1, int(tt.nw+tt.fix)) {
			t.Errorf("%d then %d: rows\n%s", tt.base, tt.cur, rowsText(rows))
		}
	}
}

// TestOrganisationOrder: organisations with the most new issues first, then
// the most fixed, then by name.
func TestOrganisationOrder(t *testing.T) {
	pages := []string{pageA}
	base := scanDir{log: pages, axe: [][]string{passing()}}
	cur := scanDir{log: pages, axe: [][]string{passing()}}
	n := 0
	add := func(d *scanDir, org string, count int) {
		for range count {
			n++
			d.axe = append(d.axe, axe(org, pageA, fmt.Sprint("/", n), "r", "minor", fmt.Sprintf("<x%d>", n), 1))
		}
	}
	add(&cur, "b", 2)
	add(&cur, "a", 2)
	add(&cur, "c", 2)
	add(&base, "c", 1)
	add(&cur, "d", 3)
	add(&base, "e", 5)
	add(&base, "f", 1)
	add(&base, "g", 2)
	res, _ := compareDirs(t, base, cur)
	got := make([]string, 0, len(res.Counts.ByOrganisation))
	for _, o := range res.Counts.ByOrganisation {
		got = append(got, fmt.Sprintf("%s %d/%d", o.Organisation, o.New, o.Fixed))
	}
	if diff := cmp.Diff([]string{"d 3/0", "c 2/1", "a 2/0", "b 2/0", "e 0/5", "g 0/2", "f 0/1"}, got); diff != "" {
		t.Errorf("organisations (-want +got):\n%s", diff)
	}
}

// TestRuleOrderAndImpact: rules with the most new issues first, then the
// most fixed, then by audit and rule; a rule shows the worst impact of its
// rows on either side.
func TestRuleOrderAndImpact(t *testing.T) {
	pages := []string{pageA}
	base := scanDir{log: pages, axe: [][]string{passing(), axe("O", pageA, "/u", "r-f", "moderate", "<u>", 1),
		axe("O", pageA, "/c0", "r-c", "serious", "<c0>", 1)}, reflow: [][]string{{"O", "T", pageA, vp320, "0"}}}
	cur := scanDir{log: pages, axe: [][]string{passing(), axe("O", pageA, "/u", "r-f", "minor", "<u>", 1)},
		reflow: [][]string{{"O", "T", pageA, vp320, "1"}}}
	n := 0
	add := func(d *scanDir, id, impact string, count int) {
		for range count {
			n++
			d.axe = append(d.axe, axe("O", pageA, fmt.Sprint("/", n), id, impact, fmt.Sprintf("<x%d>", n), 1))
		}
	}
	add(&cur, "r-b", "minor", 1)
	add(&cur, "r-a", "minor", 1)
	add(&cur, "z-rule", "minor", 1) // after "reflow_audit", but its audit comes first
	add(&cur, "r-c", "minor", 1)
	add(&cur, "r-d", "minor", 1)
	add(&cur, "r-d", "critical", 1)
	add(&cur, "r-d", "serious", 1)
	add(&base, "r-e", "moderate", 3)
	add(&base, "r-g", "", 1)
	res, _ := compareDirs(t, base, cur)
	got := make([]string, 0, len(res.ByRule))
	for _, r := range res.ByRule {
		got = append(got, fmt.Sprintf("%s/%s %s %d/%d/%d", r.Audit, r.Rule, r.Impact, r.New, r.Fixed, r.Unchanged))
	}
	want := []string{
		"axe_core_audit/r-d critical 3/0/0",
		"axe_core_audit/r-c serious 1/1/0",
		"axe_core_audit/r-a minor 1/0/0",
		"axe_core_audit/r-b minor 1/0/0",
		"axe_core_audit/z-rule minor 1/0/0",
		"reflow_audit/reflow_audit  1/0/0",
		"axe_core_audit/r-e moderate 0/3/0",
		"axe_core_audit/r-g  0/1/0",
		"axe_core_audit/r-f moderate 0/0/1",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
}

// TestAuditOrder: audits are compared in name order with the focus audit
// last, as their rows show.
func TestAuditOrder(t *testing.T) {
	pages := []string{pageA}
	side := scanDir{log: pages,
		axe:    [][]string{axe("O", pageA, "/a", "r1", "critical", "<a>", 1)},
		focus:  [][]string{{"O", "T", pageA, vp320, "Tab key press #1 did not show a focus indicator", "<a>", "1"}},
		reflow: [][]string{{"O", "T", pageA, vp320, "1"}},
	}
	_, rows := compareDirs(t, side, side)
	got := make([]string, 0, len(rows))
	for _, r := range rows {
		got = append(got, r.Audit)
	}
	if diff := cmp.Diff([]string{"axe_core_audit", "reflow_audit", "focus_indicator_audit"}, got); diff != "" {
		t.Errorf("audits (-want +got):\n%s", diff)
	}
}

// TestRowCells: a row's help is the rule's help, else the row's
// description, else the audit's own description; unchanged rows carry the
// scan's cells, and say what they were matched on.
func TestRowCells(t *testing.T) {
	pages := []string{pageA}
	base := scanDir{log: pages,
		axe:    [][]string{axe("O", pageA, "/a", "r1", "critical", `<img class="old">`, 1), axe("O", pageA, "/b", "r1", "critical", "<b>", 1)},
		focus:  [][]string{{"O", "T", pageA, vp320, "Tab key press #1 did not show a focus indicator", "<a>", "1"}},
		reflow: [][]string{{"O", "T", pageA, vp320, "1"}},
	}
	cur := base
	cur.axe = [][]string{axe("O", pageA, "/a", "r1", "critical", `<img class="new">`, 1), axe("O", pageA, "/b", "r1", "critical", "<b>", 1)}
	_, rows := compareDirs(t, base, cur)
	got := make([]string, 0, len(rows))
	for _, r := range rows {
		got = append(got, fmt.Sprintf("%s %s %s %s %q %s", r.Change, r.Audit, r.MatchedOn, r.Target, r.HTML, r.Help))
	}
	want := []string{
		`unchanged axe_core_audit target /a "<img class=\"new\">" help of r1`,
		`unchanged axe_core_audit html /b "<b>" help of r1`,
		"unchanged reflow_audit html  \"\" " + results.RuleDescription("reflow_audit"),
		`unchanged focus_indicator_audit html  "<a>" Tab key press #1 did not show a focus indicator`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}

// TestMatchRuns: rules found on one side only, before, between and after
// the rules both sides share, are new or fixed; the shared ones match.
func TestMatchRuns(t *testing.T) {
	pages := []string{pageA}
	tests := []struct {
		name      string
		base, cur []string // rule ids, one element each
		nw, fixed int64
	}{
		{"the scan has a rule after the baseline's", []string{"a"}, []string{"a", "z"}, 1, 0},
		{"the baseline has a rule after the scan's", []string{"a", "z"}, []string{"a"}, 0, 1},
		{"interleaved", []string{"a", "c", "e"}, []string{"b", "c", "d", "f"}, 3, 2},
		{"the baseline has none", nil, []string{"a", "b"}, 2, 0},
		{"the scan has none", []string{"a", "b"}, nil, 0, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			build := func(ids []string) scanDir {
				d := scanDir{log: pages, axe: [][]string{passing()}}
				for _, id := range ids {
					d.axe = append(d.axe, axe("O", pageA, "/x", id, "minor", "<x>", 1))
				}
				return d
			}
			res, _ := compareDirs(t, build(tt.base), build(tt.cur))
			if c := res.Counts; c.New != tt.nw || c.Fixed != tt.fixed || c.Unchanged != int64(len(tt.base))-tt.fixed {
				t.Errorf("new %d, fixed %d, unchanged %d", c.New, c.Fixed, c.Unchanged)
			}
		})
	}
}

// TestMatchWithinRun: inside one page and rule, the same HTML at the same
// target pairs first, then the same HTML anywhere, then the same target;
// what is left is new or fixed.
func TestMatchWithinRun(t *testing.T) {
	pages := []string{pageA}
	el := func(target, html string) []string { return axe("O", pageA, target, "r", "minor", html, 1) }
	tests := []struct {
		name      string
		base, cur [][]string
		want      []string // change, matched on, target, HTML of each row
	}{
		{"moved and changed", [][]string{el("/1", "<a>"), el("/2", "<b>"), el("/3", "<c>")},
			[][]string{el("/2", "<a>"), el("/3", "<c2>"), el("/4", "<d>")},
			[]string{"unchanged html /2 <a>", "unchanged target /3 <c2>", "new  /4 <d>", "fixed  /2 <b>"}},
		{"same HTML twice, targets decide", [][]string{el("/1", "<a>"), el("/2", "<a>")},
			[][]string{el("/2", "<a>"), el("/9", "<a>")},
			[]string{"unchanged html /2 <a>", "unchanged html /9 <a>"}},
		{"targets left unpaired", [][]string{el("/1", "<a>")}, [][]string{el("/2", "<b>")},
			[]string{"new  /2 <b>", "fixed  /1 <a>"}},
		{"one baseline target, two scan rows", [][]string{el("/1", "<a>")}, [][]string{el("/1", "<b>"), el("/1", "<c>")},
			[]string{"unchanged target /1 <b>", "new  /1 <c>"}},
		{"the scan's lower HTML unmatched", [][]string{el("/1", "<m>")}, [][]string{el("/0", "<a>"), el("/1", "<m>")},
			[]string{"new  /0 <a>", "unchanged html /1 <m>"}},
		{"the baseline's lower HTML unmatched", [][]string{el("/0", "<a>"), el("/1", "<m>")}, [][]string{el("/1", "<m>")},
			[]string{"unchanged html /1 <m>", "fixed  /0 <a>"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := scanDir{log: pages, axe: append([][]string{passing()}, tt.base...)}
			cur := scanDir{log: pages, axe: append([][]string{passing()}, tt.cur...)}
			_, rows := compareDirs(t, base, cur)
			var got []string
			for _, r := range rows {
				got = append(got, fmt.Sprintf("%s %s %s %s", r.Change, r.MatchedOn, r.Target, r.HTML))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPagesFromTheLogOrTheAudits: a page the scan lists in audit_log.csv,
// or (without the log) in any audit's rows, was scanned: the baseline's
// issues there, in an audit with no row for the page, are unstable, not
// fixed on a removed page.
func TestPagesFromTheLogOrTheAudits(t *testing.T) {
	base := scanDir{log: []string{pageA, pageB},
		axe:    [][]string{passing(), axe("O", pageB, "/x", "r", "minor", "<x>", 1)},
		reflow: [][]string{{"O", "T", pageA, vp320, "0"}, {"O", "T", pageB, vp320, "0"}},
	}
	tests := []struct {
		name string
		cur  scanDir
		want figures
	}{
		{"listed in the log, no rows", scanDir{log: []string{pageA, pageB}, axe: [][]string{passing()}, reflow: [][]string{{"O", "T", pageA, vp320, "0"}}},
			figures{Unstable: 1}},
		{"no log, rows in a later audit", scanDir{axe: [][]string{passing()}, reflow: [][]string{{"O", "T", pageA, vp320, "0"}, {"O", "T", pageB, vp320, "0"}}},
			figures{Unstable: 1}},
		{"no log, no rows", scanDir{axe: [][]string{passing()}, reflow: [][]string{{"O", "T", pageA, vp320, "0"}}},
			figures{Fixed: 1, FixedElements: 1, PagesRemoved: 1, FixedOnRemovedPgs: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, _ := compareDirs(t, base, tt.cur)
			if diff := cmp.Diff(tt.want, figuresOf(res.Counts)); diff != "" {
				t.Errorf("figures (-want +got):\n%s", diff)
			}
		})
	}
}

// TestViewportCacheBound: at most maxCachedViewports viewport cells are
// kept; further ones are still read right.
func TestViewportCacheBound(t *testing.T) {
	v := viewportCache{widths: map[string]int{}}
	for i := range maxCachedViewports + 2 {
		cell := fmt.Sprintf("{'width': %d, 'height': 450}", i+1)
		w, err := v.width(cell)
		if err != nil || w != i+1 {
			t.Fatalf("width(%q) = %d, %v", cell, w, err)
		}
		if want := min(i+1, maxCachedViewports); len(v.widths) != want {
			t.Fatalf("after %d cells, %d kept, want %d", i+1, len(v.widths), want)
		}
	}
	if w, err := v.width("{'width': 7, 'height': 1}"); err != nil || w != 7 {
		t.Errorf("an uncached cell: %d, %v", w, err)
	}
}

// TestCapText: cells are cut to their cap, the mark "…" included.
func TestCapText(t *testing.T) {
	pages := []string{pageA}
	long := "<p>" + strings.Repeat("x", MaxHTMLBytes) + "</p>"
	side := scanDir{log: pages, axe: [][]string{axe("O", pageA, "/a", "r", "minor", long, 1)}}
	_, rows := compareDirs(t, side, side)
	if len(rows) != 1 || rows[0].HTML != long[:MaxHTMLBytes-len("…")]+"…" {
		t.Errorf("a long HTML cell is not cut to %d bytes: %d rows", MaxHTMLBytes, len(rows))
	}
}

// TestMaxRecords: one side's audit CSV may hold MaxIssueRows issue rows, not
// one more (the count of those before them set up to that length).
func TestMaxRecords(t *testing.T) {
	cur := scanDir{log: []string{pageA}, axe: [][]string{
		axe("O", pageA, "/a", "r", "minor", "<a>", 1), passing(), axe("O", pageA, "/b", "r", "minor", "<b>", 1),
	}}
	c := newComparison(context.Background(), [2]fs.FS{cur.fs(), cur.fs()}, Options{})
	if err := c.readPages(); err != nil {
		t.Fatal(err)
	}
	parts, err := newPartitions(1, "")
	if err != nil {
		t.Fatal(err)
	}
	a := &auditState{name: axeFile, audit: "axe_core_audit", groups: map[groupKey]int32{}, parts: parts}
	a.n[curSide] = MaxIssueRows - 2
	if err := c.readSide(a, curSide); err != nil || a.n[curSide] != MaxIssueRows || a.parts[curSide][0].mem.len() != 2 {
		t.Fatalf("two rows up to the limit: %d rows, %v", a.n[curSide], err)
	}
	a.n[curSide] = MaxIssueRows - 1
	err = c.readSide(a, curSide)
	if err == nil || !strings.Contains(err.Error(), "the scan's axe_core_audit.csv: more than 5000000 issue rows") {
		t.Errorf("a row past the limit: err = %v", err)
	}
}

// changingFS serves a file's versions in turn, one an Open, then its last
// version: a results directory that changes during the comparison.
type changingFS struct {
	fstest.MapFS
	name     string
	versions []*fstest.MapFile
	opens    int
}

func (c *changingFS) Open(name string) (fs.File, error) {
	if name != c.name {
		return c.MapFS.Open(name)
	}
	v := c.versions[min(c.opens, len(c.versions)-1)]
	c.opens++
	return fstest.MapFS{name: v}.Open(name)
}

// TestChangedWhileCompared: a CSV that gains or loses an issue row between
// its reading and its rows' listing is refused.
func TestChangedWhileCompared(t *testing.T) {
	pages := []string{pageA}
	before := scanDir{log: pages, axe: [][]string{axe("O", pageA, "/a", "r", "minor", "<a>", 1)}}
	more := scanDir{log: pages, axe: [][]string{axe("O", pageA, "/a", "r", "minor", "<a>", 1), axe("O", pageA, "/b", "r", "minor", "<b>", 1)}}
	other := scanDir{log: pages, axe: [][]string{axe("O", pageA, "/a", "r", "minor", "<c>", 1)}}
	tests := []struct {
		name  string
		later scanDir
		want  string
	}{
		{"a row more", more, "the scan's axe_core_audit.csv: changed while it was being compared"},
		{"a row less", scanDir{log: pages, axe: [][]string{passing()}}, "the scan's axe_core_audit.csv changed while it was being compared"},
		{"another element", other, "the scan's axe_core_audit.csv: changed while it was being compared"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Opened to read it, then to list its rows (the baseline's copy told its columns).
			cur := &changingFS{MapFS: before.fs(), name: axeFile, versions: []*fstest.MapFile{before.fs()[axeFile], tt.later.fs()[axeFile]}}
			_, err := Compare(context.Background(), before.fs(), cur, Options{Rows: func(*Row) error { return nil }})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

// TestReadDocumentHeaderAndRows: the header callback's error stops the
// reading; a bad row is named by its place.
func TestReadDocumentHeaderAndRows(t *testing.T) {
	doc := `{"format":"` + Format + `","baseline":"monday","rows":[` + "\n" + `{"change":"new","issues":1},` + "\n" + `{"change":"new","issues":"x"}]}`
	stop := errors.New("another baseline")
	var seen string
	_, err := ReadDocumentThen(strings.NewReader(doc), func(d *Document) error { seen = d.Baseline; return stop }, func(*Row) error { return nil })
	if !errors.Is(err, stop) || seen != "monday" {
		t.Errorf("header stop: err = %v, baseline seen %q", err, seen)
	}
	n := 0
	_, err = ReadDocument(strings.NewReader(doc), func(*Row) error { n++; return nil })
	if err == nil || !strings.Contains(err.Error(), "reading diff.json's row 1:") || n != 1 {
		t.Errorf("bad second row: err = %v after %d rows", err, n)
	}
	rowErr := errors.New("full")
	if _, err := ReadDocument(strings.NewReader(doc), func(*Row) error { return rowErr }); !errors.Is(err, rowErr) {
		t.Errorf("row callback error: %v", err)
	}
}

// TestReadDocumentValueLimit: the limit applies to each value, not to the
// document: values just under it, adding up to more, are read.
func TestReadDocumentValueLimit(t *testing.T) {
	row := func(n int) string { return `{"change":"new","html":"` + strings.Repeat("x", n) + `","issues":1}` }
	var b strings.Builder
	b.WriteString(`{"format":"` + Format + `","rows":[`)
	big := MaxValueBytes * 9 / 16
	b.WriteString(row(big) + ",\n" + row(big) + "]}")
	n := 0
	if _, err := ReadDocument(strings.NewReader(b.String()), func(r *Row) error { n++; return nil }); err != nil || n != 2 {
		t.Errorf("two rows of %d bytes: %d read, err = %v", big, n, err)
	}
}

// TestUnknownImpactNeverNamesARule: a rule's impact is the worst known one
// it met; an impact axe does not define (or none) ranks after every known
// one and never replaces another, even another unknown one.
func TestUnknownImpactNeverNamesARule(t *testing.T) {
	pages := []string{pageA}
	cur := scanDir{log: pages, axe: [][]string{
		axe("O", pageA, "/a", "r1", "", "<a>", 1),
		axe("O", pageA, "/b", "r1", "weird", "<b>", 1),
		axe("O", pageA, "/c", "r2", "strange", "<c>", 1),
		axe("O", pageA, "/d", "r2", "minor", "<d>", 1),
	}}
	res, _ := compareDirs(t, scanDir{log: pages}, cur)
	got := map[string]string{}
	for _, rc := range res.ByRule {
		got[rc.Rule] = rc.Impact
	}
	if diff := cmp.Diff(map[string]string{"r1": "", "r2": "minor"}, got); diff != "" {
		t.Errorf("impacts by rule (-want +got):\n%s", diff)
	}
}

// TestOrganisationImpactsAreAxes: an organisation's new issues are kept by
// rank, one slot for each of axe-core's impacts.
func TestOrganisationImpactsAreAxes(t *testing.T) {
	if n := len(orgChange{}.newByRank); n != len(results.Impacts()) {
		t.Errorf("an organisation keeps %d impacts, axe-core has %d", n, len(results.Impacts()))
	}
}
