package report

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/a11y-dev/cwac-operator/internal/results"
)

const focusHead = "organisation,sector,page_title,base_url,url,viewport_size,audit_id,page_id,audit_type,helpUrl,description,html,num_issues\r\n"

// focusRow is a row of CWAC's focus-indicator audit about the element html.
func focusRow(org, url, html string, n string) string {
	return org + ",S,Home,https://a/," + url + `,"{'width': 1280, 'height': 800}",1_medium,1,FocusIndicatorAudit,` +
		"https://www.w3.org/WAI/WCAG22/Understanding/focus-visible.html,Tab key press #3,\"" + html + "\"," + n + "\r\n"
}

// TestTimingDependentRowsSetAside: a focus-indicator row about a page's
// <body> (which CWAC writes on some runs only; the comparison and the
// history do not compare it) moves no count and no score; the report and
// leaderboard.csv say how many were set aside. The same markup in another
// audit counts as any issue does.
func TestTimingDependentRowsSetAside(t *testing.T) {
	fsys := fstest.MapFS{
		"pages_scanned.csv": csvFile("organisation,base_url,number_of_pages,sector\r\nA,https://a/,2,S\r\nB,https://b/,2,S\r\n"),
		"focus_indicator_audit.csv": csvFile(focusHead +
			focusRow("A", "https://a/", "<body class=\"\"home\"\">\n<header>", "2") +
			focusRow("A", "https://a/x", "<BODY>", "1") +
			focusRow("A", "https://a/", "<a href=\"\"/\"\">Home</a>", "1") +
			focusRow("B", "https://b/", "<a href=\"\"/\"\">Home</a>", "1")),
		"axe_core_audit.csv": csvFile(axeHead +
			"A,S,Home,https://a/,\"{'width': 1280, 'height': 800}\",/body,1,Landmarks,https://h/region,region,moderate,<body>,\"['best-practice']\"\r\n"),
	}
	b := NewBuilder()
	if err := results.Walk(context.Background(), fsys, b); err != nil {
		t.Fatal(err)
	}
	board := map[string]OrgScore{}
	for _, o := range b.Leaderboard() {
		board[o.Organisation] = o
	}
	a, bb := board["A"], board["B"]
	if a.Other != 1 || a.Moderate != 1 || a.SetAside != 3 || bb.Other != 1 || bb.SetAside != 0 {
		t.Fatalf("A %+v, B %+v: want A other 1, moderate 1, 3 set aside; B other 1, none set aside", a, bb)
	}
	// Without the rows set aside, A's figures would be worse than B's.
	if a.Score == nil || *a.Score != 97.5 || bb.Score == nil || *bb.Score != 98.5 {
		t.Errorf("scores A %v, B %v; want 97.5 and 98.5 (the rows set aside weigh nothing)", a.Score, bb.Score)
	}
	if got := b.totalCount.total(); got != 3 {
		t.Errorf("the report's CWAC count is %d, want 3", got)
	}
	if ru := b.rules["focus_indicator_audit\x00focus_indicator_audit"]; ru == nil || ru.Count != 2 || ru.Elements != 2 {
		t.Errorf("the focus audit's rule = %+v, want the two rows not on <body>", ru)
	}
	if p := b.TrendPoint(Meta{}, &results.Summary{TotalIssues: 6}); p.TotalIssues != 3 {
		t.Errorf("the trend point's total is %d, want 3: the rows set aside are in no figure", p.TotalIssues)
	}

	data, err := LeaderboardCSV(b.Leaderboard())
	if err != nil {
		t.Fatal(err)
	}
	rows := strings.Split(strings.TrimSpace(string(data)), "\n")
	last := func(row string) string { // the column before decided
		cells := strings.Split(row, ",")
		return cells[len(cells)-2]
	}
	if diff := cmp.Diff([]string{`"timing_dependent_set_aside"`, `"0"`, `"3"`}, []string{last(rows[0]), last(rows[1]), last(rows[2])}); diff != "" {
		t.Errorf("leaderboard.csv's last column (-want +got):\n%s", diff)
	}

	html := renderFS(t, fsys)
	for _, want := range []string{
		`<p id="set-aside">Set aside from every count and score in this report: 3 in CWAC's count, focus-indicator findings on a page&#39;s &lt;body&gt;`,
		`The counts leave out what was <a href="#set-aside">set aside</a> (3)`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the report does not say %q", want)
		}
	}
	delete(fsys, "focus_indicator_audit.csv")
	if html := renderFS(t, fsys); strings.Contains(html, "set-aside") {
		t.Error("a report with nothing set aside speaks of it")
	}
}
