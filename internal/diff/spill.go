package diff

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
)

// A large comparison keeps its records on disk (Options.SpillDir), split
// by page into partitions, and compares one partition at a time: records
// are compared only within a page and viewport width, an element counts
// once per page, and rows alike in every part are on one page, so a
// partition holds all that any of its records is compared, counted or
// named with. What stays in memory for every issue row is its outcome (16
// bytes: what the rows' listing needs), not its record (48). On a
// million-row scan compared with itself the records were 80 MB of a
// 161 MB peak.

// partitionBytes is how much of the two sides' CSVs one partition covers
// by default: a partition's records are then a few MB.
const partitionBytes = 32 << 20

// maxPartitions bounds a comparison's partitions, and so the files it
// holds open at once (one a side).
const maxPartitions = 64

// partitionsFor is how many partitions an audit whose two CSVs add up to
// size bytes is compared in, per bytes of CSV each: one (in memory) for
// CSVs of less than that.
func partitionsFor(size, per int64) int {
	return int(min(max((size+per-1)/per, 1), maxPartitions))
}

// spilledBytes is the size of a record in a partition's file: what it is
// when read (its partner, state and how are the comparison's, set later).
const spilledBytes = 3*8 + 5*4 + 2

// bucket holds one side's records of one partition: in memory when the
// audit is compared in one partition, else in a file of Options.SpillDir,
// hidden and removed as soon as it is made (so nothing is left behind whatever
// happens), read back when its partition is compared. The baseline's
// records of IssueIDsAudit carry their issue ids (withIDs), read beside
// them from its IssueIDsFile.
type bucket struct {
	mem     recordList
	memIDs  []IssueID
	withIDs bool
	file    *os.File
	w       *bufio.Writer
	n       int
	buf     [spilledBytes + idBytes]byte
}

// add appends r, the side's issue row k, with its id when the bucket
// carries ids.
func (b *bucket) add(r record, k int32, id IssueID) error {
	b.n++
	if b.file == nil {
		b.mem.add(r)
		if b.withIDs {
			b.memIDs = append(b.memIDs, id)
		}
		return nil
	}
	e := b.entry()
	binary.LittleEndian.PutUint64(e[0:], r.html)
	binary.LittleEndian.PutUint64(e[8:], r.target)
	binary.LittleEndian.PutUint64(e[16:], uint64(r.issues))
	for i, v := range [5]int32{r.group, r.rule, r.org, r.impact, k} {
		binary.LittleEndian.PutUint32(e[24+4*i:], uint32(v))
	}
	e[44], e[45] = r.state, r.how
	copy(e[spilledBytes:], id[:])
	_, err := b.w.Write(e)
	return err
}

// entry is the buffer of one record as the bucket's file holds it.
func (b *bucket) entry() []byte {
	if b.withIDs {
		return b.buf[:]
	}
	return b.buf[:spilledBytes]
}

// load reads the bucket's records back into recs, their issue rows'
// numbers into ks (nil for a bucket in memory: there the k-th record is
// the side's issue row k) and their ids into ids (nil when the bucket
// carries none).
func (b *bucket) load(recs *recordList) (ks []int32, ids []IssueID, err error) {
	if b.file == nil {
		*recs, b.mem = b.mem, recordList{}
		ids, b.memIDs = b.memIDs, nil
		if b.withIDs && ids == nil {
			ids = []IssueID{}
		}
		return nil, ids, nil
	}
	*recs = recordList{}
	if err := b.w.Flush(); err != nil {
		return nil, nil, err
	}
	if _, err := b.file.Seek(0, io.SeekStart); err != nil {
		return nil, nil, err
	}
	r := bufio.NewReaderSize(b.file, loadBufferBytes)
	recs.reserve(b.n)
	ks = make([]int32, 0, b.n)
	if b.withIDs {
		ids = make([]IssueID, 0, b.n)
	}
	for range b.n {
		e := b.entry()
		if _, err := io.ReadFull(r, e); err != nil {
			return nil, nil, err
		}
		var v [5]int32
		for i := range v {
			v[i] = int32(binary.LittleEndian.Uint32(e[24+4*i:]))
		}
		recs.add(record{
			html: binary.LittleEndian.Uint64(e[0:]), target: binary.LittleEndian.Uint64(e[8:]),
			issues: int64(binary.LittleEndian.Uint64(e[16:])),
			group:  v[0], rule: v[1], org: v[2], impact: v[3], partner: -1,
			state: e[44], how: e[45],
		})
		ks = append(ks, v[4])
		if b.withIDs {
			ids = append(ids, IssueID(e[spilledBytes:]))
		}
	}
	return ks, ids, nil
}

// loadBufferBytes is the buffer a partition's file is read back through,
// one file at a time: bufio's own 4 KiB made a read call every 85 records.
const loadBufferBytes = 64 << 10

// partitions are one audit's buckets, a side's by partition.
type partitions [2][]bucket

// newPartitions makes n partitions a side: in memory when n is 1, else
// each a file of dir.
func newPartitions(n int, dir string) (partitions, error) {
	var p partitions
	for s := range p {
		p[s] = make([]bucket, n)
		if n == 1 {
			continue
		}
		for i := range p[s] {
			f, err := createRemoved(dir)
			if err != nil {
				p.close()
				return p, err
			}
			p[s][i].file, p[s][i].w = f, bufio.NewWriter(f)
		}
	}
	return p, nil
}

// createRemoved makes a hidden file in dir for the comparison and removes
// it at once: it is read and written through f, and nothing is left
// behind whatever happens.
func createRemoved(dir string) (*os.File, error) {
	f, err := os.CreateTemp(dir, ".cwac-diff-*")
	if err != nil {
		return nil, fmt.Errorf("a file to compare in: %w", err)
	}
	if err := os.Remove(f.Name()); err != nil {
		_ = f.Close() // removing it failed: closing is all that is left
		return nil, fmt.Errorf("a file to compare in: %w", err)
	}
	return f, nil
}

// carryIDs has side s's buckets carry their records' ids.
func (p partitions) carryIDs(s int) {
	for i := range p[s] {
		p[s][i].withIDs = true
	}
}

// close closes the partitions' files (removed already).
func (p partitions) close() {
	for s := range p {
		for i := range p[s] {
			if f := p[s][i].file; f != nil {
				_ = f.Close() // removed: nothing is kept
			}
		}
	}
}

// of is the partition of a record on page.
func (p partitions) of(page int32) int { return int(page) % len(p[0]) }

// outcome is what the comparison found of one issue row, kept by the
// row's number once its record is gone: what the rows' listing needs, in 8
// bytes.
type outcome struct {
	// check folds the record's element HTML, group and issues: the listing
	// reads the CSV again and refuses one that changed meanwhile.
	check      uint32
	state, how uint8
	decided    bool
	// otherDiffers says the matched record's issues are not the row's own
	// (never for CWAC's audits, which write 1 a row): outcomeList.others
	// holds them.
	otherDiffers bool
}

// checkOf folds what outcome.check holds.
func checkOf(html uint64, group int32, issues int64) uint32 {
	return uint32(html) ^ uint32(html>>32) ^ uint32(group)*0x9e3779b1 ^ uint32(issues)*0x85ebca6b
}

// outcomeList is one side's outcomes, in chunks made as they are first
// written.
type outcomeList struct {
	chunks [][]outcome
	n      int
	// others are the matched records' issues where they differ from the
	// row's own, by row.
	others map[int32]int64
}

func newOutcomeList(n int) outcomeList {
	return outcomeList{chunks: make([][]outcome, (n+recordChunk-1)/recordChunk), n: n, others: map[int32]int64{}}
}

// at is the outcome of issue row k (0 ≤ k < n).
func (l *outcomeList) at(k int32) *outcome {
	c := &l.chunks[k>>recordChunkBits]
	if *c == nil {
		*c = make([]outcome, min(recordChunk, l.n-int(k)&^(recordChunk-1)))
	}
	return &(*c)[k&(recordChunk-1)]
}
