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

// Why a row is unstable, as diff.json says it.
var unstableReasons = map[uint8]string{
	howOtherBlank: "the other scan has no result of this audit for this page and viewport width (the audit did not run there)",
	howAnimating:  "one scan could not run the focus audit on this page and viewport (the page never stopped animating)",
	howReplaced:   "the page replaced itself while CWAC audited it (its title changed between audits), so its focus results vary",
	howOnBody:     "the tab press focused the page's <body>, past its last focusable element: CWAC reports that only sometimes",
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
		for i := range a.recs[s] {
			r := &a.recs[s][i]
			if r.state == stateUnstable {
				continue // decided when read (a focused <body>)
			}
			g := &a.info[r.group]
			page := &c.pages.info[g.key.page]
			switch {
			case !page.scanned[other]:
				r.how = howPageOnly
			case !g.present[other]:
				r.state, r.how = stateUnstable, howOtherBlank
			case focus && g.animating[baseSide] != g.animating[curSide]:
				r.state, r.how = stateUnstable, howAnimating
			case focus && (page.titleVaries[baseSide] || page.titleVaries[curSide]):
				r.state, r.how = stateUnstable, howReplaced
			}
		}
	}
}
