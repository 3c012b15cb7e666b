package diff

import "strings"

// Some rows CWAC writes only sometimes, for the same page scanned twice
// without a change. Reporting them would report CWAC's timing, not the
// site, so they are "unstable": counted apart, never new or fixed.
//
//   - The other scan has no row at all (not even a passing one) for the same
//     audit, page and viewport width although it scanned the page. Every
//     audit writes a row per page and viewport when it runs, so the audit did
//     not run there: it was skipped after a browser error (the focus audit on
//     a page that replaces itself, such as a 0-second meta refresh; or on a
//     <main> that cannot take key presses), or the audit was switched off.
//   - One scan has the focus audit's "Page never stopped animating" row and
//     the other does not: that scan could not tab through the page at all,
//     so neither side's focus rows for the page and viewport can be compared.
//     (Both scans with the row: it is matched like any other.)
//   - The page replaced itself while CWAC audited it: in one scan its rows
//     carry more than one page title (a meta refresh or a script navigated
//     away between audits). The focus audit, which presses Tab for seconds,
//     then reports on whichever document was there; its rows for the page are
//     not compared.
//   - A focus row whose focused element is the page's <body> ("Tab key press
//     #3 did not show a focus indicator" on a page with two links): the press
//     went past the page's last focusable element, so nothing on the page
//     lacks an indicator, and whether CWAC's timing catches that press
//     varies. Seen with real CWAC on an unchanged page scanned twice: one
//     scan had the row, the other "All tab presses had a focus indicator".

// animatingPrefix starts the focus audit's row for a page it could not test.
const animatingPrefix = "Page never stopped animating"

// Why a row is unstable, as diff.json, the issue history and the dashboard
// say it.
var unstableReasons = map[uint8]string{
	howOtherBlank: "the other scan has no result of this audit for this page and viewport width (the audit did not run there)",
	howAnimating:  "one scan could not run the focus audit on this page and viewport (the page never stopped animating)",
	howReplaced:   "the page replaced itself while CWAC audited it (its title changed between audits), so its focus results vary",
	howOnBody:     "the tab press focused the page's <body>, past its last focusable element: CWAC reports that only sometimes",
}

// UnstableReasons lists every reason a row is not compared, in the words
// diff.json gives each unstable row: what a page showing a count of
// unstable issues says of them.
func UnstableReasons() []string {
	return []string{unstableReasons[howOtherBlank], unstableReasons[howAnimating], unstableReasons[howReplaced], unstableReasons[howOnBody]}
}

// Observation is what one scan saw of one audit on one page at one
// viewport width.
type Observation struct {
	// Ran: the audit wrote a row there (an issue or a pass).
	Ran bool
	// Animating: the focus audit's "Page never stopped animating" row.
	Animating bool
	// Replaced: the page's rows carried more than one title in the scan.
	Replaced bool
}

// Compared reports whether two scans' rows of one audit for one page and
// width are compared (focus: the audit is the focus-indicator audit), and
// when they are not, why (one of UnstableReasons). Both scans visited the
// page; rows the audit itself calls unstable (FocusedBody) are apart.
// The comparison decides by it, and so does the issue history, with the
// last scan that visited the page as the baseline.
func Compared(focus bool, base, cur Observation) (bool, string) {
	how := unstableHow(focus, base, cur)
	return how == howNone, unstableReasons[how]
}

func unstableHow(focus bool, base, cur Observation) uint8 {
	switch {
	case !base.Ran || !cur.Ran:
		return howOtherBlank
	case focus && base.Animating != cur.Animating:
		return howAnimating
	case focus && (base.Replaced || cur.Replaced):
		return howReplaced
	}
	return howNone
}

// focusedBody reports whether a focus row's element (CWAC's html column,
// the focused element's markup) is the page's <body>.
func focusedBody(html string) bool {
	html = strings.TrimSpace(html)
	if len(html) < len("<body") || !strings.EqualFold(html[:len("<body")], "<body") {
		return false
	}
	return len(html) == len("<body") || strings.ContainsRune(" \t\n\r\f>/", rune(html[len("<body")]))
}

// markUnstable sets aside the records that cannot be compared, and marks
// those whose page only one side scanned (all new, or all fixed).
func (c *comparison) markUnstable(a *auditState) {
	focus := a.name == focusFile
	for s := range a.recs {
		other := 1 - s
		for i := range int32(a.recs[s].len()) {
			r := a.recs[s].at(i)
			if r.state == stateUnstable {
				continue // decided when read (a focused <body>)
			}
			g := &a.info[r.group]
			page := &c.pages.info[g.key.page]
			if !page.scanned[other] {
				r.how = howPageOnly
				continue
			}
			var obs [2]Observation
			for side := range obs {
				obs[side] = Observation{Ran: g.present[side], Animating: g.animating[side], Replaced: page.titleVaries[side]}
			}
			if how := unstableHow(focus, obs[baseSide], obs[curSide]); how != howNone {
				r.state, r.how = stateUnstable, how
			}
		}
	}
}
