package pageruns

import (
	"reflect"
	"testing"
)

type span struct{ start, end uint32 }

func runsOf(r *Runs, page uint64) []span {
	var out []span
	for start, end := range r.Of(page) {
		out = append(out, span{start, end})
	}
	return out
}

// Each page's runs come back latest first, whatever other pages' runs lie
// between them, each from the end of the run recorded before it; an empty
// run is not recorded. Many pages' runs cross the runs' blocks.
func TestRunsOfAPage(t *testing.T) {
	type add struct {
		page uint64
		end  uint32
	}
	many := make([]add, 0, BlockLen+5)
	manyWant := map[uint64][]span{}
	for i := range uint32(BlockLen + 5) {
		page := uint64(i % 3)
		many = append(many, add{page, 2*i + 2})
		manyWant[page] = append([]span{{2 * i, 2*i + 2}}, manyWant[page]...)
	}
	cases := []struct {
		name  string
		adds  []add
		want  map[uint64][]span
		runs  int
		pages int
	}{
		{name: "none", want: map[uint64][]span{1: nil}},
		{name: "one page", adds: []add{{1, 3}}, want: map[uint64][]span{1: {{0, 3}}, 2: nil}, runs: 1, pages: 1},
		{
			name: "pages in turn",
			adds: []add{{1, 3}, {2, 5}, {3, 9}},
			want: map[uint64][]span{1: {{0, 3}}, 2: {{3, 5}}, 3: {{5, 9}}},
			runs: 3, pages: 3,
		},
		{
			name: "a page that comes back",
			adds: []add{{1, 3}, {2, 5}, {1, 6}, {2, 8}, {1, 12}},
			want: map[uint64][]span{1: {{8, 12}, {5, 6}, {0, 3}}, 2: {{6, 8}, {3, 5}}},
			runs: 5, pages: 2,
		},
		{
			name: "empty runs",
			adds: []add{{1, 0}, {2, 2}, {1, 2}, {2, 1}},
			want: map[uint64][]span{1: nil, 2: {{0, 2}}},
			runs: 1, pages: 1,
		},
		{name: "past a block", adds: many, want: manyWant, runs: BlockLen + 5, pages: 3},
		{
			name: "pages whose hashes fold alike share their runs",
			adds: []add{{1, 3}, {2, 5}, {1 << 32, 6}, {1<<32 | 3, 8}},
			want: map[uint64][]span{1: {{5, 6}, {0, 3}}, 1 << 32: {{5, 6}, {0, 3}}, 2: {{6, 8}, {3, 5}}, 1<<32 | 2: nil},
			runs: 4, pages: 2,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var r Runs
			for _, a := range c.adds {
				r.Add(a.page, a.end)
			}
			for page, want := range c.want {
				if got := runsOf(&r, page); !reflect.DeepEqual(got, want) {
					t.Errorf("page %d: runs %v, want %v", page, got, want)
				}
			}
			if r.Len() != c.runs || r.Pages() != c.pages {
				t.Errorf("%d runs of %d pages, want %d of %d", r.Len(), r.Pages(), c.runs, c.pages)
			}
		})
	}
}

// A loop over a page's runs may stop early.
func TestRunsStopEarly(t *testing.T) {
	var r Runs
	r.Add(1, 1)
	r.Add(1, 2)
	r.Add(1, 3)
	var got []span
	for start, end := range r.Of(1) {
		got = append(got, span{start, end})
		if len(got) == 2 {
			break
		}
	}
	if want := []span{{2, 3}, {1, 2}}; !reflect.DeepEqual(got, want) {
		t.Errorf("runs %v, want %v", got, want)
	}
}

// Blocks hold every entry at its place across blocks, and a full block is
// never grown: the next entry starts a block of its own.
func TestBlocks(t *testing.T) {
	for _, n := range []int{0, 1, BlockLen - 1, BlockLen, BlockLen + 1, 3*BlockLen + 7} {
		var b Blocks[uint64]
		for i := range n {
			b.Append(uint64(i) * 7)
		}
		if int(b.Len()) != n {
			t.Fatalf("%d entries: Len %d", n, b.Len())
		}
		for i := range n {
			if got := b.At(uint32(i)); got != uint64(i)*7 {
				t.Fatalf("%d entries: At(%d) = %d, want %d", n, i, got, i*7)
			}
		}
		if want := (n + BlockLen - 1) / BlockLen; len(b.blocks) != want {
			t.Errorf("%d entries in %d blocks, want %d", n, len(b.blocks), want)
		}
		for i, block := range b.blocks {
			if cap(block) != BlockLen {
				t.Errorf("%d entries: block %d holds %d, want %d", n, i, cap(block), BlockLen)
			}
		}
	}
}
