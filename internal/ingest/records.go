package ingest

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

// sparseList holds values set after the fact, by index, in any order: a
// block is made when a value in it is first set, and a value never set is
// the zero value. Made up front, its blocks would all be live at once with
// what was read before, which is then let go.
type sparseList[T any] struct {
	blocks [][]T
}

// set sets the i-th value.
func (l *sparseList[T]) set(i int, v T) {
	b := i >> blockShift
	for len(l.blocks) <= b {
		l.blocks = append(l.blocks, nil)
	}
	if l.blocks[b] == nil {
		l.blocks[b] = make([]T, blockLen)
	}
	l.blocks[b][i&(blockLen-1)] = v
}

// get is the i-th value, or the zero value when it was never set.
func (l *sparseList[T]) get(i int) T {
	if b := i >> blockShift; b < len(l.blocks) && l.blocks[b] != nil {
		return l.blocks[b][i&(blockLen-1)]
	}
	var zero T
	return zero
}
