package diff

import (
	"bufio"
	"fmt"
	"io"
	"os"
)

// auditIDs are the issue ids of IssueIDsAudit's issue rows while the audit
// is compared: the partition's by record, and those of the partitions
// compared before it. Compared in one partition, its records are its rows
// and the ids stay in memory. In several, each partition's ids go to a file
// of Options.SpillDir when it is done, a segment a side, and are read back
// in the rows' order: a row's partition is its page's, which the listing
// knows from the row and the scan's list from partOf. So a million rows a
// side hold no id in memory past their partition's (they were 27 MB of
// the comparison's peak).
type auditIDs struct {
	// known says the side's ids are known: the baseline's when its
	// IssueIDsFile names its rows, the scan's once named.
	known [2]bool
	// part are the ids of the partition being compared, by record (nil
	// for a side whose ids are not known).
	part [2][]IssueID
	// file holds the segments of the partitions compared (several
	// partitions), written through w.
	file *os.File
	w    *bufio.Writer
	off  int64
	segs [2][]idSegment
	// partOf is the partition of each of the scan's issue rows, in file
	// order (several partitions).
	partOf []uint8
}

// idSegment is where one partition's ids of one side lie in auditIDs.file.
type idSegment struct {
	off int64
	n   int
}

// idBytes is the size of an id in the comparison's files.
const idBytes = len(IssueID{})

// keep keeps partition p's ids once it is compared: with several
// partitions, in their file (made in dir at the first), and lets them go.
func (ids *auditIDs) keep(p, parts int, dir string) error {
	if parts == 1 {
		return nil
	}
	if ids.file == nil {
		f, err := createRemoved(dir)
		if err != nil {
			return err
		}
		ids.file, ids.w = f, bufio.NewWriter(f)
		for s := range ids.segs {
			ids.segs[s] = make([]idSegment, parts)
		}
	}
	for s, part := range ids.part {
		ids.segs[s][p] = idSegment{off: ids.off, n: len(part)}
		for _, id := range part {
			if _, err := ids.w.Write(id[:]); err != nil {
				return err
			}
		}
		ids.off += int64(len(part) * idBytes)
		ids.part[s] = nil
	}
	return nil
}

// close lets the partitions' file go.
func (ids *auditIDs) close() {
	if ids.file != nil {
		_ = ids.file.Close() // removed: nothing is kept
		ids.file = nil
	}
}

// rowIDs reads one side's ids back in the rows' order (auditIDs.reader).
type rowIDs struct {
	ids  *auditIDs
	side int
	k    int             // the next row (one partition)
	rds  []*bufio.Reader // by partition (several)
}

// reader reads side s's ids back in file order, each row's from its
// partition; nil when the side's ids are not known.
func (ids *auditIDs) reader(s int) (*rowIDs, error) {
	if !ids.known[s] {
		return nil, nil
	}
	r := &rowIDs{ids: ids, side: s}
	if ids.file == nil {
		return r, nil
	}
	if err := ids.w.Flush(); err != nil {
		return nil, err
	}
	r.rds = make([]*bufio.Reader, len(ids.segs[s]))
	for p, seg := range ids.segs[s] {
		r.rds[p] = bufio.NewReaderSize(io.NewSectionReader(ids.file, seg.off, int64(seg.n*idBytes)), 1024)
	}
	return r, nil
}

// next is the id of the side's next issue row, which is in partition p
// (the caller reads no more rows than the side has).
func (r *rowIDs) next(p int) (IssueID, error) {
	var id IssueID
	if r.rds == nil {
		r.k++
		return r.ids.part[r.side][r.k-1], nil
	}
	if _, err := io.ReadFull(r.rds[p], id[:]); err != nil {
		return id, fmt.Errorf("reading its issue ids back from their file: %w", err)
	}
	return id, nil
}

// list is the scan's ids in file order, as Result.IssueIDs keeps them:
// with several partitions, gathered from their segments into a file of
// dir by partOf.
func (ids *auditIDs) list(dir string) (*IssueIDList, error) {
	if ids.file == nil {
		return IssueIDListOf(ids.part[curSide]), nil
	}
	rd, err := ids.reader(curSide)
	if err != nil {
		return nil, err
	}
	f, err := createRemoved(dir)
	if err != nil {
		return nil, err
	}
	w := bufio.NewWriter(f)
	for _, p := range ids.partOf {
		id, err := rd.next(int(p))
		if err == nil {
			_, err = w.Write(id[:])
		}
		if err != nil {
			_ = f.Close() // removed: nothing is kept
			return nil, err
		}
	}
	if err := w.Flush(); err != nil {
		_ = f.Close() // removed: nothing is kept
		return nil, err
	}
	return &IssueIDList{file: f, n: len(ids.partOf)}, nil
}
