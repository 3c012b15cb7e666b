package ingest

import (
	"fmt"
	"math"
	"strings"
)

// blockShift sets how many values one block of a blockList holds: 64K
// (3 MiB of records).
const (
	blockShift = 16
	blockLen   = 1 << blockShift
)

// blockList holds values in blocks of blockLen, so that it grows without
// copying: a slice that doubles needs its old and new arrays at once, which
// for a million-row scan was the peak of the ingest's memory, and leaves
// the old ones for the collector.
type blockList[T any] struct {
	blocks [][]T
	n      int
}

// add appends a value.
func (l *blockList[T]) add(v T) {
	if l.n&(blockLen-1) == 0 {
		l.blocks = append(l.blocks, make([]T, 0, blockLen))
	}
	b := &l.blocks[len(l.blocks)-1]
	*b = append(*b, v)
	l.n++
}

// at is the i-th value, to read or change in place.
func (l *blockList[T]) at(i int) *T { return &l.blocks[i>>blockShift][i&(blockLen-1)] }

// len is how many values there are.
func (l *blockList[T]) len() int { return l.n }

// slice moves the values into one slice of their exact number and leaves
// the list empty: its blocks and the slice are held at once while it
// copies, never a doubled array.
func (l *blockList[T]) slice() []T {
	out := make([]T, 0, l.n)
	for i, b := range l.blocks {
		out = append(out, b...)
		l.blocks[i] = nil
	}
	*l = blockList[T]{}
	return out
}

// storeIDList holds a store id for each of a list of things by index
// (0: none): the issue each record is matched with, the page each page of
// the scan is. Store ids are below 2³² in any store this side of billions
// of issues, so they are held in 4 bytes each (3.4 MB less at a million
// rows, at the ingest's peak), and in 8 from the first id that is not.
type storeIDList struct {
	small []uint32
	wide  []int64 // all of them, once one id does not fit in small
}

func newStoreIDList(n int) storeIDList { return storeIDList{small: make([]uint32, n)} }

// get is the i-th id.
func (l *storeIDList) get(i int) int64 {
	if l.wide != nil {
		return l.wide[i]
	}
	return int64(l.small[i])
}

// set sets the i-th id.
func (l *storeIDList) set(i int, id int64) {
	if l.wide == nil && id >= 0 && id <= math.MaxUint32 {
		l.small[i] = uint32(id)
		return
	}
	if l.wide == nil {
		l.wide = make([]int64, len(l.small))
		for j, v := range l.small {
			l.wide[j] = int64(v)
		}
		l.small = nil
	}
	l.wide[i] = id
}

// textBlockShift sets the size of a textArena's blocks: 256 KiB.
const (
	textBlockShift = 18
	textBlockLen   = 1 << textBlockShift
	// maxTextBlocks is as many blocks as a 32-bit position reaches (4 GiB
	// of text, far past what a scan's page keys fill before its rows
	// reach maxRows).
	maxTextBlocks = 1 << (32 - textBlockShift)
)

// textArena keeps short strings end to end in blocks, each one allocation,
// and finds one by a 4-byte position: a scan has a page for every few
// issue rows, and a string of its own for each page's key cost its 16-byte
// header and its allocation's rounding besides its bytes.
type textArena struct {
	full []string        // the blocks filled
	cur  strings.Builder // the block being filled (grown once to textBlockLen): what it wrote is never changed
}

// add keeps s (at most textBlockLen bytes) and says where.
func (a *textArena) add(s string) (uint32, error) {
	if len(s) > textBlockLen {
		return 0, fmt.Errorf("a text of %d bytes is longer than %d", len(s), textBlockLen)
	}
	if a.cur.Cap() == 0 || a.cur.Len()+len(s) > textBlockLen {
		if a.cur.Cap() > 0 {
			a.full = append(a.full, a.cur.String())
		}
		if len(a.full) >= maxTextBlocks {
			return 0, fmt.Errorf("more than %d bytes of page keys: too many pages to ingest", int64(maxTextBlocks)*textBlockLen)
		}
		a.cur.Reset()
		a.cur.Grow(textBlockLen)
	}
	at := uint32(len(a.full))<<textBlockShift | uint32(a.cur.Len())
	a.cur.WriteString(s)
	return at, nil
}

// text is the n bytes kept at position at.
func (a *textArena) text(at uint32, n int) string {
	block, off := int(at>>textBlockShift), int(at&(textBlockLen-1))
	if block == len(a.full) {
		return a.cur.String()[off : off+n]
	}
	return a.full[block][off : off+n]
}

// pageTableMin is a pageTable's first size.
const pageTableMin = 1024

// pageTable finds a page while the scan is read: a power-of-two table of
// slots (pageSlot) kept at most three quarters full, probed in turn from
// the page's hash. 4 to 8 bytes a page, where a map from the pages' hashes
// to their indexes took about 28; pages whose hashes are the same are each
// in a slot of their own.
type pageTable struct {
	slots []pageSlot
	n     int
}

// pageSlot is a page's index plus one (0: an empty slot) in its low 24
// bits, and its hash's top 8 in the rest: most pages probed past are
// told apart by those, without reading the page.
type pageSlot uint32

const (
	slotPageBits = 24
	slotPageMask = 1<<slotPageBits - 1
)

// maxTablePages is as many pages as a slot numbers.
const maxTablePages = slotPageMask - 1

func (s *pageSlot) used() bool  { return *s&slotPageMask != 0 }
func (s *pageSlot) page() int32 { return int32(*s&slotPageMask) - 1 }
func slotTag(h uint64) pageSlot { return pageSlot(h>>56) << slotPageBits }

// set puts page id, whose hash is h, in the slot.
func (s *pageSlot) set(id int32, h uint64) { *s = slotTag(h) | pageSlot(id+1) }

// find is the slot of the page same says is the one sought (the argument
// is a page's index), or the empty slot where that page goes: set it,
// then call added.
func (t *pageTable) find(h uint64, same func(int32) bool) *pageSlot {
	if t.slots == nil {
		t.slots = make([]pageSlot, pageTableMin)
	}
	mask, tag := uint64(len(t.slots)-1), slotTag(h)
	for i := h & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if !s.used() || *s&^slotPageMask == tag && same(s.page()) {
			return s
		}
	}
}

// added counts a page set in the slot find gave, and doubles the table
// when it is three quarters full, placing each page again by its hash
// (hashOf).
func (t *pageTable) added(hashOf func(int32) uint64) {
	t.n++
	if 4*t.n <= 3*len(t.slots) {
		return
	}
	old := t.slots
	t.slots = make([]pageSlot, 2*len(old))
	mask := uint64(len(t.slots) - 1)
	for _, s := range old {
		if !s.used() {
			continue
		}
		i := hashOf(s.page()) & mask
		for t.slots[i].used() {
			i = (i + 1) & mask
		}
		t.slots[i] = s
	}
}
