// Package pageruns keeps, for the pages of a scan read row by row, where
// each page's rows put their entries in a list built as the rows are read.
//
// CWAC writes a page's rows together, viewport after viewport, so what is
// learnt of a page (the elements told apart, the issue ids given) comes in
// runs: the entries added while one page's rows came together. A reader
// that holds only the page being read needs the entries of its earlier
// runs when its rows come back after other pages'; Runs finds them, at a
// few words a run. Blocks keeps entries in memory without copying what it
// holds as it grows; Spooled keeps them in a file.
package pageruns

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
)

// Runs are the runs of each page, by a hash of the page: a run is the
// places [start, end) its entries took in the list, where each run starts
// at the end of the run recorded before it (the list grows only by runs).
// Two pages whose hashes fold to the same 32 bits (pageKey) share their
// runs: a caller's entries name their page (a hash of it is in each), so
// another page's entries found with a page's own match none of its rows.
type Runs struct {
	runs Blocks[run]
	last map[uint32]int32 // by pageKey: the page's last run (in runs)
	end  uint32           // where the last run recorded ends
}

// pageKey folds a page's 64-bit hash to the 32 bits its last run is found
// by: a map of them takes half the memory (8 bytes a slot, not 16), and a
// scan has a page every few rows.
func pageKey(page uint64) uint32 { return uint32(page) ^ uint32(page>>32) }

// run is one run of a page, by its end (its start is the end of the run
// before it in Runs), and the page's run before it (-1: none): eight
// bytes, where a scan can have a run every few rows. They are kept in
// blocks, not in a slice that doubles (a copy of every run held, and
// room for as many again).
type run struct {
	end  uint32
	prev int32
}

// Add records the entries from the end of the last run recorded to end as
// the page's latest run; an empty run is not recorded.
func (r *Runs) Add(page uint64, end uint32) {
	if end <= r.end {
		return
	}
	if r.last == nil {
		r.last = map[uint32]int32{}
	}
	prev, ok := r.last[pageKey(page)]
	if !ok {
		prev = -1
	}
	r.runs.Append(run{end: end, prev: prev})
	r.last[pageKey(page)] = int32(r.runs.Len() - 1)
	r.end = end
}

// Of yields the page's runs, latest first, as (start, end).
func (r *Runs) Of(page uint64) iter.Seq2[uint32, uint32] {
	return func(yield func(uint32, uint32) bool) {
		i, ok := r.last[pageKey(page)]
		for ; ok && i >= 0; i = r.runs.At(uint32(i)).prev {
			if !yield(r.startOf(i), r.runs.At(uint32(i)).end) {
				return
			}
		}
	}
}

// startOf is where run i starts: where the run before it ends.
func (r *Runs) startOf(i int32) uint32 {
	if i == 0 {
		return 0
	}
	return r.runs.At(uint32(i - 1)).end
}

// Len is how many runs are recorded.
func (r *Runs) Len() int { return int(r.runs.Len()) }

// Pages is how many pages have a run (pages whose hashes fold alike count
// once).
func (r *Runs) Pages() int { return len(r.last) }

// Blocks is a list that grows in blocks of BlockLen entries: growing
// never copies what it holds, nor leaves a larger array half used. Its
// places are 32 bits; the caller keeps it within them.
type Blocks[T any] struct {
	blocks [][]T
	n      uint32
}

// BlockLen is how many entries a block holds.
const BlockLen = 4096

// Append adds v at place Len().
func (b *Blocks[T]) Append(v T) {
	if b.n%BlockLen == 0 {
		b.blocks = append(b.blocks, make([]T, 0, BlockLen))
	}
	last := &b.blocks[len(b.blocks)-1]
	*last = append(*last, v)
	b.n++
}

// At is the entry at place i (< Len()).
func (b *Blocks[T]) At(i uint32) T { return b.blocks[i/BlockLen][i%BlockLen] }

// Len is how many entries the list holds.
func (b *Blocks[T]) Len() uint32 { return b.n }

// Spool is where a Spooled list keeps its entries (a hidden file beside
// the results, in the runner): written in order, read at any place.
type Spool interface {
	io.Writer
	io.ReaderAt
}

// Spooled is a list of entries of one size in bytes, kept in a Spool
// rather than in memory: what is learnt of the pages read before is read
// again only when a page's rows come back, and in memory it grows with
// every row of the scan.
type Spooled struct {
	w    *bufio.Writer
	r    io.ReaderAt
	size int
	n    uint32
	buf  []byte
}

// NewSpooled starts an empty list of entries of size bytes in s.
func NewSpooled(s Spool, size int) *Spooled {
	return &Spooled{w: bufio.NewWriter(s), r: s, size: size}
}

// Add appends entry, which must be the list's size: one of another size
// would shift every entry after it.
func (s *Spooled) Add(entry []byte) error {
	if len(entry) != s.size {
		return fmt.Errorf("an entry of %d bytes in a list of %d-byte entries", len(entry), s.size)
	}
	if s.n == math.MaxUint32 {
		return fmt.Errorf("more than %d entries", uint32(math.MaxUint32))
	}
	if _, err := s.w.Write(entry); err != nil {
		return err
	}
	s.n++
	return nil
}

// Read is the entries at places [start, end), end to end: valid until
// the next Read.
func (s *Spooled) Read(start, end uint32) ([]byte, error) {
	if start > end || end > s.n {
		return nil, fmt.Errorf("entries %d to %d of a list of %d", start, end, s.n)
	}
	if err := s.w.Flush(); err != nil {
		return nil, err
	}
	n := int(end-start) * s.size
	if cap(s.buf) < n {
		s.buf = make([]byte, n)
	}
	buf := s.buf[:n]
	if _, err := s.r.ReadAt(buf, int64(start)*int64(s.size)); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF // the spool is shorter than what was written to it
		}
		return nil, err
	}
	return buf, nil
}

// Len is how many entries the list holds.
func (s *Spooled) Len() uint32 { return s.n }

// List is a list of entries kept in order, to read again by place: in
// memory (Held) or in a Spool (InSpool).
type List[T any] interface {
	Add(v T) error
	Len() uint32
	// Each calls fn with each entry at [start, end), in order.
	Each(start, end uint32, fn func(T)) error
}

// Held keeps a List's entries in memory.
type Held[T any] struct{ entries Blocks[T] }

// Add appends v.
func (h *Held[T]) Add(v T) error {
	h.entries.Append(v)
	return nil
}

// Len is how many entries the list holds.
func (h *Held[T]) Len() uint32 { return h.entries.Len() }

// Each calls fn with each entry at [start, end).
func (h *Held[T]) Each(start, end uint32, fn func(T)) error {
	for i := start; i < end; i++ {
		fn(h.entries.At(i))
	}
	return nil
}

// Codec writes an entry into Size bytes (Put) and reads it back (Get).
type Codec[T any] struct {
	Size int
	Put  func([]byte, T)
	Get  func([]byte) T
}

// InSpool keeps a List's entries in a Spool, Codec.Size bytes each.
type InSpool[T any] struct {
	list  *Spooled
	codec Codec[T]
	entry []byte // the entry being added, put here first
}

// NewInSpool starts an empty list in s.
func NewInSpool[T any](s Spool, c Codec[T]) *InSpool[T] {
	return &InSpool[T]{list: NewSpooled(s, c.Size), codec: c, entry: make([]byte, c.Size)}
}

// Add appends v.
func (l *InSpool[T]) Add(v T) error {
	l.codec.Put(l.entry, v)
	return l.list.Add(l.entry)
}

// Len is how many entries the list holds.
func (l *InSpool[T]) Len() uint32 { return l.list.Len() }

// Each calls fn with each entry at [start, end), read back from the spool.
func (l *InSpool[T]) Each(start, end uint32, fn func(T)) error {
	buf, err := l.list.Read(start, end)
	if err != nil {
		return err
	}
	for ; len(buf) > 0; buf = buf[l.codec.Size:] {
		fn(l.codec.Get(buf[:l.codec.Size]))
	}
	return nil
}
