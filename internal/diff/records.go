package diff

// recordList is one side's records of an audit, in chunks of at most
// recordChunk: growing it never copies what it already holds. A slice that
// grows by append holds its old array and the new one at once, and on a
// million-row scan that was the comparison's peak (243 MiB resident, 172
// MiB with each side's records allocated once at their final size).
type recordList struct {
	chunks [][]record
	n      int
}

// recordChunk is a chunk's most records (48 bytes each: 768 KiB). The
// first chunk grows by append from nothing, so a short list (one page's
// elements in MatchElements) costs what its records do.
const (
	recordChunkBits = 14
	recordChunk     = 1 << recordChunkBits
)

// len is the number of records.
func (l *recordList) len() int { return l.n }

// at is record i (0 ≤ i < len).
func (l *recordList) at(i int32) *record {
	return &l.chunks[i>>recordChunkBits][i&(recordChunk-1)]
}

// reserve makes room for n records in an empty list's first chunk, whose
// appends would otherwise copy it as it grows: a partition read back from
// its file knows its count, and growing its first chunk from nothing was a
// twentieth of a million-row comparison.
func (l *recordList) reserve(n int) {
	if len(l.chunks) == 0 && n > 0 {
		l.chunks = append(l.chunks, make([]record, 0, min(n, recordChunk)))
	}
}

// add appends r.
func (l *recordList) add(r record) {
	switch {
	case len(l.chunks) == 0:
		l.chunks = append(l.chunks, nil) // grows as records come
	case l.n > 0 && l.n&(recordChunk-1) == 0: // reserve may have made the first
		l.chunks = append(l.chunks, make([]record, 0, recordChunk))
	}
	last := &l.chunks[len(l.chunks)-1]
	*last = append(*last, r)
	l.n++
}
