package ingest

import (
	"slices"
	"testing"
)

// elements counts one element per page, rule and element key, leaving out
// the rows about a page's <body>, whatever the order of the indexes it is
// given (each page's rows sorted alone when they come in page order, all
// of them sorted by page first when a page's rows are apart).
func TestElementsCount(t *testing.T) {
	type row struct {
		page, rule int32
		target     uint64
		width      uint16
		body       bool
	}
	for _, tc := range []struct {
		name string
		rows []row
		want int64
	}{
		{"none", nil, 0},
		{"one", []row{{page: 0, rule: 1, target: 7}}, 1},
		{"an element at two widths", []row{{page: 0, rule: 1, target: 7, width: 320}, {page: 0, rule: 1, target: 7, width: 1280}}, 1},
		{"widths apart, another rule between", []row{
			{page: 0, rule: 1, target: 7, width: 320}, {page: 0, rule: 2, target: 7, width: 320},
			{page: 0, rule: 1, target: 7, width: 1280}, {page: 0, rule: 2, target: 8, width: 1280},
		}, 3},
		{"the same element and rule on two pages", []row{{page: 0, rule: 1, target: 7}, {page: 1, rule: 1, target: 7}}, 2},
		{"a page's rows apart in the file", []row{
			{page: 0, rule: 1, target: 7, width: 320}, {page: 1, rule: 1, target: 7}, {page: 0, rule: 1, target: 7, width: 1280},
		}, 2},
		{"body rows left out", []row{{page: 0, rule: 1, target: 7, body: true}, {page: 0, rule: 1, target: 8}, {page: 1, rule: 1, target: 9, body: true}}, 1},
		{"only body rows", []row{{page: 0, rule: 1, target: 7, body: true}, {page: 2, rule: 3, target: 7, body: true}}, 0},
		{"a body row and the same key not about the body", []row{{page: 0, rule: 1, target: 7, body: true}, {page: 0, rule: 1, target: 7}}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rd := newReading()
			for _, r := range tc.rows {
				rec := record{page: r.page, rule: r.rule, target: r.target, width: r.width}
				rec.setElemFrom(elemTarget)
				if r.body {
					rec.flags |= flagBody
				}
				rd.recs.add(rec)
			}
			inPageOrder := make([]int32, len(tc.rows))
			for i := range inPageOrder {
				inPageOrder[i] = int32(i)
			}
			slices.SortStableFunc(inPageOrder, func(x, y int32) int { return int(tc.rows[x].page - tc.rows[y].page) })
			backwards := slices.Clone(inPageOrder)
			slices.Reverse(backwards)
			inFileOrder := slices.Sorted(slices.Values(inPageOrder))
			for name, idx := range map[string][]int32{"in page order": inPageOrder, "backwards": backwards, "in file order": inFileOrder} {
				before := slices.Sorted(slices.Values(idx))
				if got := elements(rd, idx); got != tc.want {
					t.Errorf("%s: %d elements, want %d", name, got, tc.want)
				}
				if after := slices.Sorted(slices.Values(idx)); !slices.Equal(after, before) {
					t.Errorf("%s: the indexes are not those given, reordered: %v", name, idx)
				}
			}
		})
	}
}
