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
