package diff

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/a11y-dev/cwac-operator/internal/results"
)

// figures are the counts a case pins.
type figures struct {
	New, Fixed, Unchanged, Unstable    int64
	NewElements, FixedElements         int64
	PagesAdded, PagesRemoved           int64
	NewOnAddedPages, FixedOnRemovedPgs int64
}

func figuresOf(c results.DiffCounts) figures {
	return figures{
		New: c.New, Fixed: c.Fixed, Unchanged: c.Unchanged, Unstable: c.Unstable,
		NewElements: c.NewElements, FixedElements: c.FixedElements,
		PagesAdded: c.PagesAdded, PagesRemoved: c.PagesRemoved,
		NewOnAddedPages: c.NewOnAddedPages, FixedOnRemovedPgs: c.FixedOnRemovedPages,
	}
}

const animatingText = "Page never stopped animating. FocusIndicatorAudit could not run as a result. " +
	"Potential WCAG SC Pause, Stop, Hide failure (SC 2.2.2) (Level A)."

// refreshPage adds, to both sides, a page that sends the browser on at once
// (a 0-second meta refresh): a copy of the clean page's rows.
const refresh = "http://127.0.0.1:8765/refresh.html"

func withRefreshPage(d resultsDir) { d.copyPage(clean, refresh, "Redirecting") }

// focusIssue turns a passing focus row into a tab press without a focus indicator.
func focusIssue(r row) {
	r.set("description", "Tab key press #1 did not show a focus indicator")
	r.set("html", `<a href="clean.html">Clean article</a>`)
	r.set("num_issues", "1")
}

func isFocus(url, vp string) func(row) bool { return func(r row) bool { return r.is(url, vp) } }

// TestCompareKnownEdits compares the real scan with copies of itself edited
// as a site (or CWAC) would change, and checks what a person would name.
// editCase is a comparison of the real scan with an edited copy.
type editCase struct {
	name string
	// edit changes the baseline and the scan (both start as the real scan).
	edit func(base, cur resultsDir)
	want figures
	// row, when set, must be among the rows.
	row *Row
}

func TestCompareKnownEdits(t *testing.T) {
	runEditCases(t, []editCase{
		{
			name: "nothing changed",
			edit: func(_, _ resultsDir) {},
			want: figures{Unchanged: 17},
		},
		{
			name: "an element fixed on the home page, at both widths",
			edit: func(_, cur resultsDir) {
				cur.edit("axe_core_audit.csv", func(r row) bool { return !r.is(home, "") || r.get("id") != "image-alt" })
			},
			want: figures{Fixed: 2, FixedElements: 1, Unchanged: 15},
			row:  &Row{Change: ChangeFixed, Audit: "axe_core_audit", Rule: "image-alt", URL: home, ViewportWidth: 320, Impact: "critical", Issues: 1},
		},
		{
			name: "the reflow failure fixed (the page's row stays, with no issue)",
			edit: func(_, cur resultsDir) {
				cur.edit("reflow_audit.csv", func(r row) bool {
					if r.is(home, small) {
						r.set("overflows", "False")
						r.set("num_issues", "0")
						r.set("overflow_amount_px", "0")
					}
					return true
				})
			},
			want: figures{Fixed: 1, FixedElements: 1, Unchanged: 16},
		},
		{
			name: "an element broken on a clean page, at both widths",
			edit: func(_, cur resultsDir) {
				cur.edit("axe_core_audit.csv", func(r row) bool {
					if r.is(clean, "") {
						r.set("num_issues", "1")
						r.set("id", "image-alt")
						r.set("impact", "critical")
						r.set("html", `<img src="hero.jpg">`)
						r.set("target", "/html/body/main/img")
						r.set("issue_id", "0123456789")
					}
					return true
				})
			},
			want: figures{New: 2, NewElements: 1, Unchanged: 17},
			row:  &Row{Change: ChangeNew, Audit: "axe_core_audit", Rule: "image-alt", URL: clean, ViewportWidth: 1280, Impact: "critical", Issues: 1},
		},
		{
			name: "a class added to an element that stays broken",
			edit: func(_, cur resultsDir) {
				cur.edit("axe_core_audit.csv", func(r row) bool {
					if r.get("id") == "color-contrast" {
						r.set("html", strings.Replace(r.get("html"), `class="faint"`, `class="faint lead"`, 1))
						r.set("issue_id", "f"+r.get("issue_id")[1:])
					}
					return true
				})
			},
			want: figures{Unchanged: 17},
			row: &Row{Change: ChangeUnchanged, MatchedOn: "target", Audit: "axe_core_audit", Rule: "color-contrast", URL: home,
				ViewportWidth: 320, Impact: "serious", Issues: 1},
		},
		{
			name: "a nav item removed: the targets of every later item renumber",
			edit: func(base, cur resultsDir) {
				for _, d := range []struct {
					side  resultsDir
					first int
				}{{base, 12}, {cur, 11}} {
					side, first := d.side, d.first
					side.add("axe_core_audit.csv", func(r row) bool { return r.get("id") == "link-name" }, func(r row) {
						r.set("html", `<a href="news.html"></a>`)
					})
					side.add("axe_core_audit.csv", func(r row) bool { return r.get("id") == "link-name" && r.is(form, medium) }, func(r row) {
						r.set("html", `<a href="news.html"></a>`)
					})
					side.edit("axe_core_audit.csv", func(r row) bool {
						if r.get("id") == "link-name" {
							n := first
							if strings.Contains(r.get("html"), "news") {
								n++
							}
							r.set("target", "/html/body/nav/ul/li["+itoa(n)+"]/a")
						}
						return true
					})
				}
			},
			want: figures{Unchanged: 19},
			row: &Row{Change: ChangeUnchanged, MatchedOn: "html", Audit: "axe_core_audit", Rule: "link-name", URL: form,
				ViewportWidth: 320, Impact: "serious", Issues: 1},
		},
		{
			name: "a page deleted",
			edit: func(_, cur resultsDir) { cur.editAll("url", func(r row) bool { return r.get("url") != nolang }) },
			want: figures{Fixed: 4, FixedElements: 2, Unchanged: 13, PagesRemoved: 1, FixedOnRemovedPgs: 4},
			row: &Row{Change: ChangeFixed, Page: "removed", Audit: "axe_core_audit", Rule: "html-has-lang", URL: nolang,
				ViewportWidth: 320, Impact: "serious", Issues: 1},
		},
		{
			name: "a page added",
			edit: func(_, cur resultsDir) { cur.copyPage(nolang, "http://127.0.0.1:8765/new.html", "New") },
			want: figures{New: 4, NewElements: 2, Unchanged: 17, PagesAdded: 1, NewOnAddedPages: 4},
			row: &Row{Change: ChangeNew, Page: "added", Audit: "axe_core_audit", Rule: "image-alt", URL: "http://127.0.0.1:8765/new.html",
				ViewportWidth: 1280, Impact: "critical", Issues: 1},
		},
		{
			name: "the viewport dict's keys in the other order (new issue ids)",
			edit: func(_, cur resultsDir) {
				cur.editAll("viewport_size", func(r row) bool {
					vp, err := results.ParseViewport(r.get("viewport_size"))
					if err != nil {
						panic(err)
					}
					r.set("viewport_size", "{'height': "+itoa(vp.Height)+", 'width': "+itoa(vp.Width)+"}")
					if r.has("issue_id") && r.get("issue_id") != "" {
						r.set("issue_id", "k"+r.get("issue_id")[1:])
					}
					return true
				})
			},
			want: figures{Unchanged: 17},
		},
		{
			name: "viewport heights that follow the page's layout",
			edit: func(_, cur resultsDir) {
				cur.editAll("viewport_size", func(r row) bool {
					r.set("viewport_size", strings.Replace(strings.Replace(r.get("viewport_size"), "800}", "657}", 1), "450}", "414}", 1))
					return true
				})
			},
			want: figures{Unchanged: 17},
		},
		{
			name: "the base URL spelt another way (no trailing slash, upper-case host)",
			edit: func(_, cur resultsDir) {
				cur.editAll("base_url", func(r row) bool {
					r.set("base_url", "http://127.0.0.1:8765")
					if r.has("url") {
						r.set("url", strings.Replace(strings.TrimSuffix(r.get("url"), "/"), "http://", "HTTP://", 1))
					}
					if r.has("issue_id") && r.get("issue_id") != "" {
						r.set("issue_id", "b"+r.get("issue_id")[1:])
					}
					return true
				})
			},
			want: figures{Unchanged: 17},
		},
		{
			name: "a focus row on a 0-second meta refresh page appears (the baseline's focus audit was skipped there)",
			edit: func(base, cur resultsDir) {
				withRefreshPage(base)
				withRefreshPage(cur)
				base.edit("focus_indicator_audit.csv", func(r row) bool { return !r.is(refresh, small) })
				cur.edit("focus_indicator_audit.csv", func(r row) bool {
					if r.is(refresh, small) {
						focusIssue(r)
					}
					return true
				})
			},
			want: figures{Unchanged: 17, Unstable: 1},
			row: &Row{Change: ChangeUnstable, Reason: unstableReasons[howOtherBlank], Audit: "focus_indicator_audit", Rule: "focus_indicator_audit",
				URL: refresh, ViewportWidth: 320, Issues: 1},
		},
		{
			name: "a focus row on a 0-second meta refresh page disappears (this scan's focus audit was skipped there)",
			edit: func(base, cur resultsDir) {
				withRefreshPage(base)
				withRefreshPage(cur)
				base.edit("focus_indicator_audit.csv", func(r row) bool {
					if r.is(refresh, small) {
						focusIssue(r)
					}
					return true
				})
				cur.edit("focus_indicator_audit.csv", func(r row) bool { return !r.is(refresh, small) })
			},
			want: figures{Unchanged: 17, Unstable: 1},
		},
		{
			name: "a focus row on a page that replaced itself mid-scan (its title changed between audits)",
			edit: func(base, cur resultsDir) {
				withRefreshPage(base)
				withRefreshPage(cur)
				cur.edit("axe_core_audit.csv", func(r row) bool {
					if r.is(refresh, small) {
						r.set("page_title", "Clean article - CWAC test site")
					}
					return true
				})
				cur.edit("focus_indicator_audit.csv", func(r row) bool {
					if r.is(refresh, small) {
						focusIssue(r)
					}
					return true
				})
			},
			want: figures{Unchanged: 17, Unstable: 1},
			row: &Row{Change: ChangeUnstable, Reason: unstableReasons[howReplaced], Audit: "focus_indicator_audit", Rule: "focus_indicator_audit",
				URL: refresh, ViewportWidth: 320, Issues: 1},
		},
		{
			name: "a page that never stopped animating in this scan only",
			edit: func(_, cur resultsDir) {
				cur.edit("focus_indicator_audit.csv", func(r row) bool {
					if r.is(clean, small) {
						r.set("description", animatingText)
						r.set("num_issues", "1")
					}
					return true
				})
			},
			want: figures{Unchanged: 17, Unstable: 1},
		},
		{
			name: "a page that never stopped animating in the baseline hides its focus failures there",
			edit: func(base, _ resultsDir) {
				base.edit("focus_indicator_audit.csv", func(r row) bool {
					return !r.is(form, small) || strings.HasPrefix(r.get("description"), "Tab key press #1 ")
				})
				base.edit("focus_indicator_audit.csv", func(r row) bool {
					if r.is(form, small) {
						r.set("description", animatingText)
						r.set("html", "")
					}
					return true
				})
			},
			want: figures{Unchanged: 15, Unstable: 3},
		},
		{
			name: "a page that never stopped animating in both scans",
			edit: func(base, cur resultsDir) {
				for _, d := range []resultsDir{base, cur} {
					d.edit("focus_indicator_audit.csv", func(r row) bool {
						if r.is(clean, small) {
							r.set("description", animatingText)
							r.set("num_issues", "1")
						}
						return true
					})
				}
			},
			want: figures{Unchanged: 18},
		},
		{
			name: "the focus audit switched off in this scan",
			edit: func(_, cur resultsDir) { delete(cur.CSVs, focusFile) },
			want: figures{Unchanged: 13, Unstable: 4},
		},
		{
			name: "a page deleted, neither scan with an audit log (pages read from the audit CSVs)",
			edit: func(base, cur resultsDir) {
				delete(base.CSVs, "audit_log.csv")
				delete(cur.CSVs, "audit_log.csv")
				cur.editAll("url", func(r row) bool { return r.get("url") != nolang })
			},
			want: figures{Fixed: 4, FixedElements: 2, Unchanged: 13, PagesRemoved: 1, FixedOnRemovedPgs: 4},
		},
		{
			name: "a fix, a break and a deleted page at once",
			edit: func(_, cur resultsDir) {
				cur.editAll("url", func(r row) bool { return r.get("url") != nolang })
				cur.edit("axe_core_audit.csv", func(r row) bool { return !r.is(form, small) || r.get("id") != "label" })
				cur.add("axe_core_audit.csv", isFocus(home, medium), func(r row) {
					r.set("id", "region")
					r.set("impact", "moderate")
					r.set("html", `<div class="banner">`)
				})
			},
			want: figures{New: 1, NewElements: 1, Fixed: 5, FixedElements: 3, Unchanged: 12, PagesRemoved: 1, FixedOnRemovedPgs: 4},
		},
	})
}

// TestCompareFocusOnBody: a focus row about the page's <body> is unstable.
func TestCompareFocusOnBody(t *testing.T) {
	runEditCases(t, []editCase{
		{
			// Seen with real CWAC: an unchanged page with two links, scanned
			// twice; one scan's third tab press landed on <body>.
			name: "a tab press past the last link focuses the page's body, in this scan only",
			edit: func(_, cur resultsDir) {
				cur.edit("focus_indicator_audit.csv", func(r row) bool {
					if r.is(clean, small) {
						r.set("description", "Tab key press #3 did not show a focus indicator")
						r.set("html", "<body>\n<header>\n  <nav aria-label=\"Main\"><a href=\"/\">Home</a> | <a href=\"form.html\">Con")
						r.set("num_issues", "1")
					}
					return true
				})
			},
			want: figures{Unchanged: 17, Unstable: 1},
			row: &Row{Change: ChangeUnstable, Reason: unstableReasons[howOnBody], Audit: "focus_indicator_audit", Rule: "focus_indicator_audit",
				URL: clean, ViewportWidth: 320, Issues: 1},
		},
	})
}

func runEditCases(t *testing.T, tests []editCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fx := loadReal(t)
			base, cur := fx.clone(), fx.clone()
			tc.edit(base, cur)
			baseFS, curFS := base.fs(t), cur.fs(t)
			res, rows := compareAll(t, baseFS, curFS)
			if diff := cmp.Diff(tc.want, figuresOf(res.Counts)); diff != "" {
				t.Errorf("counts (-want +got):\n%s", diff)
			}
			checkInvariants(t, baseFS, curFS, res, rows)
			if tc.row != nil && !containsRow(rows, *tc.row) {
				t.Errorf("no row %+v among:\n%s", *tc.row, rowsText(rows))
			}
			if res.Counts.Baseline != "base-scan" {
				t.Errorf("baseline = %q", res.Counts.Baseline)
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// compareAll runs Compare collecting every row, and checks diff.json round-trips.
func compareAll(t testing.TB, base, cur fs.FS) (*Result, []Row) {
	t.Helper()
	return compareWith(t, base, cur, Options{})
}

// compareWith is compareAll with options (Rows and Baseline are its own).
// Each comparison is made twice: in memory, and in files a page at a time
// (Options.SpillDir, with partitions as small as they go): both must give
// the same figures, ids and rows.
func compareWith(t testing.TB, base, cur fs.FS, opts Options) (*Result, []Row) {
	t.Helper()
	answers := map[Finding]bool{}
	if covered := opts.Covered; covered != nil {
		opts.Covered = func(f Finding) bool {
			answers[f] = covered(f)
			return answers[f]
		}
	}
	res, rows := compareOnce(t, base, cur, opts)
	spilled := opts
	spilled.SpillDir, spilled.partitionBytes = t.TempDir(), 1
	if opts.Covered != nil {
		spilled.Covered = func(f Finding) bool {
			answer, ok := answers[f]
			if !ok {
				t.Errorf("compared in files, asked about %+v, which the comparison in memory did not ask about", f)
			}
			return answer
		}
	}
	sres, srows := compareOnce(t, base, cur, spilled)
	if diff := cmp.Diff(res, sres, cmp.AllowUnexported(IssueIDList{})); diff != "" {
		t.Errorf("figures compared in files (-in memory +in files):\n%s", diff)
	}
	if diff := cmp.Diff(rows, srows); diff != "" {
		t.Errorf("rows compared in files (-in memory +in files):\n%s", diff)
	}
	if entries, err := os.ReadDir(spilled.SpillDir); err != nil || len(entries) != 0 {
		t.Errorf("the comparison left %d files behind (%v)", len(entries), err)
	}
	return res, rows
}

// idsOf is the result's issue ids, read whole (nil: none named).
func idsOf(t testing.TB, res *Result) []IssueID {
	t.Helper()
	if res.IssueIDs == nil {
		return nil
	}
	ids, err := res.IssueIDs.All()
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// compareOnce is one comparison of compareWith.
func compareOnce(t testing.TB, base, cur fs.FS, opts Options) (*Result, []Row) {
	t.Helper()
	var spool bytes.Buffer
	rw := NewRowWriter(&spool)
	var rows []Row
	opts.Baseline, opts.Rows = "base-scan", func(r *Row) error {
		rows = append(rows, *r)
		return rw.Write(r)
	}
	res, err := Compare(context.Background(), base, cur, opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.IssueIDs != nil {
		if opts.SpillDir != "" && res.IssueIDs.Len() > 0 && res.IssueIDs.file == nil {
			t.Errorf("compared in files, the scan's %d issue ids stayed in memory", res.IssueIDs.Len())
		}
		ids := idsOf(t, res)
		if err := res.IssueIDs.Close(); err != nil {
			t.Error(err)
		}
		res.IssueIDs = IssueIDListOf(ids)
	}
	if err := rw.Flush(); err != nil {
		t.Fatal(err)
	}
	var doc bytes.Buffer
	if err := WriteDocument(&doc, res, &spool); err != nil {
		t.Fatal(err)
	}
	var back []Row
	got, err := ReadDocument(bytes.NewReader(doc.Bytes()), func(r *Row) error { back = append(back, *r); return nil })
	if err != nil {
		t.Fatalf("reading diff.json back: %v\n%s", err, doc.String())
	}
	if diff := cmp.Diff(rows, back); diff != "" {
		t.Errorf("diff.json rows (-written +read):\n%s", diff)
	}
	if diff := cmp.Diff(*res, Result{Counts: got.Counts, Totals: got.Totals, ByRule: got.ByRule, IssueIDs: res.IssueIDs,
		IssueIDsProblem: res.IssueIDsProblem}, cmp.AllowUnexported(IssueIDList{})); diff != "" {
		t.Errorf("diff.json figures (-written +read):\n%s", diff)
	}
	return res, rows
}

// checkInvariants: each side's issues, as its summary counts them, are
// exactly accounted for, and the rows add up to the counts.
func checkInvariants(t testing.TB, base, cur fs.FS, res *Result, rows []Row) {
	t.Helper()
	c, tot := res.Counts, res.Totals
	for _, side := range []struct {
		name string
		fsys fs.FS
		got  int64
	}{
		{"baseline", base, tot.BaselineIssues},
		{"scan", cur, tot.CurrentIssues},
	} {
		s, err := results.SummarizeFS(side.fsys, results.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if s.TotalIssues != side.got {
			t.Errorf("%s: summary counts %d issues, the comparison %d", side.name, s.TotalIssues, side.got)
		}
	}
	if tot.BaselineIssues != c.Fixed+c.Unchanged+tot.UnstableBaseline {
		t.Errorf("baseline issues %d != fixed %d + unchanged %d + unstable %d", tot.BaselineIssues, c.Fixed, c.Unchanged, tot.UnstableBaseline)
	}
	if tot.CurrentIssues != c.New+tot.NewDecided+c.Unchanged+tot.UnstableCurrent {
		t.Errorf("scan issues %d != new %d + decided %d + unchanged %d + unstable %d", tot.CurrentIssues, c.New, tot.NewDecided, c.Unchanged, tot.UnstableCurrent)
	}
	if c.Unstable != tot.UnstableBaseline+tot.UnstableCurrent {
		t.Errorf("unstable %d != %d + %d", c.Unstable, tot.UnstableBaseline, tot.UnstableCurrent)
	}
	checkDecidedRows(t, tot, rows)
	sums := map[Change]int64{}
	for _, r := range rows {
		sums[r.Change] += r.Issues
	}
	want := map[Change]int64{ChangeNew: c.New + tot.NewDecided, ChangeFixed: c.Fixed, ChangeUnchanged: c.Unchanged, ChangeUnstable: c.Unstable}
	for ch, n := range want {
		if sums[ch] != n {
			t.Errorf("rows of change %s add up to %d, the count is %d", ch, sums[ch], n)
		}
	}
	var orgNew, orgFixed, orgUnchanged, ruleNew, ruleFixed, ruleUnchanged, ruleUnstable int64
	for _, o := range c.ByOrganisation {
		orgNew, orgFixed, orgUnchanged = orgNew+o.New, orgFixed+o.Fixed, orgUnchanged+o.Unchanged
	}
	for _, r := range res.ByRule {
		ruleNew, ruleFixed, ruleUnchanged, ruleUnstable = ruleNew+r.New, ruleFixed+r.Fixed, ruleUnchanged+r.Unchanged, ruleUnstable+r.Unstable
	}
	if orgNew != c.New || orgFixed != c.Fixed || orgUnchanged != c.Unchanged {
		t.Errorf("organisations add up to %d/%d/%d, counts are %d/%d/%d", orgNew, orgFixed, orgUnchanged, c.New, c.Fixed, c.Unchanged)
	}
	if ruleNew != c.New || ruleFixed != c.Fixed || ruleUnchanged != c.Unchanged || ruleUnstable != c.Unstable {
		t.Errorf("rules add up to %d/%d/%d/%d, counts are %d/%d/%d/%d", ruleNew, ruleFixed, ruleUnchanged, ruleUnstable, c.New, c.Fixed, c.Unchanged, c.Unstable)
	}
	orgByImpact := map[string]int64{}
	for _, o := range c.ByOrganisation {
		var sum int64
		for impact, n := range o.NewByImpact {
			if results.ImpactRank(impact) == len(results.Impacts()) || n <= 0 {
				t.Errorf("organisation %q: %d new of impact %q, want only axe-core's impacts and positive counts", o.Organisation, n, impact)
			}
			orgByImpact[impact] += n
			sum += n
		}
		if sum > o.New {
			t.Errorf("organisation %q: by impact %d exceeds new %d", o.Organisation, sum, o.New)
		}
	}
	for _, impact := range results.Impacts() {
		if orgByImpact[impact] != c.NewByImpact[impact] {
			t.Errorf("organisations' new %s issues add up to %d, the count is %d", impact, orgByImpact[impact], c.NewByImpact[impact])
		}
	}
	var newImpact, fixedImpact int64
	for _, n := range c.NewByImpact {
		newImpact += n
	}
	for _, n := range c.FixedByImpact {
		fixedImpact += n
	}
	if newImpact > c.New || fixedImpact > c.Fixed {
		t.Errorf("by impact %d/%d exceeds new/fixed %d/%d", newImpact, fixedImpact, c.New, c.Fixed)
	}
}

// checkDecidedRows: only new rows say decided, and they add up to the
// decided count.
func checkDecidedRows(t testing.TB, tot Totals, rows []Row) {
	t.Helper()
	var decided int64
	for _, r := range rows {
		if r.Decided {
			if r.Change != ChangeNew {
				t.Errorf("a %s row says decided: only new rows do", r.Change)
			}
			decided += r.Issues
		}
	}
	if decided != tot.NewDecided {
		t.Errorf("decided rows add up to %d, the count is %d", decided, tot.NewDecided)
	}
}

// containsRow reports whether a row has want's non-empty fields (HTML,
// target, organisation and help are not compared).
func containsRow(rows []Row, want Row) bool {
	for _, r := range rows {
		r.HTML, r.Target, r.Organisation, r.Help, r.HelpURL, r.IssueID = "", "", "", "", "", ""
		if r == want {
			return true
		}
	}
	return false
}

func rowsText(rows []Row) string {
	var b strings.Builder
	for _, r := range rows {
		b.WriteString(string(r.Change) + " " + r.Page + " " + r.Audit + " " + r.Rule + " " + r.URL + " " + itoa(r.ViewportWidth) + " " + r.MatchedOn + "\n")
	}
	return b.String()
}

// TestCompareCancelled: a cancelled context stops the comparison with its error.
func TestCompareCancelled(t *testing.T) {
	fx := loadReal(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Compare(ctx, fx.fs(t), fx.fs(t), Options{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// TestCompareBadInput: broken cells are refused with the side, file and cell named.
func TestCompareBadInput(t *testing.T) {
	tests := []struct {
		name string
		edit func(cur resultsDir)
		want string
	}{
		{"viewport", func(cur resultsDir) {
			cur.edit("reflow_audit.csv", func(r row) bool { r.set("viewport_size", "{'width': 'wide'}"); return true })
		}, "the scan's reflow_audit.csv: viewport_size"},
		{"num_issues", func(cur resultsDir) {
			cur.edit("axe_core_audit.csv", func(r row) bool { r.set("num_issues", "many"); return true })
		}, `the scan's axe_core_audit.csv: num_issues "many" is not a whole number`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fx := loadReal(t)
			cur := fx.clone()
			tc.edit(cur)
			_, err := Compare(context.Background(), fx.fs(t), cur.fs(t), Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// TestRowChanges: only the changes asked for reach Rows.
func TestRowChanges(t *testing.T) {
	fx := loadReal(t)
	cur := fx.clone()
	cur.edit("axe_core_audit.csv", func(r row) bool { return r.get("id") != "image-alt" })
	var got []Change
	_, err := Compare(context.Background(), fx.fs(t), cur.fs(t), Options{
		Rows: func(r *Row) error { got = append(got, r.Change); return nil }, RowChanges: map[Change]bool{ChangeFixed: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 {
		t.Errorf("rows = %v, want the 4 fixed image-alt rows (home and nolang, 2 widths each)", got)
	}
	for _, ch := range got {
		if ch != ChangeFixed {
			t.Errorf("row of change %s passed", ch)
		}
	}
}

func TestParseChange(t *testing.T) {
	for _, c := range Changes {
		if got, err := ParseChange(string(c)); err != nil || got != c {
			t.Errorf("ParseChange(%q) = %q, %v", c, got, err)
		}
	}
	if _, err := ParseChange("gone"); err == nil || !strings.Contains(err.Error(), `"gone"`) {
		t.Errorf("ParseChange(gone) = %v", err)
	}
}

func TestPageKey(t *testing.T) {
	tests := map[string]string{
		"http://127.0.0.1:8765":         "http://127.0.0.1:8765/",
		"HTTP://Example.GOVT.nz:80/a?b": "http://example.govt.nz/a?b",
		"https://a.example:443/":        "https://a.example/",
		"https://a.example:8443/x":      "https://a.example:8443/x",
		"not a url":                     "not a url",
	}
	for in, want := range tests {
		if got := pageKey(in); got != want {
			t.Errorf("pageKey(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFocusedBody(t *testing.T) {
	tests := []struct {
		html string
		want bool
	}{
		{"<body>\n<nav>", true},
		{"  <BODY class=\"x\">", true},
		{"<body", true},
		{"<body/>", true},
		{"<bodyguard>", false},
		{"<a href=\"/\">Home</a>", false},
		{"", false},
		{"<bod", false},
		{"text <body>", false},
	}
	for _, tt := range tests {
		if got := focusedBody(tt.html); got != tt.want {
			t.Errorf("focusedBody(%q) = %v, want %v", tt.html, got, tt.want)
		}
	}
}
