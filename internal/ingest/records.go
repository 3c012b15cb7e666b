package ingest

import "math"

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

// issueIDList is the issue each record is matched with, by record index
// (0: none). Store ids are below 2³² in any store this side of billions of
// issues, so they are held in 4 bytes each (3.4 MB less at a million
// rows, at the ingest's peak), and in 8 from the first id that is not.
type issueIDList struct {
	small []uint32
	wide  []int64 // all of them, once one id does not fit in small
}

func newIssueIDList(n int) issueIDList { return issueIDList{small: make([]uint32, n)} }

// get is record i's issue id.
func (l *issueIDList) get(i int) int64 {
	if l.wide != nil {
		return l.wide[i]
	}
	return int64(l.small[i])
}

// set gives record i the issue id.
func (l *issueIDList) set(i int, id int64) {
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
