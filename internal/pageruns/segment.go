package pageruns

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"
	"sort"

	"github.com/bits-and-blooms/bloom/v3"
)

// segment is a Log's pages of RecentPages runs' time and where each one's
// last run then was, sorted by page, in the spool from start: 16 bytes a
// page.
type segment struct {
	start uint64
	// firsts is the page of every segmentBlock-th entry: the block a page
	// would be in is found in memory, and read alone.
	firsts []uint64
	// filter holds every page of the segment, and says of most others
	// that the segment does not hold them.
	filter *bloom.BloomFilter
}

// segmentEntry is a page and where its last run is.
type segmentEntry struct {
	page uint64
	at   recordAt
}

const (
	segmentEntrySize = 16
	// segmentBlock is how many entries a lookup reads (4 KiB).
	segmentBlock = 256
	// falsePositives is the share of pages a segment does not hold that
	// its filter lets through to a read (about 10 bits a page).
	falsePositives = 0.01
)

// writeSegment writes the recent pages to the spool as a segment, and
// empties them.
func (l *Log[T]) writeSegment() error {
	l.scratch = l.scratch[:0]
	for page, at := range l.recent {
		l.scratch = append(l.scratch, segmentEntry{page, at})
	}
	slices.SortFunc(l.scratch, func(a, b segmentEntry) int { return cmp.Compare(a.page, b.page) })
	s := segment{start: l.at, filter: bloom.NewWithEstimates(uint(len(l.scratch)), falsePositives)}
	var e [segmentEntrySize]byte
	for i, se := range l.scratch {
		if i%segmentBlock == 0 {
			s.firsts = append(s.firsts, se.page)
		}
		binary.LittleEndian.PutUint64(e[:8], se.page)
		binary.LittleEndian.PutUint64(e[8:], se.at)
		s.filter.Add(e[:8])
		if err := l.write(e[:]); err != nil {
			return err
		}
	}
	l.segments = append(l.segments, s)
	clear(l.recent)
	return nil
}

// inSegments is where the page's last run is, from the newest segment
// that holds the page (0: none).
func (l *Log[T]) inSegments(page uint64) (recordAt, error) {
	if len(l.segments) == 0 {
		return 0, nil
	}
	var key [8]byte
	binary.LittleEndian.PutUint64(key[:], page)
	// Every segment's filter has as many hashes (they hold as many pages),
	// so the page's places are worked out once.
	locations := bloom.Locations(key[:], l.segments[0].filter.K())
	for i := len(l.segments) - 1; i >= 0; i-- {
		s := &l.segments[i]
		if !s.filter.TestLocations(locations) {
			continue
		}
		at, err := l.inSegment(s, page)
		if err != nil || at != 0 {
			return at, err
		}
	}
	return 0, nil
}

// inSegment is where the page's last run is in the segment (0: not there).
func (l *Log[T]) inSegment(s *segment, page uint64) (recordAt, error) {
	b, found := slices.BinarySearch(s.firsts, page)
	if !found {
		b-- // the block before the first page past it
	}
	if b < 0 {
		return 0, nil
	}
	// Every block is whole: a segment holds RecentPages pages.
	start := s.start + uint64(b)*segmentBlock*segmentEntrySize
	block, err := l.read(start, segmentBlock*segmentEntrySize)
	if err != nil {
		return 0, err
	}
	i := sort.Search(segmentBlock, func(i int) bool {
		return binary.LittleEndian.Uint64(block[i*segmentEntrySize:]) >= page
	})
	if i == segmentBlock || binary.LittleEndian.Uint64(block[i*segmentEntrySize:]) != page {
		return 0, nil
	}
	at := binary.LittleEndian.Uint64(block[i*segmentEntrySize+8:])
	if at == 0 || at-1+runRecordSize > s.start { // a run's record lies wholly before its segment
		return 0, fmt.Errorf("a segment's entry at byte %d of the spool is not one this log wrote", start+uint64(i)*segmentEntrySize)
	}
	return at, nil
}

// Every segment's blocks are whole: this fails to build unless RecentPages
// is a multiple of segmentBlock.
const _ = -uint(RecentPages % segmentBlock)
