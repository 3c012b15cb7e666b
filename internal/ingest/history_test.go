package ingest

import (
	"context"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/diff"
	"github.com/a11y-dev/cwac-operator/internal/report"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
)

// weeklySequence builds five weekly scans from the real CWAC run: fixes,
// a page dropped and back, a regression and its fix, an element whose
// HTML changed in place, an audit that did not run, an unstable row and
// a duplicate element.
func weeklySequence(t *testing.T) []fs.FS {
	t.Helper()
	w0 := loadReal(t)

	w1 := w0.clone()
	if n := w1.drop(axeCSV, where{"url": home, "id": "color-contrast"}); n != 2 {
		t.Fatalf("week 1: dropped %d color-contrast rows", n)
	}
	w1.dropPage(form)
	w1.add(t, axeCSV, where{"url": home, "id": "image-alt", "width": "320"},
		map[string]string{"url": clean, "page_title": "Clean article - CWAC test site", "html": `<img src="hero.png">`})

	w2 := w0.clone()
	if n := w2.set(where{"url": home, "id": "image-alt"}, "html", `<img class="logo" src="logo.png" width="120" height="40">`); n != 2 {
		t.Fatalf("week 2: changed %d image-alt rows", n)
	}

	w3 := w2.clone()
	if n := w3.drop(focCSV, where{"url": form, "width": "1280"}); n != 2 {
		t.Fatalf("week 3: dropped %d focus rows", n)
	}
	w3.add(t, focCSV, where{"url": home, "width": "320"},
		map[string]string{"description": "Tab key press #3 did not show a focus indicator", "html": "<body>", "num_issues": "1"})
	w3.add(t, axeCSV, where{"url": nolang, "id": "image-alt", "width": "320"}, nil)

	w4 := w2.clone()
	return []fs.FS{w0.fs(), w1.fs(), w2.fs(), w3.fs(), w4.fs()}
}

// TestWeeklyHistory ingests the weekly sequence and checks, on every
// engine, exactly which issues are open, fixed and reopened and since
// when, and the organisation's figures each week.
func TestWeeklyHistory(t *testing.T) {
	weeks := weeklySequence(t)
	for _, e := range storetest.Engines() {
		t.Run(e.Name, func(t *testing.T) {
			ctx := context.Background()
			st := e.Open(t)
			type figures struct{ new, fixed, pns, reopened, unstable, open int64 }
			want := []figures{
				{new: 17, open: 17},
				{new: 1, fixed: 2, pns: 8, open: 8},
				{fixed: 1, reopened: 10, open: 17},
				{new: 1, unstable: 1, open: 18},
				{fixed: 1, unstable: 2, open: 17},
			}
			for i, fsys := range weeks {
				res := ingestOK(t, st, fsys, week(i))
				got := figures{res.New, res.Fixed, res.FixedPageNotScanned, res.Reopened, res.Unstable, 0}
				trend, err := st.OrganisationTrend(ctx, testNamespaces, org, "weekly")
				if err != nil || len(trend) != i+1 {
					t.Fatalf("week %d: trend %v %v", i, trend, err)
				}
				p := trend[i]
				got.open = p.Open
				if got != want[i] || p.New != res.New || p.Fixed != res.Fixed || p.FixedPageNotScanned != res.FixedPageNotScanned ||
					p.Reopened != res.Reopened || p.Unstable != res.Unstable {
					t.Errorf("week %d: ingest %+v, trend point %+v; want %+v", i, res, p, want[i])
				}
				checkFiguresMatchReport(t, fsys, p)
				if i > 0 {
					checkMatchesDiff(t, weeks[i-1], fsys, res)
				}
				open, err := st.IssueHistory(ctx, store.IssueFilter{Namespaces: testNamespaces, State: "open", Limit: store.MaxLimit})
				if err != nil || open.Total != p.Open {
					t.Errorf("week %d: %d open issues in the history (%v), the trend says %d", i, open.Total, err, p.Open)
				}
			}

			checkLives(t, st)
			checkElementsAndSetAside(t, st)

			// The home image's element changed in place (week 2): the
			// issue kept its identity and shows the new HTML.
			page, err := st.IssueHistory(ctx, store.IssueFilter{Namespaces: testNamespaces, Page: home, Rule: "image-alt"})
			if err != nil || page.Total != 2 || !strings.Contains(page.Issues[0].ElementHTML, `class="logo"`) {
				t.Errorf("home's image-alt issues: %+v %v", page, err)
			}
			// A reopened issue's presence, scan by scan.
			reopened, err := st.IssueHistory(ctx, store.IssueFilter{Namespaces: testNamespaces, ReopenedOnly: true, Rule: "label"})
			if err != nil || reopened.Total != 2 {
				t.Fatalf("reopened label issues: %+v %v", reopened, err)
			}
			d, err := st.Issue(ctx, testNamespaces, reopened.Issues[0].Fingerprint)
			if err != nil {
				t.Fatal(err)
			}
			presence := make([]string, 0, len(d.Scans))
			for _, s := range d.Scans {
				presence = append(presence, map[bool]string{true: "+", false: "-"}[s.Present])
			}
			if strings.Join(presence, "") != "+-+++" {
				t.Errorf("label's presence by week: %v", presence)
			}
			checkPageVisits(t, d)
			orgs, err := st.Organisations(ctx, testNamespaces)
			if err != nil || len(orgs) != 1 || orgs[0].Sector != "Test Sector" || orgs[0].Scans != 5 || orgs[0].Latest.Scan != "a11y/week-4" {
				t.Errorf("organisations: %+v %v", orgs, err)
			}
		})
	}
}

// checkFiguresMatchReport: the organisation's figures are the summary's
// and the leaderboard's for the same results, never recomputed differently.
func checkFiguresMatchReport(t *testing.T, fsys fs.FS, p store.TrendPoint) {
	t.Helper()
	b := report.NewBuilder()
	sb := results.NewSummaryBuilder(results.Options{})
	if err := results.Walk(context.Background(), fsys, sb, b); err != nil {
		t.Fatal(err)
	}
	sum := sb.Summary()
	// summary.json counts every row CWAC wrote; the history, as the report,
	// sets the timing-dependent ones aside (focus rows, impact "other").
	if p.Issues+p.SetAside != sum.TotalIssues || p.Pages != sum.PagesScanned {
		t.Errorf("%s: issues %d + %d set aside, pages %d; summary.json says %d, %d", p.Scan, p.Issues, p.SetAside, p.Pages, sum.TotalIssues, sum.PagesScanned)
	}
	for impact, n := range sum.IssuesByImpact {
		if impact == "other" {
			n -= p.SetAside
		}
		if p.ByImpact[impact] != n {
			t.Errorf("%s: %s %d, summary %d", p.Scan, impact, p.ByImpact[impact], n)
		}
	}
	for audit, n := range sum.IssuesByAuditType {
		if audit == "focus_indicator_audit" {
			n -= p.SetAside
		}
		if p.ByAudit[audit] != n {
			t.Errorf("%s: %s %d, summary %d", p.Scan, audit, p.ByAudit[audit], n)
		}
	}
	lb := b.Leaderboard()
	if len(lb) != 1 || lb[0].Score == nil || p.Score == nil || *lb[0].Score != *p.Score || lb[0].WeightedPerPage != p.WeightedPerPage ||
		lb[0].Other != p.ByImpact["other"] || lb[0].Critical != p.ByImpact["critical"] || lb[0].BaseURLs != p.BaseURLs || lb[0].SetAside != p.SetAside {
		t.Errorf("%s: score %v (%v per page), %d set aside, leaderboard %+v", p.Scan, p.Score, p.WeightedPerPage, p.SetAside, lb)
	}
}

// checkElementsAndSetAside: elements count an element found at both
// widths once: the real run's 17 issue rows are 9 elements (6 axe, 2
// focus, 1 reflow). Week 3's tenth element is a focus row on <body>, set
// aside from every figure: 9 again, and 1 set aside.
func checkElementsAndSetAside(t *testing.T, st *store.Store) {
	t.Helper()
	trend, err := st.OrganisationTrend(context.Background(), testNamespaces, org, "")
	if err != nil || trend[0].Elements != 9 || trend[3].Elements != 9 || trend[3].SetAside != 1 || trend[0].SetAside != 0 {
		t.Errorf("elements: %+v %v", trend, err)
	}
}

// checkMatchesDiff: one week's transitions are the baseline comparison's
// between the two weeks, class by class, since both follow the same
// matching rules and the same rules of rows not compared (diff.Compared):
// its new = new + reopened (a page dropped for a week comes back with its
// issues: new to the comparison, reopened in the history), its fixed =
// fixed + page not scanned, its unchanged = still open, and the scan's
// unstable rows are the history's unstable rows.
func checkMatchesDiff(t *testing.T, before, after fs.FS, res Result) {
	t.Helper()
	d, err := diff.Compare(context.Background(), before, after, diff.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Counts.New != res.New+res.Reopened || d.Counts.Fixed != res.Fixed+res.FixedPageNotScanned ||
		d.Counts.FixedOnRemovedPages != res.FixedPageNotScanned || res.StillOpen != d.Counts.Unchanged ||
		res.Unstable != d.Totals.UnstableCurrent {
		t.Errorf("transitions %+v; the baseline comparison says %+v, %+v", res, d.Counts, d.Totals)
	}
}

// checkPageVisits: week 1 did not visit form.html, so the label issue's
// absence there is not a "no"; every other week visited the page.
func checkPageVisits(t *testing.T, d store.IssueDetail) {
	t.Helper()
	for i, s := range d.Scans {
		want := store.PageVisited
		if i == 1 {
			want = store.PageNotVisited
		}
		if s.Page != want {
			t.Errorf("week %d visited label's page: %v, want %v", i, s.Page, want)
		}
	}
}

// checkLives: each issue's life in the weekly sequence, by page, rule,
// width and element.
func checkLives(t *testing.T, st *store.Store) {
	t.Helper()
	const tab1, tab2 = "Tab key press #1 did not show a focus indicator", "Tab key press #2 did not show a focus indicator"
	// Each issue's life, by page, rule, width and element.
	all, err := st.IssueHistory(context.Background(), store.IssueFilter{Namespaces: testNamespaces, Organisation: org, Limit: store.MaxLimit})
	if err != nil {
		t.Fatal(err)
	}
	lives := map[string]string{}
	for _, is := range all.Issues {
		key := fmt.Sprintf("%s %s %d %s", strings.TrimPrefix(is.Page, "http://127.0.0.1:8765/"), is.Rule, is.ViewportWidth, is.Target)
		life := fmt.Sprintf("%s first=%s last=%s present=%d reopened=%d", is.State, is.FirstSeenScan, is.LastSeenScan, is.ScansPresent, is.Reopened)
		if is.State == store.StateFixed {
			life += fmt.Sprintf(" fixed=%s (%s)", is.FixedInScan, is.FixedReason)
		}
		if lives[key] != "" {
			key += " (2)"
		}
		lives[key] = life
	}
	wantLives := map[string]string{
		" color-contrast 320 /html/body/main/p":             "open first=a11y/week-0 last=a11y/week-4 present=4 reopened=1",
		" color-contrast 1280 /html/body/main/p":            "open first=a11y/week-0 last=a11y/week-4 present=4 reopened=1",
		" image-alt 320 /html/body/main/img":                "open first=a11y/week-0 last=a11y/week-4 present=5 reopened=0",
		" image-alt 1280 /html/body/main/img":               "open first=a11y/week-0 last=a11y/week-4 present=5 reopened=0",
		" reflow_audit 320 ":                                "open first=a11y/week-0 last=a11y/week-4 present=5 reopened=0",
		"form.html label 320 /html/body/main/form/input":    "open first=a11y/week-0 last=a11y/week-4 present=4 reopened=1",
		"form.html label 1280 /html/body/main/form/input":   "open first=a11y/week-0 last=a11y/week-4 present=4 reopened=1",
		"form.html link-name 320 /html/body/main/p/a":       "open first=a11y/week-0 last=a11y/week-4 present=4 reopened=1",
		"form.html link-name 1280 /html/body/main/p/a":      "open first=a11y/week-0 last=a11y/week-4 present=4 reopened=1",
		"form.html focus_indicator_audit 320 " + tab1:       "open first=a11y/week-0 last=a11y/week-4 present=4 reopened=1",
		"form.html focus_indicator_audit 320 " + tab2:       "open first=a11y/week-0 last=a11y/week-4 present=4 reopened=1",
		"form.html focus_indicator_audit 1280 " + tab1:      "open first=a11y/week-0 last=a11y/week-4 present=3 reopened=1",
		"form.html focus_indicator_audit 1280 " + tab2:      "open first=a11y/week-0 last=a11y/week-4 present=3 reopened=1",
		"nolang.html html-has-lang 320 /html":               "open first=a11y/week-0 last=a11y/week-4 present=5 reopened=0",
		"nolang.html html-has-lang 1280 /html":              "open first=a11y/week-0 last=a11y/week-4 present=5 reopened=0",
		"nolang.html image-alt 320 /html/body/main/img":     "open first=a11y/week-0 last=a11y/week-4 present=5 reopened=0",
		"nolang.html image-alt 320 /html/body/main/img (2)": "fixed first=a11y/week-3 last=a11y/week-3 present=1 reopened=0 fixed=a11y/week-4 (fixed)",
		"nolang.html image-alt 1280 /html/body/main/img":    "open first=a11y/week-0 last=a11y/week-4 present=5 reopened=0",
		"clean.html image-alt 320 /html/body/main/img":      "fixed first=a11y/week-1 last=a11y/week-1 present=1 reopened=0 fixed=a11y/week-2 (fixed)",
	}
	for k, v := range wantLives {
		if lives[k] != v {
			t.Errorf("%s:\n got %s\nwant %s", k, lives[k], v)
		}
	}
	if len(lives) != len(wantLives) {
		t.Errorf("%d issues, want %d: %v", len(lives), len(wantLives), lives)
	}
}

// TestElementsOfRowsWithoutTargetOrHTML: a row with neither a target nor
// element HTML is its description's element, as the report counts it: two
// such rows with one description are one element, a third with another
// description is another, beside the real run's 9.
func TestElementsOfRowsWithoutTargetOrHTML(t *testing.T) {
	w := loadReal(t)
	for _, description := range []string{"first", "first", "second"} {
		w.add(t, axeCSV, where{"url": home, "id": "image-alt"}, map[string]string{"target": "", "html": "", "description": description})
	}
	st := storetest.OpenSQLite(t)
	ingestOK(t, st, w.fs(), week(0))
	trend, err := st.OrganisationTrend(context.Background(), testNamespaces, org, "")
	if err != nil || len(trend) != 1 || trend[0].Elements != 11 {
		t.Errorf("elements: %+v %v, want 11", trend, err)
	}
}

// TestObservesEveryPage: a scan of more pages than one batch
// (pageBatch) records its visit of every page and what each audit saw at
// each width there.
func TestObservesEveryPage(t *testing.T) {
	w := loadReal(t)
	extra := pageBatch + 7
	for i := range extra {
		w.add(t, axeCSV, where{"url": home, "id": "image-alt"}, map[string]string{"url": fmt.Sprintf("%spage-%d", home, i)})
	}
	st := storetest.OpenSQLite(t)
	ingestOK(t, st, w.fs(), week(0))
	ctx := context.Background()
	sw, err := st.BeginScan(ctx, week(1), "test")
	if err != nil {
		t.Fatal(err)
	}
	defer sw.Rollback()
	orgID, err := sw.Organisation(ctx, org, "")
	if err != nil {
		t.Fatal(err)
	}
	stored, err := sw.Pages(ctx, orgID)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]int64, 0, len(stored))
	for _, id := range stored {
		ids = append(ids, id)
	}
	obs, err := sw.Observations(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	seenOn := map[int64]bool{}
	for k := range obs.Seen {
		seenOn[k.PageID] = true
	}
	if len(obs.Visited) < extra || len(seenOn) != len(obs.Visited) {
		t.Errorf("%d pages visited, %d with what the audits saw; want every one of more than %d", len(obs.Visited), len(seenOn), extra)
	}
}

// TestTransitionsAcrossPageBatches: an organisation of more pages than one
// batch (pageBatch) moves from week to week as the baseline comparison
// says, whichever batch its pages fall in: an issue fixed, a page no
// longer visited, a new issue, each on a page of the second batch; and
// its open issues are counted across batches.
func TestTransitionsAcrossPageBatches(t *testing.T) {
	w0 := loadReal(t)
	page := func(i int) string { return fmt.Sprintf("%spage-%d", home, i) }
	extra := pageBatch + 10
	for i := range extra {
		w0.add(t, axeCSV, where{"url": home, "id": "image-alt"}, map[string]string{"url": page(i)})
		w0.add(t, axeCSV, where{"url": home, "id": "color-contrast"}, map[string]string{"url": page(i)})
	}
	w1 := w0.clone()
	if n := w1.drop(axeCSV, where{"url": page(extra - 1), "id": "image-alt"}); n != 1 {
		t.Fatalf("dropped %d rows", n)
	}
	if n := w1.drop(axeCSV, where{"url": page(extra - 2)}); n != 2 {
		t.Fatalf("dropped %d rows", n)
	}
	w1.add(t, axeCSV, where{"url": form, "id": "link-name"}, map[string]string{"url": page(extra - 3)})
	for _, e := range storetest.Engines() {
		t.Run(e.Name, func(t *testing.T) {
			st := e.Open(t)
			first := ingestOK(t, st, w0.fs(), week(0))
			res := ingestOK(t, st, w1.fs(), week(1))
			if first.New != 17+2*int64(extra) || res.New != 1 || res.Fixed != 1 || res.FixedPageNotScanned != 2 || res.Reopened != 0 {
				t.Errorf("week 0 new %d; week 1: %+v", first.New, res)
			}
			checkMatchesDiff(t, w0.fs(), w1.fs(), res)
			trend, err := st.OrganisationTrend(context.Background(), testNamespaces, org, "")
			if err != nil || len(trend) != 2 || trend[1].Open != trend[0].Open-2 {
				t.Errorf("open issues: %+v %v, want 2 fewer in week 1 (3 gone, 1 new)", trend, err)
			}
		})
	}
}
