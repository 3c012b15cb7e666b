package diff

import (
	"strings"

	"github.com/a11y-dev/cwac-operator/internal/results"
)

// The comparison's matching rules, exported so that the issue history
// (internal/ingest) follows one issue across many scans by exactly the rules
// that compare two: one definition of "the same issue" in the product.

// FocusAuditFile is the focus-indicator audit's CSV, whose rows have unstable
// cases of their own (see unstable.go).
const FocusAuditFile = focusFile

// PageKey is a page URL in the form two spellings of one page share (see
// pageKey): the page part of an issue's identity.
func PageKey(raw string) string { return pageKey(raw) }

// PositionColumn is the column (results.Reader.Column) of a row's position
// on its page as the comparison matches it: axe's XPath target, or, in
// audits without a target column, the description (the focus audit's "Tab
// key press #N").
func PositionColumn(r *results.Reader) int {
	if r.Has("target") {
		return r.Column("target")
	}
	return r.Column("description")
}

// ElementTarget is a row's position on its page (PositionColumn's cell):
// where rows are many, look the column up once and read Row.Field.
func ElementTarget(r *results.Reader, row results.Row) string { return row.Field(PositionColumn(r)) }

// FocusedBody reports whether a focus-indicator row is about the page's
// <body>: a row CWAC writes only sometimes, never new or fixed.
func FocusedBody(html string) bool { return focusedBody(html) }

// FocusAnimating reports whether a focus-indicator row's description says
// the audit could not run on the page ("Page never stopped animating").
func FocusAnimating(description string) bool { return strings.HasPrefix(description, animatingPrefix) }

// Element is one issue row of one page, viewport width and rule, as
// matching sees it: hashes of its element HTML and of its target. The hash
// function is the caller's; both sides must use the same one.
type Element struct {
	HTML, Target uint64
}

// ElementMatch is where MatchElements put one of the later scan's elements.
type ElementMatch struct {
	// Base is the index of the baseline element it matched, or -1 (new).
	Base int
	// OnTarget is true when the HTML differed and the target matched.
	OnTarget bool
}

// MatchElements pairs the elements of one page, viewport width and rule in
// a baseline (base) and a later scan (cur) exactly as Compare does: the same
// HTML at the same target first, then the same HTML anywhere, then the same
// target alone. It returns one ElementMatch per element of cur, in cur's
// order; baseline elements no match names were fixed.
func MatchElements(base, cur []Element) []ElementMatch {
	var recs [2]recordList
	for s, els := range [2][]Element{base, cur} {
		for _, e := range els {
			recs[s].add(record{html: e.HTML, target: e.Target, partner: -1})
		}
	}
	matchRun(&recs[baseSide], &recs[curSide], openIndexes(&recs[baseSide]), openIndexes(&recs[curSide]))
	out := make([]ElementMatch, len(cur))
	for i := range int32(len(cur)) {
		r := recs[curSide].at(i)
		out[i] = ElementMatch{Base: -1}
		if r.state == stateMatched {
			out[i] = ElementMatch{Base: int(r.partner), OnTarget: r.how == howTarget}
		}
	}
	return out
}
