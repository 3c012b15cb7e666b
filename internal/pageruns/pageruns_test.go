package pageruns

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
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

// memSpool is a Spool in memory; failing, its writes fail, and short, it
// gives back one byte less than it holds.
type memSpool struct {
	data    []byte
	failing bool
	short   bool
}

func (m *memSpool) Write(b []byte) (int, error) {
	if m.failing {
		return 0, errors.New("disk full")
	}
	m.data = append(m.data, b...)
	return len(b), nil
}

func (m *memSpool) ReadAt(b []byte, off int64) (int, error) {
	data := m.data
	if m.short {
		data = data[:len(data)-1]
	}
	if off >= int64(len(data)) {
		return 0, io.EOF
	}
	n := copy(b, data[off:])
	if n < len(b) {
		return n, io.EOF
	}
	return n, nil
}

// A spooled list gives back any run of its entries, whether still in its
// write buffer or already written, and refuses entries of another size
// and places past its end; a spool that fails or is short is an error.
func TestSpooled(t *testing.T) {
	entry := func(i int) []byte { return []byte{byte(i), byte(i >> 8), byte(i >> 16)} }
	const n = 5000 // more than bufio's buffer holds
	s := NewSpooled(&memSpool{}, 3)
	for i := range n {
		if err := s.Add(entry(i)); err != nil {
			t.Fatal(err)
		}
	}
	if s.Len() != n {
		t.Fatalf("Len %d, want %d", s.Len(), n)
	}
	for _, r := range [][2]uint32{{0, 0}, {0, 1}, {17, 1400}, {n - 2, n}, {0, n}} {
		got, err := s.Read(r[0], r[1])
		if err != nil {
			t.Fatalf("Read(%d, %d): %v", r[0], r[1], err)
		}
		var want []byte
		for i := r[0]; i < r[1]; i++ {
			want = append(want, entry(int(i))...)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("Read(%d, %d): %d bytes, not the entries added", r[0], r[1], len(got))
		}
	}
	if err := s.Add([]byte{1, 2}); err == nil || s.Len() != n {
		t.Errorf("an entry of 2 bytes: error %v, Len %d", err, s.Len())
	}
	for _, r := range [][2]uint32{{n, n + 1}, {3, 2}} {
		if _, err := s.Read(r[0], r[1]); err == nil || !strings.Contains(err.Error(), "of a list of 5000") {
			t.Errorf("Read(%d, %d): error %v", r[0], r[1], err)
		}
	}

	failing := NewSpooled(&memSpool{failing: true}, 3)
	var err error
	for i := 0; i < n && err == nil; i++ {
		err = failing.Add(entry(i))
	}
	if err == nil || err.Error() != "disk full" || failing.Len() >= n {
		t.Errorf("a spool whose writes fail: error %v after %d entries", err, failing.Len())
	}

	short := NewSpooled(&memSpool{short: true}, 3)
	for i := range 10 {
		if err := short.Add(entry(i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := short.Read(0, 10); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("a short spool: error %v, want %v", err, io.ErrUnexpectedEOF)
	}
	if _, err := short.Read(0, 9); err != nil {
		t.Errorf("entries within a short spool: %v", err)
	}
}

// Both kinds of List give back each run of their entries in order, across
// blocks and past the spool's write buffer, and a spooled one an error
// from a spool that cannot give them back.
func TestLists(t *testing.T) {
	codec := Codec[uint32]{Size: 4, Put: func(b []byte, v uint32) { copy(b, []byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)}) },
		Get: func(b []byte) uint32 { return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24 }}
	const n = 3*BlockLen + 5
	for name, l := range map[string]List[uint32]{"held": &Held[uint32]{}, "in a spool": NewInSpool(&memSpool{}, codec)} {
		for i := range uint32(n) {
			if err := l.Add(i * 7); err != nil {
				t.Fatal(err)
			}
		}
		if l.Len() != n {
			t.Errorf("%s: Len %d, want %d", name, l.Len(), n)
		}
		for _, r := range [][2]uint32{{0, 0}, {0, 1}, {BlockLen - 2, BlockLen + 3}, {n - 4, n}} {
			var got, want []uint32
			if err := l.Each(r[0], r[1], func(v uint32) { got = append(got, v) }); err != nil {
				t.Fatalf("%s: Each(%d, %d): %v", name, r[0], r[1], err)
			}
			for i := r[0]; i < r[1]; i++ {
				want = append(want, i*7)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: Each(%d, %d) = %v, want %v", name, r[0], r[1], got, want)
			}
		}
	}
	short := NewInSpool(&memSpool{short: true}, codec)
	for i := range uint32(3) {
		if err := short.Add(i); err != nil {
			t.Fatal(err)
		}
	}
	if err := short.Each(0, 3, func(uint32) {}); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("a short spool: error %v, want %v", err, io.ErrUnexpectedEOF)
	}
}
