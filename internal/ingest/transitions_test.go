package ingest

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
)

// A synthetic scan: rows written out as CWAC's CSVs.
type synth struct {
	pages []string // audit_log.csv (organisation O unless "org|url")
	axe   []axeRow
	focus []focusRow
}

type axeRow struct {
	org, url string
	width    int
	rule     string // "" for a passing row
	html     string
	target   string
}

type focusRow struct {
	url         string
	width       int
	description string
	html        string
	n           int
	title       string
}

func csvText(header []string, rows [][]string) *fstest.MapFile {
	var b strings.Builder
	b.WriteString("\xef\xbb\xbf")
	for _, r := range append([][]string{header}, rows...) {
		for i, c := range r {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"` + strings.ReplaceAll(c, `"`, `""`) + `"`)
		}
		b.WriteString("\n")
	}
	return &fstest.MapFile{Data: []byte(b.String())}
}

func vp(w int) string { return fmt.Sprintf("{'width': %d, 'height': 800}", w) }

func (s synth) fs() fstest.MapFS {
	m := fstest.MapFS{}
	log := make([][]string, 0, len(s.pages))
	for _, p := range s.pages {
		o, u, ok := strings.Cut(p, "|")
		if !ok {
			o, u = "O", p
		}
		log = append(log, []string{o, u, u, "S"})
	}
	m["audit_log.csv"] = csvText([]string{"organisation", "base_url", "url", "sector"}, log)
	axe := make([][]string, 0, len(s.axe))
	for _, r := range s.axe {
		o := r.org
		if o == "" {
			o = "O"
		}
		n := "1"
		if r.rule == "" {
			n = "0"
		}
		axe = append(axe, []string{o, "S", "T", r.url, vp(r.width), r.target, n, r.rule, "serious", r.html,
			"['wcag2aa', 'wcag143']", "https://dequeuniversity.com/rules/axe/4.10/" + r.rule})
	}
	m["axe_core_audit.csv"] = csvText([]string{"organisation", "sector", "page_title", "url", "viewport_size", "target",
		"num_issues", "id", "impact", "html", "tags", "helpUrl"}, axe)
	if s.focus != nil {
		fr := make([][]string, 0, len(s.focus))
		for _, r := range s.focus {
			title := r.title
			if title == "" {
				title = "T"
			}
			fr = append(fr, []string{"O", "S", title, r.url, vp(r.width), r.description, r.html, fmt.Sprint(r.n)})
		}
		m["focus_indicator_audit.csv"] = csvText([]string{"organisation", "sector", "page_title", "url", "viewport_size", "description", "html", "num_issues"}, fr)
	}
	return m
}

const (
	pA = "https://o.example/"
	pB = "https://o.example/b"
)

func img(url, html, target string) axeRow {
	return axeRow{url: url, width: 320, rule: "image-alt", html: html, target: target}
}
func pass() axeRow { return axeRow{url: pA, width: 320} }
func tab(n int, html string) focusRow {
	return focusRow{url: pA, width: 320, description: fmt.Sprintf("Tab key press #%d did not show a focus indicator", n), html: html, n: 1}
}

// TestTransitions: each rule of issue identity and transition, over a
// few scans, with the figures of every scan and each issue's end state.
func TestTransitions(t *testing.T) {
	type figures struct{ new, fixed, pns, reopened, unstable int64 }
	cases := []struct {
		name  string
		scans []synth
		figs  []figures
		// lives: "page rule target: state present reopened [reason]", sorted
		lives []string
		// differs says why the history's figures of the last scan are not
		// the baseline comparison's of the last two scans ("": they are,
		// as for every scan before it).
		differs string
	}{{
		name: "open, fixed, reopened",
		scans: []synth{
			{pages: []string{pA}, axe: []axeRow{img(pA, "<img a>", "/img")}},
			{pages: []string{pA}, axe: []axeRow{pass()}},
			{pages: []string{pA}, axe: []axeRow{img(pA, "<img a>", "/img")}},
		},
		figs:  []figures{{new: 1}, {fixed: 1}, {reopened: 1}},
		lives: []string{"/ image-alt /img: open present=2 reopened=1"},
	}, {
		name: "page not scanned, then back",
		scans: []synth{
			{pages: []string{pA, pB}, axe: []axeRow{img(pA, "<img a>", "/img"), img(pB, "<img b>", "/img")}},
			{pages: []string{pA}, axe: []axeRow{img(pA, "<img a>", "/img")}},
			{pages: []string{pA, pB}, axe: []axeRow{img(pA, "<img a>", "/img"), img(pB, "<img b>", "/img")}},
		},
		figs:  []figures{{new: 2}, {pns: 1}, {reopened: 1}},
		lives: []string{"/ image-alt /img: open present=3 reopened=0", "/b image-alt /img: open present=2 reopened=1"},
	}, {
		// As the baseline comparison: rows after a visit where the audit did
		// not run are not compared (unstable) either; the visit after is.
		name: "the audit did not run on the page: not fixed; the page's rows the visit after are seen, not compared",
		scans: []synth{
			{pages: []string{pA, pB}, axe: []axeRow{img(pA, "<img a>", "/img"), img(pB, "<img b>", "/img")}},
			{pages: []string{pA, pB}, axe: []axeRow{img(pA, "<img a>", "/img")}},
			{pages: []string{pA, pB}, axe: []axeRow{img(pA, "<img a>", "/img"), img(pB, "<img b>", "/img")}},
			{pages: []string{pA, pB}, axe: []axeRow{img(pA, "<img a>", "/img"), img(pB, "<img b>", "/img")}},
		},
		figs:  []figures{{new: 2}, {}, {unstable: 1}, {}},
		lives: []string{"/ image-alt /img: open present=4 reopened=0", "/b image-alt /img: open present=3 reopened=0"},
	}, {
		// A fixed issue whose row comes back at a visit that cannot compare
		// it is open again there, counted unstable, so the next visit finds
		// it open, as the comparison of those two scans calls it unchanged.
		name: "a fixed issue back at a visit that cannot compare it: open again, counted unstable",
		scans: []synth{
			{pages: []string{pA, pB}, axe: []axeRow{img(pA, "<img a>", "/img"), img(pB, "<img b>", "/img")}},
			{pages: []string{pA, pB}, axe: []axeRow{pass(), img(pB, "<img b>", "/img")}},
			{pages: []string{pA, pB}, axe: []axeRow{img(pB, "<img b>", "/img")}},
			{pages: []string{pA, pB}, axe: []axeRow{img(pA, "<img a>", "/img"), img(pB, "<img b>", "/img")}},
			{pages: []string{pA, pB}, axe: []axeRow{img(pA, "<img a>", "/img"), img(pB, "<img b>", "/img")}},
		},
		figs:  []figures{{new: 2}, {fixed: 1}, {}, {unstable: 1}, {}},
		lives: []string{"/ image-alt /img: open present=3 reopened=1", "/b image-alt /img: open present=5 reopened=0"},
	}, {
		name: "an element whose HTML changed at the same target stays one issue; moved HTML too",
		scans: []synth{
			{pages: []string{pA}, axe: []axeRow{img(pA, "<img a>", "/img[1]"), img(pA, "<img b>", "/img[2]")}},
			{pages: []string{pA}, axe: []axeRow{img(pA, "<img a class=x>", "/img[1]"), img(pA, "<img b>", "/img[1]/x")}},
		},
		figs:  []figures{{new: 2}, {}},
		lives: []string{"/ image-alt /img[1]: open present=2 reopened=0", "/ image-alt /img[2]: open present=2 reopened=0"},
	}, {
		name: "identical elements are told apart by ordinal; one fixed",
		scans: []synth{
			{pages: []string{pA}, axe: []axeRow{img(pA, "<img>", "/img"), img(pA, "<img>", "/img"), img(pA, "<img>", "/img")}},
			{pages: []string{pA}, axe: []axeRow{img(pA, "<img>", "/img"), img(pA, "<img>", "/img")}},
		},
		figs: []figures{{new: 3}, {fixed: 1}},
		lives: []string{"/ image-alt /img: fixed present=1 reopened=0 fixed", "/ image-alt /img: open present=2 reopened=0",
			"/ image-alt /img: open present=2 reopened=0"},
	}, {
		name: "a new element with an old element's first HTML takes the next fingerprint",
		scans: []synth{
			{pages: []string{pA}, axe: []axeRow{img(pA, "<img a>", "/img")}},
			{pages: []string{pA}, axe: []axeRow{img(pA, "<img a2>", "/img")}},
			{pages: []string{pA}, axe: []axeRow{img(pA, "<img a2>", "/img"), img(pA, "<img a>", "/img")}},
		},
		figs:  []figures{{new: 1}, {}, {new: 1}},
		lives: []string{"/ image-alt /img: open present=1 reopened=0", "/ image-alt /img: open present=3 reopened=0"},
	}, {
		name: "a focus row on <body> is never tracked",
		scans: []synth{
			{pages: []string{pA}, axe: []axeRow{pass()}, focus: []focusRow{tab(1, "<a>"), tab(3, "<body class=x>")}},
			{pages: []string{pA}, axe: []axeRow{pass()}, focus: []focusRow{tab(1, "<a>")}},
		},
		figs:  []figures{{new: 1, unstable: 1}, {}},
		lives: []string{"/ focus_indicator_audit Tab key press #1 did not show a focus indicator: open present=2 reopened=0"},
	}, {
		// The focus audit's rows are compared only between two visits that
		// both tabbed through the page (or both could not) and where the page
		// did not replace itself.
		name: "a page that started or stopped animating, or replaced itself, is not compared by the focus audit",
		scans: []synth{
			{pages: []string{pA}, axe: []axeRow{pass()}, focus: []focusRow{tab(1, "<a>")}},
			{pages: []string{pA}, axe: []axeRow{pass()}, focus: []focusRow{
				{url: pA, width: 320, description: "Page never stopped animating", n: 1}}},
			{pages: []string{pA}, axe: []axeRow{pass()}, focus: []focusRow{
				{url: pA, width: 320, description: "All tab presses had a focus indicator", title: "Other"}}},
			{pages: []string{pA}, axe: []axeRow{pass()}, focus: []focusRow{{url: pA, width: 320, description: "All tab presses had a focus indicator"}}},
			{pages: []string{pA}, axe: []axeRow{pass()}, focus: []focusRow{{url: pA, width: 320, description: "All tab presses had a focus indicator"}}},
		},
		figs: []figures{{new: 1}, {unstable: 1}, {}, {}, {fixed: 2}},
		differs: "the issues left during visits that could not compare them: the history fixes them at the first that can; " +
			"comparing that scan with the one before shows nothing",
		lives: []string{"/ focus_indicator_audit Page never stopped animating: fixed present=1 reopened=0 fixed",
			"/ focus_indicator_audit Tab key press #1 did not show a focus indicator: fixed present=1 reopened=0 fixed"},
	}, {
		// WCAG 2.2.2: CWAC writes the row on every visit; the history tracks
		// it from the first, as the comparison matches it unchanged.
		name: "a page that never stops animating is one open issue from its first scan",
		scans: []synth{
			{pages: []string{pA}, axe: []axeRow{pass()}, focus: []focusRow{{url: pA, width: 320, description: "Page never stopped animating", n: 1}}},
			{pages: []string{pA}, axe: []axeRow{pass()}, focus: []focusRow{{url: pA, width: 320, description: "Page never stopped animating", n: 1}}},
		},
		figs:  []figures{{new: 1}, {}},
		lives: []string{"/ focus_indicator_audit Page never stopped animating: open present=2 reopened=0"},
	}, {
		// The row is kept (open, counted unstable) at the visit that cannot
		// compare it, so the next visit finds it open, as the comparison of
		// those two scans calls it unchanged.
		name: "a page that starts animating: its row is open from the first visit it animates, counted unstable there",
		scans: []synth{
			{pages: []string{pA}, axe: []axeRow{pass()}, focus: []focusRow{{url: pA, width: 320, description: "All tab presses had a focus indicator"}}},
			{pages: []string{pA}, axe: []axeRow{pass()}, focus: []focusRow{{url: pA, width: 320, description: "Page never stopped animating", n: 1}}},
			{pages: []string{pA}, axe: []axeRow{pass()}, focus: []focusRow{{url: pA, width: 320, description: "Page never stopped animating", n: 1}}},
		},
		figs:  []figures{{}, {unstable: 1}, {}},
		lives: []string{"/ focus_indicator_audit Page never stopped animating: open present=2 reopened=0"},
	}, {
		// The stored issue's rule is not the scan's, nor is its audit: the
		// audit's name is numbered among the scan's (it read no file of it).
		name: "an audit that did not run at all: its issues are left open",
		scans: []synth{
			{pages: []string{pA}, axe: []axeRow{img(pA, "<img a>", "/img")}, focus: []focusRow{tab(1, "<a>")}},
			{pages: []string{pA}, axe: []axeRow{img(pA, "<img a>", "/img")}},
			{pages: []string{pA}, axe: []axeRow{img(pA, "<img a>", "/img")}, focus: []focusRow{tab(1, "<a>")}},
		},
		figs: []figures{{new: 2}, {}, {unstable: 1}},
		lives: []string{"/ focus_indicator_audit Tab key press #1 did not show a focus indicator: open present=2 reopened=0",
			"/ image-alt /img: open present=3 reopened=0"},
	}, {
		name: "another organisation's issues are untouched by a scan without it",
		scans: []synth{
			{pages: []string{pA, "P|https://p.example/"}, axe: []axeRow{img(pA, "<img a>", "/img"),
				{org: "P", url: "https://p.example/", width: 320, rule: "label", html: "<input>", target: "/input"}}},
			{pages: []string{pA}, axe: []axeRow{img(pA, "<img a>", "/img")}},
		},
		figs:    []figures{{new: 2}, {}},
		lives:   []string{"/ image-alt /img: open present=2 reopened=0", "/ label /input: open present=1 reopened=0"},
		differs: "a scan without an organisation leaves its history alone; the comparison counts its issues fixed (page removed)",
	}}
	for _, e := range storetest.Engines() {
		for _, tc := range cases {
			t.Run(e.Name+"/"+tc.name, func(t *testing.T) {
				st := e.Open(t)
				for i, s := range tc.scans {
					res := ingestOK(t, st, s.fs(), week(i))
					if i > 0 && (tc.differs == "" || i < len(tc.scans)-1) {
						checkMatchesDiff(t, tc.scans[i-1].fs(), s.fs(), res)
					}
					got := figures{res.New, res.Fixed, res.FixedPageNotScanned, res.Reopened, res.Unstable}
					if got != tc.figs[i] {
						t.Errorf("scan %d: %+v, want %+v", i, got, tc.figs[i])
					}
					checkOpenMatchesTrend(t, st)
					checkChangesMatch(t, st, week(i).UID, res)
				}
				all, err := st.IssueHistory(context.Background(), store.IssueFilter{Namespaces: testNamespaces, Limit: store.MaxLimit})
				if err != nil {
					t.Fatal(err)
				}
				var lives []string
				for _, is := range all.Issues {
					page := strings.TrimPrefix(strings.TrimPrefix(is.Page, "https://o.example"), "https://p.example")
					life := fmt.Sprintf("%s %s %s: %s present=%d reopened=%d", page, is.Rule, is.Target, is.State, is.ScansPresent, is.Reopened)
					if is.FixedReason != "" {
						life += " " + is.FixedReason
					}
					lives = append(lives, life)
				}
				sort.Strings(lives)
				if strings.Join(lives, "\n") != strings.Join(tc.lives, "\n") {
					t.Errorf("issues:\n%s\nwant:\n%s", strings.Join(lives, "\n"), strings.Join(tc.lives, "\n"))
				}
			})
		}
	}
}

// checkChangesMatch: the changes the store keeps for the scan are its
// transitions: one fixed and page-not-scanned change an issue the ingest
// counted so, one opened change an issue it added and one reopened change
// an issue it reopened (counted new and reopened, or unstable when the
// visit could not compare them).
func checkChangesMatch(t *testing.T, st *store.Store, uid string, res Result) {
	t.Helper()
	counts := map[string]int64{}
	var after int64
	for {
		page, err := st.ScanChanges(context.Background(), store.ChangesFilter{Namespaces: testNamespaces, UID: uid, After: after, Limit: store.MaxLimit})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range page.Changes {
			counts[c.Change]++
		}
		if len(page.Changes) < store.MaxLimit {
			break
		}
		after = page.LastID()
	}
	// An issue added or reopened at a visit that cannot compare it is
	// counted unstable, and is opened or reopened all the same.
	opened, reopened := counts[store.ChangeOpened], counts[store.ChangeReopened]
	if counts[store.ReasonFixed] != res.Fixed || counts[store.ReasonPageNotScanned] != res.FixedPageNotScanned ||
		opened < res.New || reopened < res.Reopened || (opened-res.New)+(reopened-res.Reopened) > res.Unstable {
		t.Errorf("%s's changes %v; the ingest counted new %d, fixed %d, page not scanned %d, reopened %d, unstable %d",
			uid, counts, res.New, res.Fixed, res.FixedPageNotScanned, res.Reopened, res.Unstable)
	}
}

// checkOpenMatchesTrend: organisation O's latest trend point counts as
// open exactly the issues its history holds open.
func checkOpenMatchesTrend(t *testing.T, st *store.Store) {
	t.Helper()
	ctx := context.Background()
	trend, err := st.OrganisationTrend(ctx, testNamespaces, "O", "")
	if err != nil || len(trend) == 0 {
		t.Fatalf("trend of O: %v, %v", trend, err)
	}
	open, err := st.IssueHistory(ctx, store.IssueFilter{Namespaces: testNamespaces, Organisation: "O", State: store.StateOpen, Limit: store.MaxLimit})
	if err != nil {
		t.Fatal(err)
	}
	if last := trend[len(trend)-1]; last.Open != int64(len(open.Issues)) {
		t.Errorf("the trend says %d open, the history holds %d open issues", last.Open, len(open.Issues))
	}
}
