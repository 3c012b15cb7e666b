package diff

import (
	"bufio"
	"fmt"
	"io"
	"os"
)

// IssueIDList is the ids of a scan's issue rows in file order
// (Result.IssueIDs): in memory, or, from a comparison with
// Options.SpillDir, in a file there (16 bytes an id, removed as soon as it
// was made), so that a million rows' ids (16 MB) are not held while the
// runner writes its reports. Close lets the file go.
type IssueIDList struct {
	mem  []IssueID
	file *os.File // nil: in mem
	n    int
}

// IssueIDListOf is ids as a list (in memory; the list reads ids, which the
// caller does not change).
func IssueIDListOf(ids []IssueID) *IssueIDList {
	return &IssueIDList{mem: ids, n: len(ids)}
}

// Len is the number of ids.
func (l *IssueIDList) Len() int { return l.n }

// Close lets the list's file go (nothing for a list in memory).
func (l *IssueIDList) Close() error {
	if l.file == nil {
		return nil
	}
	err := l.file.Close()
	l.file = nil
	return err
}

// Reader reads the list from its first id; readers are independent.
func (l *IssueIDList) Reader() *IssueIDListReader {
	r := &IssueIDListReader{list: l}
	if l.file != nil {
		r.rd = bufio.NewReader(io.NewSectionReader(l.file, 0, int64(l.n)*int64(len(IssueID{}))))
	}
	return r
}

// IssueIDListReader reads an IssueIDList in order.
type IssueIDListReader struct {
	list *IssueIDList
	rd   *bufio.Reader // nil: the list is in memory
	next int
	err  error
}

// Next returns the next id; false past the last, or at an error reading the
// list's file (Err says which).
func (r *IssueIDListReader) Next() (IssueID, bool) {
	var id IssueID
	if r.err != nil || r.next >= r.list.n {
		return id, false
	}
	if r.rd == nil {
		id = r.list.mem[r.next]
	} else if _, err := io.ReadFull(r.rd, id[:]); err != nil {
		r.err = fmt.Errorf("reading the scan's issue ids back from their file: %w", err)
		return IssueID{}, false
	}
	r.next++
	return id, true
}

// Err is the error that ended reading, nil when the list was read to its end.
func (r *IssueIDListReader) Err() error { return r.err }

// All reads the whole list into memory (for tests and small lists).
func (l *IssueIDList) All() ([]IssueID, error) {
	out := make([]IssueID, 0, l.n)
	r := l.Reader()
	for {
		id, ok := r.Next()
		if !ok {
			return out, r.Err()
		}
		out = append(out, id)
	}
}
