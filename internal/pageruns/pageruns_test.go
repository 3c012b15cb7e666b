package pageruns

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"
)

// entryCodec writes a test's entries (uint32) as 4 bytes.
var entryCodec = Codec[uint32]{Size: 4, Put: binary.LittleEndian.PutUint32, Get: binary.LittleEndian.Uint32}

// spoolKinds makes a spool of each kind: in memory, and a file.
func spoolKinds(t *testing.T) map[string]func() Spool {
	return map[string]func() Spool{
		"in memory": func() Spool { return &Memory{} },
		"a file": func() Spool {
			f, err := os.CreateTemp(t.TempDir(), "spool")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = f.Close() })
			return f
		},
	}
}

// logOf reads back a page's entries.
func logOf(t *testing.T, l *Log[uint32], page uint64) []uint32 {
	t.Helper()
	var out []uint32
	if err := l.Each(page, func(v uint32) { out = append(out, v) }); err != nil {
		t.Fatalf("page %d: %v", page, err)
	}
	return out
}

// spread spreads a test's pages over the 64 bits, as hashes are.
var spread uint64 = 0x9e3779b97f4a7c15

// run is a run of a test: its page and its entries.
type run struct {
	page    uint64
	entries []uint32
}

// model is what a Log should give back: each page's entries, latest run
// first, each run's in the order added.
type model map[uint64][]uint32

func (m model) add(r run) { m[r.page] = append(append([]uint32(nil), r.entries...), m[r.page]...) }

// A page's entries come back latest run first, whatever other pages' runs
// lie between, the pages held in memory and those written in segments
// alike; an empty run is no run; the run being added is not among them.
func TestLogRunsOfAPage(t *testing.T) {
	pastSegments := make([]run, 0, 3*RecentPages)
	for i := range uint32(2*RecentPages + 7) {
		pastSegments = append(pastSegments, run{page: uint64(i) * spread, entries: []uint32{i}})
		if i%5000 == 0 { // the first page back, in memory or from a segment
			pastSegments = append(pastSegments, run{page: 0, entries: []uint32{i, i + 1}})
		}
	}
	cases := []struct {
		name string
		runs []run
		ask  []uint64
	}{
		{name: "none", ask: []uint64{0, 1}},
		{name: "one page", runs: []run{{1, []uint32{1, 2, 3}}}, ask: []uint64{1, 2}},
		{name: "pages in turn", runs: []run{{1, []uint32{1}}, {2, []uint32{2, 3}}, {3, []uint32{4}}}, ask: []uint64{1, 2, 3}},
		{
			name: "a page that comes back",
			runs: []run{{1, []uint32{1, 2}}, {2, []uint32{3}}, {1, []uint32{4}}, {2, []uint32{5, 6}}, {1, []uint32{7, 8, 9}}},
			ask:  []uint64{1, 2},
		},
		{name: "empty runs", runs: []run{{1, nil}, {2, []uint32{1}}, {1, nil}, {3, nil}}, ask: []uint64{1, 2, 3}},
		{name: "the same page twice in a row", runs: []run{{1, []uint32{1}}, {1, []uint32{2}}}, ask: []uint64{1}},
		{
			name: "past segments", runs: pastSegments,
			ask: []uint64{0, pastSegments[1].page, pastSegments[RecentPages+3].page, pastSegments[len(pastSegments)-1].page, 1},
		},
	}
	for kind, newSpool := range spoolKinds(t) {
		for _, c := range cases {
			l := NewLog(newSpool(), entryCodec)
			want := model{}
			total := uint32(0)
			for _, r := range c.runs {
				for _, e := range r.entries {
					if err := l.Add(e); err != nil {
						t.Fatal(err)
					}
				}
				if err := l.EndRun(r.page); err != nil {
					t.Fatal(err)
				}
				want.add(r)
				total += uint32(len(r.entries))
			}
			if err := l.Add(99); err != nil { // the run being added
				t.Fatal(err)
			}
			for _, page := range c.ask {
				if got := logOf(t, l, page); !reflect.DeepEqual(got, want[page]) {
					t.Errorf("%s, %s: page %x: %v, want %v", kind, c.name, page, short(got), short(want[page]))
				}
			}
			if l.Len() != total+1 {
				t.Errorf("%s, %s: %d entries, want %d", kind, c.name, l.Len(), total+1)
			}
		}
	}
}

// short is at most the first ten of a list, for a message.
func short(v []uint32) []uint32 { return v[:min(len(v), 10)] }

// Runs of pages drawn at random, many coming back across segments, each
// looked up as it begins: the log gives back what a map of every page's
// entries gives.
func TestLogAsAModel(t *testing.T) {
	random := rand.New(rand.NewPCG(3, 4))
	l := NewLog(&Memory{}, entryCodec)
	want := model{}
	next := uint32(0)
	for step := range 5*RecentPages + 500 {
		page := random.Uint64N(4 * RecentPages) // many of them come back, at random
		if step%7 == 0 {
			page = random.Uint64N(50) // a few come back often
		}
		if got := logOf(t, l, page); !reflect.DeepEqual(got, want[page]) {
			t.Fatalf("step %d: page %d: %v, want %v", step, page, short(got), short(want[page]))
		}
		r := run{page: page}
		for range random.IntN(3) {
			r.entries = append(r.entries, next)
			next++
		}
		for _, e := range r.entries {
			if err := l.Add(e); err != nil {
				t.Fatal(err)
			}
		}
		if err := l.EndRun(page); err != nil {
			t.Fatal(err)
		}
		want.add(r)
	}
	if len(l.segments) < 2 {
		t.Fatalf("%d segments written, want a few", len(l.segments))
	}
}

// countingSpool counts its reads.
type countingSpool struct {
	Memory
	reads int
}

func (c *countingSpool) ReadAt(p []byte, off int64) (int, error) {
	c.reads++
	return c.Memory.ReadAt(p, off)
}

// A page never seen before reads nothing back, but for the few a
// segment's filter lets through; a page that comes back from a segment
// reads its block once, for the lookup and the run after it, and its runs.
func TestLogReadsLittle(t *testing.T) {
	s := &countingSpool{}
	l := NewLog(s, entryCodec)
	pages := 3 * RecentPages
	for i := range pages {
		page := uint64(i) * spread
		if got := logOf(t, l, page); got != nil {
			t.Fatalf("new page %d: %v", i, got)
		}
		if err := l.Add(uint32(i)); err != nil {
			t.Fatal(err)
		}
		if err := l.EndRun(page); err != nil {
			t.Fatal(err)
		}
	}
	if len(l.segments) != 3 || s.reads > pages/8 {
		t.Errorf("%d new pages: %d segments, %d reads; want 3, and reads for a few pages only", pages, len(l.segments), s.reads)
	}
	s.reads = 0
	five := 5 * spread
	if got := logOf(t, l, five); !reflect.DeepEqual(got, []uint32{5}) {
		t.Fatalf("page 5 back: %v", got)
	}
	if err := l.Add(7); err != nil {
		t.Fatal(err)
	}
	if err := l.EndRun(five); err != nil {
		t.Fatal(err)
	}
	if s.reads > 3 { // the block, the run (and at most two blocks let through by the newer segments' filters)
		t.Errorf("a page back from the first segment: %d reads", s.reads)
	}
}

// failingSpool fails its writes, or its reads, with err; a read that
// succeeds gives what was written (for a spool that goes wrong later).
type failingSpool struct {
	Memory
	writes, reads bool
	err           error
}

func (f *failingSpool) Write(b []byte) (int, error) {
	if f.writes {
		return 0, f.err
	}
	return f.Memory.Write(b)
}

func (f *failingSpool) ReadAt(p []byte, off int64) (int, error) {
	if f.reads {
		return 0, f.err
	}
	return f.Memory.ReadAt(p, off)
}

// fill adds pages runs of 100 entries each (bufio holds 4 KiB until a
// read), of pages 0, 1, ….
func fill(l *Log[uint32], pages int) error {
	for i := range pages {
		for e := range 100 {
			if err := l.Add(uint32(e)); err != nil {
				return err
			}
		}
		if err := l.EndRun(uint64(i)); err != nil {
			return err
		}
	}
	return nil
}

// A spool that fails fails the log with its error; one that ends early is
// short, not at its end.
func TestLogSpoolFailing(t *testing.T) {
	t.Run("writes fail", func(t *testing.T) {
		l := NewLog(&failingSpool{writes: true, err: errors.New("disk full")}, entryCodec)
		if err := fill(l, 20); err == nil || err.Error() != "disk full" {
			t.Errorf("error %v, want disk full", err)
		}
	})
	for name, tc := range map[string]struct {
		err  error
		want string
	}{
		"reads fail":      {errors.New("disk gone"), "disk gone"},
		"reads end early": {io.EOF, io.ErrUnexpectedEOF.Error()},
	} {
		t.Run(name, func(t *testing.T) {
			s := &failingSpool{err: tc.err}
			l := NewLog(s, entryCodec)
			if err := fill(l, 2); err != nil {
				t.Fatal(err)
			}
			s.reads = true
			if err := l.Each(0, func(uint32) {}); err == nil || err.Error() != tc.want {
				t.Errorf("error %v, want %s", err, tc.want)
			}
		})
	}
	t.Run("a read past what was written", func(t *testing.T) {
		l := NewLog(&Memory{}, entryCodec)
		if _, err := l.read(0, 1); err == nil || err.Error() != "bytes 0 to 1 of a spool of 0" {
			t.Errorf("error %v", err)
		}
	})
}

// A spool that gives back what this log did not write is said to: a run's
// record of more entries than lie before it, or whose page's run before
// it is not before it; a segment's entry whose run is not wholly before
// the segment.
func TestLogSpoolChanged(t *testing.T) {
	t.Run("a run's record changed", func(t *testing.T) {
		s := &Memory{}
		l := NewLog(s, entryCodec)
		if err := fill(l, 2); err != nil {
			t.Fatal(err)
		}
		if err := l.w.Flush(); err != nil {
			t.Fatal(err)
		}
		binary.LittleEndian.PutUint32(s.chunks[0][400:], 1<<30) // page 0's record: more entries than came before it
		if err := l.Each(0, func(uint32) {}); err == nil || !strings.Contains(err.Error(), "a run's record at byte 400 of the spool is not one this log wrote") {
			t.Errorf("error %v", err)
		}
	})
	// A record of one entry more than lie before it, in a log of 1-byte
	// entries (a record's place is then any number), and one whose page's
	// run before it is itself (a loop).
	byteCodec := Codec[byte]{Size: 1, Put: func(b []byte, v byte) { b[0] = v }, Get: func(b []byte) byte { return b[0] }}
	for name, change := range map[string]func(rec []byte){
		"one entry too many": func(rec []byte) { binary.LittleEndian.PutUint32(rec, 6) },
		"its own run before": func(rec []byte) { binary.LittleEndian.PutUint64(rec[4:], 6) },
	} {
		t.Run(name, func(t *testing.T) {
			s := &Memory{}
			l := NewLog(s, byteCodec)
			for _, b := range []byte("abcde") {
				if err := l.Add(b); err != nil {
					t.Fatal(err)
				}
			}
			if err := l.EndRun(1); err != nil {
				t.Fatal(err)
			}
			if err := l.w.Flush(); err != nil {
				t.Fatal(err)
			}
			change(s.chunks[0][5:]) // the record, at byte 5
			if err := l.Each(1, func(byte) {}); err == nil || err.Error() != "a run's record at byte 5 of the spool is not one this log wrote" {
				t.Errorf("error %v", err)
			}
		})
	}
	t.Run("a segment's entry changed", func(t *testing.T) {
		s := &Memory{}
		l := NewLog(s, entryCodec)
		for i := range RecentPages {
			if err := l.Add(1); err != nil {
				t.Fatal(err)
			}
			if err := l.EndRun(uint64(i)); err != nil {
				t.Fatal(err)
			}
		}
		if err := l.w.Flush(); err != nil {
			t.Fatal(err)
		}
		// The last run before the segment lies just before it (found in
		// the segment, once another page was looked up since its run).
		if got := logOf(t, l, 1); !reflect.DeepEqual(got, []uint32{1}) {
			t.Errorf("page 1: %v", got)
		}
		if got := logOf(t, l, RecentPages-1); !reflect.DeepEqual(got, []uint32{1}) {
			t.Errorf("the last page before the segment: %v", got)
		}
		// Pages 0 and 300's entries (the first and second blocks): a run
		// whose record would end a byte into the segment, and one at 0.
		start := l.segments[0].start
		for page, at := range map[uint64]uint64{0: start - runRecordSize + 2, 300: 0} {
			entry := start + page*segmentEntrySize
			binary.LittleEndian.PutUint64(s.chunks[(entry+8)/memoryChunk][(entry+8)%memoryChunk:], at)
			want := fmt.Sprintf("a segment's entry at byte %d of the spool is not one this log wrote", entry)
			if err := l.Each(page, func(uint32) {}); err == nil || err.Error() != want {
				t.Errorf("page %d: error %v, want %s", page, err, want)
			}
		}
	})
}

// Memory keeps what is written across its chunks and reads any part of
// it; a read past its end is short, with io.EOF.
func TestMemory(t *testing.T) {
	var m Memory
	want := make([]byte, 3*memoryChunk+17)
	for i := range want {
		want[i] = byte(i * 7)
	}
	for rest := want; len(rest) > 0; {
		n := min(len(rest), 1000+len(rest)%5000)
		if w, err := m.Write(rest[:n]); w != n || err != nil {
			t.Fatalf("write of %d: %d, %v", n, w, err)
		}
		rest = rest[n:]
	}
	for _, r := range []struct{ off, n int }{{0, len(want)}, {memoryChunk - 3, 10}, {5, 0}, {2*memoryChunk + 1, memoryChunk + 16}} {
		got := make([]byte, r.n)
		if n, err := m.ReadAt(got, int64(r.off)); n != r.n || err != nil || !bytes.Equal(got, want[r.off:r.off+r.n]) {
			t.Errorf("read of %d at %d: %d, %v", r.n, r.off, n, err)
		}
	}
	got := make([]byte, 20)
	if n, err := m.ReadAt(got, int64(len(want)-5)); n != 5 || err != io.EOF || !bytes.Equal(got[:5], want[len(want)-5:]) {
		t.Errorf("a read past the end: %d, %v", n, err)
	}
	if n, err := m.ReadAt(got, int64(len(want))+3); n != 0 || err != io.EOF {
		t.Errorf("a read after the end: %d, %v", n, err)
	}
	if _, err := m.ReadAt(got, -1); err == nil {
		t.Error("a read before the start: no error")
	}
}
