package ingest

// recordBlock is how many records one block of a recordList holds: 64K
// records, 4 MiB.
const (
	recordBlockShift = 16
	recordBlock      = 1 << recordBlockShift
)

// recordList holds the scan's records in blocks of recordBlock, so that it
// grows without copying: a slice that doubles needs its old and new arrays
// at once, which for a million-row scan was the peak of the ingest's memory.
type recordList struct {
	blocks [][]record
	n      int
}

// add appends a record.
func (l *recordList) add(r record) {
	if l.n&(recordBlock-1) == 0 {
		l.blocks = append(l.blocks, make([]record, 0, recordBlock))
	}
	b := &l.blocks[len(l.blocks)-1]
	*b = append(*b, r)
	l.n++
}

// at is the i-th record, to read or change in place.
func (l *recordList) at(i int) *record { return &l.blocks[i>>recordBlockShift][i&(recordBlock-1)] }

// len is how many records there are.
func (l *recordList) len() int { return l.n }
