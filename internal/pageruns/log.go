package pageruns

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
)

// Log is a list of entries of one type, added in runs, each run of one
// page (a 64-bit hash of it: pages whose hashes are alike share their
// runs, and a caller's entries name their page, so another page's found
// with a page's own match none of its rows), kept in a Spool.
//
// The spool holds, in the order written: each run's entries followed by
// its record (how many entries, and where the page's run before it is),
// and, every RecentPages pages, a segment: those pages and where each one's
// last run is, sorted by page. In memory the Log holds the pages of the
// runs since the last segment, and for each segment every
// segmentBlock-th page and a filter that says which pages it cannot
// hold: finding a page never seen before reads nothing back, and finding
// one that comes back reads one block of a segment and its runs.
type Log[T any] struct {
	w     *bufio.Writer
	r     io.ReaderAt
	codec Codec[T]
	entry []byte // the entry being added, put here first
	buf   []byte // what was read last

	at    uint64 // bytes written
	n     uint32 // entries added
	inRun uint32 // entries added since the last run ended

	recent   map[uint64]uint64 // pages of the runs since the last segment: page → its last run (recordAt)
	segments []segment         // oldest first
	scratch  []segmentEntry    // the recent pages, sorted, while a segment is written

	// The page last found and where its last run was: the run that
	// follows a lookup is nearly always of the page just looked up.
	found     uint64
	foundAt   recordAt
	foundSome bool
}

// recordAt is where a run's record starts in the spool, plus one: 0 is no
// run.
type recordAt = uint64

// runRecordSize is the size of a run's record: its entries (4 bytes) and
// the page's run before it (recordAt, 8 bytes).
const runRecordSize = 12

// RecentPages is how many pages' last runs are held in memory before they
// are written as a segment (about 1 MB of map): every segment holds as
// many.
const RecentPages = 1 << 15

// NewLog starts an empty log in s.
func NewLog[T any](s Spool, c Codec[T]) *Log[T] {
	return &Log[T]{
		w: bufio.NewWriter(s), r: s, codec: c, entry: make([]byte, c.Size),
		recent: map[uint64]uint64{},
	}
}

// Len is how many entries the log holds, the run being added included.
func (l *Log[T]) Len() uint32 { return l.n }

// Add appends v to the run being added.
func (l *Log[T]) Add(v T) error {
	if l.n == math.MaxUint32 {
		return fmt.Errorf("more than %d entries", uint32(math.MaxUint32))
	}
	l.codec.Put(l.entry, v)
	if err := l.write(l.entry); err != nil {
		return err
	}
	l.n++
	l.inRun++
	return nil
}

// EndRun records the entries added since the last run ended as a run of
// page; none is no run.
func (l *Log[T]) EndRun(page uint64) error {
	if l.inRun == 0 {
		return nil
	}
	prev, err := l.last(page)
	if err != nil {
		return err
	}
	at := l.at + 1
	var rec [runRecordSize]byte
	binary.LittleEndian.PutUint32(rec[:4], l.inRun)
	binary.LittleEndian.PutUint64(rec[4:], prev)
	if err := l.write(rec[:]); err != nil {
		return err
	}
	l.inRun = 0
	l.recent[page] = at
	l.found, l.foundAt, l.foundSome = page, at, true
	if len(l.recent) >= RecentPages {
		return l.writeSegment()
	}
	return nil
}

// Each calls fn with each entry of the page's runs, latest run first,
// each run's in the order added. The run being added is not among them.
func (l *Log[T]) Each(page uint64, fn func(T)) error {
	at, err := l.last(page)
	if err != nil {
		return err
	}
	for at != 0 {
		rec, err := l.read(at-1, runRecordSize)
		if err != nil {
			return err
		}
		count, prev := binary.LittleEndian.Uint32(rec), binary.LittleEndian.Uint64(rec[4:])
		size := uint64(count) * uint64(l.codec.Size)
		if count == 0 || size > at-1 || prev >= at {
			return fmt.Errorf("a run's record at byte %d of the spool is not one this log wrote", at-1)
		}
		entries, err := l.read(at-1-size, int(size))
		if err != nil {
			return err
		}
		for ; len(entries) > 0; entries = entries[l.codec.Size:] {
			fn(l.codec.Get(entries[:l.codec.Size]))
		}
		at = prev
	}
	return nil
}

// last is where the page's last run is (0: none).
func (l *Log[T]) last(page uint64) (recordAt, error) {
	if l.foundSome && l.found == page {
		return l.foundAt, nil
	}
	at, ok := l.recent[page]
	if !ok {
		var err error
		if at, err = l.inSegments(page); err != nil {
			return 0, err
		}
	}
	l.found, l.foundAt, l.foundSome = page, at, true
	return at, nil
}

// write appends p to the spool.
func (l *Log[T]) write(p []byte) error {
	if _, err := l.w.Write(p); err != nil {
		return err
	}
	l.at += uint64(len(p))
	return nil
}

// read reads n bytes at off of what was written: valid until the next read.
func (l *Log[T]) read(off uint64, n int) ([]byte, error) {
	if off+uint64(n) > l.at {
		return nil, fmt.Errorf("bytes %d to %d of a spool of %d", off, off+uint64(n), l.at)
	}
	if err := l.w.Flush(); err != nil {
		return nil, err
	}
	l.buf = slices.Grow(l.buf[:0], n)[:n]
	buf := l.buf
	if _, err := l.r.ReadAt(buf, int64(off)); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF // the spool is shorter than what was written to it
		}
		return nil, err
	}
	return buf, nil
}
