package report

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/a11y-dev/cwac-operator/internal/report/reporttest"
	"github.com/a11y-dev/cwac-operator/internal/results"
)

func renderFS(t *testing.T, fsys fstest.MapFS) string {
	t.Helper()
	html, err := HTML(fsys, Meta{Title: "t", GeneratedAt: time.Unix(0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	return string(html)
}

const axeHead = "organisation,sector,page_title,url,viewport_size,target,num_issues,help,helpUrl,id,impact,html,tags\r\n"

// TestElementsAcrossViewports: one element at two viewports is one issue
// (CWAC's count 2) listed with both viewports; another element of the same
// rule on the same page is a second issue; the page counts once.
func TestElementsAcrossViewports(t *testing.T) {
	small, wide := `"{'width': 320, 'height': 450}"`, `"{'width': 1280, 'height': 800}"`
	row := func(vp, url, target string) string {
		return "O,S,Home," + url + "," + vp + "," + target + ",1,Images need alt,https://h/image-alt,image-alt,critical,<img>,\"['wcag2a', 'wcag111']\"\r\n"
	}
	fsys := fstest.MapFS{"axe_core_audit.csv": csvFile(axeHead +
		row(small, "https://a/", "/img[1]") + row(wide, "https://a/", "/img[1]") + row(wide, "https://a/", "/img[2]") +
		row(small, "https://b/", "/img[1]"))}
	b := NewBuilder()
	if err := results.Walk(context.Background(), fsys, b); err != nil {
		t.Fatal(err)
	}
	ru := b.rules["axe_core_audit\x00image-alt"]
	if ru == nil || ru.Elements != 3 || ru.Count != 4 || ru.Pages != 2 {
		t.Fatalf("image-alt = %+v, want 3 elements, CWAC count 4, on 2 pages", ru)
	}
	want := []string{"https://a/ /img[1] 320×450+1280×800", "https://a/ /img[2] 1280×800", "https://b/ /img[1] 320×450"}
	if diff := cmp.Diff(want, sampleLines(b, ru)); diff != "" {
		t.Errorf("elements (-want +got):\n%s", diff)
	}
	if c := b.criteria["1.1.1"]; c == nil || c.Elements != 3 || c.Pages != 2 || c.Count != 4 {
		t.Errorf("criterion 1.1.1 = %+v", c)
	}
}

// TestElementsOfAPageThatComesBack: a page whose rows come back after
// another page's (CWAC's threads write pages in turn) keeps its elements:
// one seen again at another viewport is the same element, shown with both
// viewports when sampled, and not counted again when past its rule's
// samples.
func TestElementsOfAPageThatComesBack(t *testing.T) {
	small, wide := `"{'width': 320, 'height': 450}"`, `"{'width': 1280, 'height': 800}"`
	row := func(rule, vp, url, target string) string {
		return "O,S,Home," + url + "," + vp + "," + target + ",1,Help," + "https://h/" + rule + "," + rule + ",critical,<img>,\"['wcag2a', 'wcag111']\"\r\n"
	}
	var body strings.Builder
	body.WriteString(axeHead)
	body.WriteString(row("image-alt", small, "https://a/", "/img[1]") + row("image-alt", small, "https://b/", "/img[1]") +
		row("image-alt", wide, "https://a/", "/img[1]") + row("image-alt", wide, "https://a/", "/img[2]") +
		row("image-alt", wide, "https://b/", "/img[1]") + row("image-alt", wide, "https://a/", "/img[2]"))
	// Page c fills the rule's samples and has one element past them, seen
	// again after page d's.
	for i := range MaxElementsPerRule + 1 {
		body.WriteString(row("label", small, "https://c/", fmt.Sprintf("/e[%d]", i)))
	}
	body.WriteString(row("label", small, "https://d/", "/e[0]") + row("label", wide, "https://c/", fmt.Sprintf("/e[%d]", MaxElementsPerRule)))
	b := NewBuilder()
	if err := results.Walk(context.Background(), fstest.MapFS{"axe_core_audit.csv": csvFile(body.String())}, b); err != nil {
		t.Fatal(err)
	}
	alt := b.rules["axe_core_audit\x00image-alt"]
	if alt == nil || alt.Elements != 3 || alt.Count != 6 || alt.Pages != 2 {
		t.Fatalf("image-alt = %+v, want 3 elements, CWAC count 6, on 2 pages", alt)
	}
	want := []string{"https://a/ /img[1] 320×450+1280×800", "https://b/ /img[1] 320×450+1280×800", "https://a/ /img[2] 1280×800"}
	if diff := cmp.Diff(want, sampleLines(b, alt)); diff != "" {
		t.Errorf("image-alt's elements (-want +got):\n%s", diff)
	}
	label := b.rules["axe_core_audit\x00label"]
	if label == nil || label.Elements != MaxElementsPerRule+2 || label.Count != MaxElementsPerRule+3 || len(label.samples) != MaxElementsPerRule {
		t.Errorf("label = %+v, want %d elements, CWAC count %d, %d samples", label, MaxElementsPerRule+2, MaxElementsPerRule+3, MaxElementsPerRule)
	}
	if b.elementsTold != MaxElementsPerRule+5 || b.elementsCapped {
		t.Errorf("%d elements told apart (capped %v), want %d", b.elementsTold, b.elementsCapped, MaxElementsPerRule+5)
	}
}

// sampleLines are a rule's elements shown, each as its page, target and
// viewports.
func sampleLines(b *Builder, ru *rule) []string {
	out := make([]string, 0, len(ru.samples))
	for _, s := range ru.samples {
		out = append(out, s.URL+" "+s.Target+" "+strings.Join(b.viewportNames(s.viewports), "+"))
	}
	return out
}

// TestEachRowFSDrivesTheBuilder: fed by EachRowFS (no BeginFile), the
// builder finds what Walk finds.
func TestEachRowFSDrivesTheBuilder(t *testing.T) {
	fsys := reporttest.Spec{Organisations: 3, PagesPerOrg: 4, RulesPerPage: 3, ElementsPerRule: 2, Viewports: 2}.FS()
	walked := NewBuilder()
	if err := results.Walk(context.Background(), fsys, walked); err != nil {
		t.Fatal(err)
	}
	fed := NewBuilder()
	files, err := results.WalkFiles(fsys)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if err := results.EachRowFS(fsys, name, func(r *results.Reader, row results.Row) error { return fed.VisitRow(name, r, row) }); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff(walked.Leaderboard(), fed.Leaderboard()); diff != "" {
		t.Errorf("leaderboard (-walked +fed):\n%s", diff)
	}
	// 3 organisations × 4 pages × 3 rules × 2 elements, and a reflow issue on each first page.
	if walked.totalElements != fed.totalElements || walked.totalCount != fed.totalCount || walked.totalElements.total() != 3*4*3*2+3 {
		t.Errorf("elements %v/%v, counts %v/%v", walked.totalElements, fed.totalElements, walked.totalCount, fed.totalCount)
	}
}

// TestCapsCountAndNameTheRest: past each section's cap the report says
// how many were left out, names the rules, and the leaderboard CSV still
// has every organisation.
func TestCapsCountAndNameTheRest(t *testing.T) {
	spec := reporttest.Spec{Organisations: MaxLeaderboardRows + 3, PagesPerOrg: 1, RulesPerPage: 1, ElementsPerRule: MaxElementsPerRule + 2,
		Viewports: 1, ExtraRules: MaxRulesShown + 5}
	sb, b := results.NewSummaryBuilder(results.Options{}), NewBuilder()
	if err := results.Walk(context.Background(), spec.FS(), sb, b); err != nil {
		t.Fatal(err)
	}
	html, csv, err := b.Render(Meta{Title: "caps"}, sb.Summary())
	if err != nil {
		t.Fatal(err)
	}
	page := string(html)
	rules := len(b.ruleList) // the real rule and the extra ones
	for _, want := range []string{
		fmt.Sprintf("<p>%d more rules (", rules-MaxRulesShown),
		"<code>extra-rule-0104</code>",
		"2 more issues of this rule are not listed here: see axe_core_audit.csv.",
		"3 more organisations are not listed here: leaderboard.csv lists every organisation, with its rank or why it is not ranked.",
		fmt.Sprintf("%d more pages with issues", MaxLeaderboardRows+3-MaxPagesShown),
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if n := strings.Count(page, "<details>"); n != MaxRulesShown {
		t.Errorf("%d rule sections, want %d", n, MaxRulesShown)
	}
	if n := strings.Count(string(csv), "\n"); n != MaxLeaderboardRows+3+1 {
		t.Errorf("leaderboard.csv has %d lines, want every organisation and the header", n)
	}
}

// TestHostileResultsStayText: markup, scripts, javascript: addresses and
// formulas from the CSVs never become live in the report or the CSV.
func TestHostileResultsStayText(t *testing.T) {
	spec := reporttest.Spec{Organisations: 3, PagesPerOrg: 4, RulesPerPage: 3, ElementsPerRule: 1, Viewports: 2, Hostile: true}
	sb, b := results.NewSummaryBuilder(results.Options{}), NewBuilder()
	if err := results.Walk(context.Background(), spec.FS(), sb, b); err != nil {
		t.Fatal(err)
	}
	html, csv, err := b.Render(Meta{Title: `<script>alert("t")</script>`}, sb.Summary())
	if err != nil {
		t.Fatal(err)
	}
	assertInert(t, string(html))
	if !strings.Contains(string(csv), `"'=HYPERLINK(""http://evil.example/"")"`) {
		t.Errorf("the formula organisation is not neutralised in leaderboard.csv:\n%.400s", csv)
	}
}

var (
	hrefRE = regexp.MustCompile(`(?i)\shref="([^"]*)"`)
	tagRE  = regexp.MustCompile(`(?i)<(script|img|iframe|object|embed|link|form|input|base|meta http-equiv="refresh")\b`)
	onRE   = regexp.MustCompile(`(?i)<[^>]*\son[a-z]+\s*=`)
)

// assertInert checks a rendered report has no script, no event handler,
// no element that loads anything and no link that is not http(s) or in-page.
func assertInert(t *testing.T, page string) {
	t.Helper()
	if m := tagRE.FindString(page); m != "" {
		t.Errorf("report has a live %s", m)
	}
	if m := onRE.FindString(page); m != "" {
		t.Errorf("report has an event handler: %.120s", m)
	}
	for _, m := range hrefRE.FindAllStringSubmatch(page, -1) {
		// A URL's scheme is case-insensitive (RFC 3986 3.1), so "HTTP://x"
		// is as plain a link as "http://x".
		if u := strings.ToLower(m[1]); !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "#") {
			t.Errorf("report links to %.80q", m[1])
		}
	}
	if !strings.Contains(page, `<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;;`) {
		t.Error("report lacks its Content-Security-Policy")
	}
}

// FuzzReportInert: whatever a CSV cell holds, the report stays inert.
func FuzzReportInert(f *testing.F) {
	f.Add("<script>alert(1)</script>", "javascript:alert(1)", "['wcag111']", "1")
	f.Add(`"><img src=x onerror=alert(1)>`, "JaVaScRiPt:x", "[", "2.0")
	f.Add("</style><style>*{}", "https://ok/\"onmouseover=x", "['wcag2411', 'best-practice']", "1")
	f.Add("a", "Http://0", "['wcag111']", "1")
	f.Add("=1+1", "data:text/html,<script>x</script>", "", "3")
	f.Fuzz(func(t *testing.T, text, link, tags, n string) {
		q := func(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
		fsys := fstest.MapFS{
			"axe_core_audit.csv": csvFile(axeHead + strings.Join([]string{q(text), q(text), q(text), q(link), q(text), q(text), q(n),
				q(text), q(link), q(text), q(text), q(text), q(tags)}, ",") + "\r\n"),
			"pages_scanned.csv": csvFile("organisation,base_url,number_of_pages,sector\r\n" + q(text) + "," + q(link) + ",1," + q(text) + "\r\n"),
		}
		html, err := HTML(fsys, Meta{Title: text, ResultsDir: text})
		if err != nil {
			return // a count that is not a number is refused, naming it
		}
		assertInert(t, string(html))
	})
}

// TestBadCountIsNamed: a num_issues that is not a whole number fails the
// report with the file and the column.
func TestBadCountIsNamed(t *testing.T) {
	fsys := fstest.MapFS{"axe_core_audit.csv": csvFile(axeHead + "O,S,T,https://a/,,,1.5,h,,r,minor,,\r\n")}
	_, err := HTML(fsys, Meta{})
	if err == nil || !strings.Contains(err.Error(), "axe_core_audit.csv") || !strings.Contains(err.Error(), "num_issues") {
		t.Errorf("error = %v, want one naming axe_core_audit.csv and num_issues", err)
	}
}

// TestBaselineFromSummaryJSON: the new-versus-fixed section is drawn from
// summary.json's diff; a summary.json without one, or broken, leaves it out.
func TestBaselineFromSummaryJSON(t *testing.T) {
	diff := results.DiffCounts{Baseline: "last-week", New: 3, Fixed: 7, Unchanged: 10,
		NewByImpact: map[string]int64{"critical": 3}, FixedByImpact: map[string]int64{"serious": 7},
		ByOrganisation: []results.OrganisationChange{{Organisation: "Org <b>", New: 3, Fixed: 7}}}
	withDiff, _ := json.Marshal(map[string]any{"total_issues": 1, "diff": diff})
	tests := []struct {
		name, summary string
		want          []string
	}{
		{"with a diff", string(withDiff), []string{`<h2 id="changes-h">Changes since the baseline</h2>`, "<code>last-week</code>",
			"<strong>3</strong> new, <strong>7</strong> fixed", `<span class="label">Org &lt;b&gt;</span>`,
			`<rect class="fixed" x="0" y="0" width="100"`, `<rect class="new" x="0" y="0" width="42.9"`}},
		{"without", `{"total_issues": 1}`, nil},
		{"broken", `{"diff": [`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page := renderFS(t, fstest.MapFS{results.SummaryFile: &fstest.MapFile{Data: []byte(tt.summary)}})
			for _, w := range tt.want {
				if !strings.Contains(page, w) {
					t.Errorf("report lacks %q", w)
				}
			}
			if has := strings.Contains(page, `id="changes"`); has != (tt.want != nil) {
				t.Errorf("changes section shown = %v", has)
			}
		})
	}
}
