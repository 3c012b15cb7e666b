package diff

import (
	"cmp"
	"slices"
)

// matchAll pairs the open records of the two sides. Records are compared
// only within one group (page and viewport width) and rule; there, the same
// element HTML at the same target pairs first, then the same HTML anywhere
// (targets renumber when a sibling disappears), then what is left pairs on
// the target alone (the element's HTML changed, say by a class, and it is
// still there and still failing).
func matchAll(base, cur *recordList) {
	bi, ci := openIndexes(base), openIndexes(cur)
	for i, j := 0, 0; i < len(bi) && j < len(ci); {
		switch d := cmpRun(base.at(bi[i]), cur.at(ci[j])); {
		case d < 0:
			i = runEnd(base, bi, i)
		case d > 0:
			j = runEnd(cur, ci, j)
		default:
			ie, je := runEnd(base, bi, i), runEnd(cur, ci, j)
			matchRun(base, cur, bi[i:ie], ci[j:je])
			i, j = ie, je
		}
	}
}

// openIndexes lists the records still to match, sorted by group, rule, HTML
// and target (file order breaks ties, so results do not depend on the sort).
func openIndexes(recs *recordList) []int32 {
	idx := make([]int32, 0, recs.len())
	for i := range int32(recs.len()) {
		if r := recs.at(i); r.state == stateOpen && r.how != howPageOnly {
			idx = append(idx, i)
		}
	}
	slices.SortFunc(idx, func(x, y int32) int {
		a, b := recs.at(x), recs.at(y)
		return cmp.Or(cmpRun(a, b), cmp.Compare(a.html, b.html), cmp.Compare(a.target, b.target), cmp.Compare(x, y))
	})
	return idx
}

func cmpRun(a, b *record) int {
	return cmp.Or(cmp.Compare(a.group, b.group), cmp.Compare(a.rule, b.rule))
}

// runEnd is the end of the run of records sharing idx[i]'s group and rule.
func runEnd(recs *recordList, idx []int32, i int) int {
	j := i + 1
	for j < len(idx) && cmpRun(recs.at(idx[i]), recs.at(idx[j])) == 0 {
		j++
	}
	return j
}

// matchRun pairs one group and rule's records (each list sorted by HTML, then
// target).
func matchRun(base, cur *recordList, bi, ci []int32) {
	pair := func(x, y int32, how uint8) {
		b, c := base.at(x), cur.at(y)
		b.state, b.partner, b.how = stateMatched, y, how
		c.state, c.partner, c.how = stateMatched, x, how
	}
	// Same HTML, same target; then same HTML. Both lists are in (HTML,
	// target) order, so each pass is one merge.
	for _, withTarget := range []bool{true, false} {
		i, j := 0, 0
		for i < len(bi) && j < len(ci) {
			b, c := base.at(bi[i]), cur.at(ci[j])
			switch {
			case b.state != stateOpen:
				i++
				continue
			case c.state != stateOpen:
				j++
				continue
			}
			d := cmp.Compare(b.html, c.html)
			if d == 0 && withTarget {
				d = cmp.Compare(b.target, c.target)
			}
			switch {
			case d < 0:
				i++
			case d > 0:
				j++
			default:
				pair(bi[i], ci[j], howHTML)
				i, j = i+1, j+1
			}
		}
	}
	// What is left: the same target, in file order.
	byTarget := map[uint64][]int32{}
	for _, x := range bi {
		if b := base.at(x); b.state == stateOpen {
			byTarget[b.target] = append(byTarget[b.target], x)
		}
	}
	if len(byTarget) == 0 {
		return
	}
	for _, xs := range byTarget {
		slices.Sort(xs)
	}
	left := slices.Clone(ci)
	slices.Sort(left)
	for _, y := range left {
		c := cur.at(y)
		if c.state != stateOpen {
			continue
		}
		if xs := byTarget[c.target]; len(xs) > 0 {
			pair(xs[0], y, howTarget)
			byTarget[c.target] = xs[1:]
		}
	}
}
