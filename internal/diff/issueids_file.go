package diff

import (
	"bufio"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
)

// IssueIDsFile keeps, beside a scan's results, the id of each issue row
// (num_issues above 0) of its axe audit, in file order: what the next scan
// compared with it carries forward (see issueid.go).
const IssueIDsFile = "issue_ids.txt"

// IssueIDsAudit is the audit whose rows IssueIDsFile names: the one the CI
// reports list.
const IssueIDsAudit = "axe_core_audit.csv"

// issueIDsHeader is IssueIDsFile's first line; a reader refuses any other.
const issueIDsHeader = "cwac-operator.issue-ids/v1 " + IssueIDsAudit

// WriteIssueIDs writes ids as IssueIDsFile: its header, then one id a line.
func WriteIssueIDs(w io.Writer, ids []IssueID) error {
	iw := NewIssueIDWriter(w)
	for _, id := range ids {
		iw.Add(id)
	}
	return iw.Flush()
}

// IssueIDWriter writes an IssueIDsFile one id at a time, as the rows are
// named, so that the writer holds none of them.
type IssueIDWriter struct {
	bw   *bufio.Writer
	line [2*len(IssueID{}) + 1]byte
}

// NewIssueIDWriter starts an IssueIDsFile on w with its header.
func NewIssueIDWriter(w io.Writer) *IssueIDWriter {
	iw := &IssueIDWriter{bw: bufio.NewWriter(w)}
	_, _ = iw.bw.WriteString(issueIDsHeader + "\n")
	iw.line[len(iw.line)-1] = '\n'
	return iw
}

// Add writes the next id. A failure to write is kept and returned by Flush.
func (w *IssueIDWriter) Add(id IssueID) {
	hex.Encode(w.line[:], id[:])
	_, _ = w.bw.Write(w.line[:])
}

// Flush writes what is buffered; it returns the first error writing met.
func (w *IssueIDWriter) Flush() error { return w.bw.Flush() }

// IssueIDReader reads an IssueIDsFile one id at a time, so that a reader
// that needs them in order (a CI report built again from a scan's results)
// holds none of them.
type IssueIDReader struct {
	sc    *bufio.Scanner
	line  int
	limit int
	err   error
}

// NewIssueIDReader starts reading r, checking its header; it reads at most
// limit ids.
func NewIssueIDReader(r io.Reader, limit int) (*IssueIDReader, error) {
	// A line longer than the header (ids are shorter) is refused.
	maxLine := len(issueIDsHeader) + 1
	// The scanner's buffer is one line long, so it would ask r for a line
	// at a time: a read call per id (1.7 s per million from a file).
	sc := bufio.NewScanner(bufio.NewReader(r))
	sc.Buffer(make([]byte, 0, maxLine), maxLine)
	if !sc.Scan() || sc.Text() != issueIDsHeader {
		if err := sc.Err(); err != nil && !errors.Is(err, bufio.ErrTooLong) {
			return nil, err
		}
		return nil, fmt.Errorf("not an issue ids file: its first line is not %q", issueIDsHeader)
	}
	return &IssueIDReader{sc: sc, line: 1, limit: limit}, nil
}

// Next returns the next id; false at the end of the file or at an error
// (Err says which).
func (r *IssueIDReader) Next() (IssueID, bool) {
	if r.err != nil || !r.sc.Scan() {
		if r.err == nil {
			if err := r.sc.Err(); errors.Is(err, bufio.ErrTooLong) {
				r.err = fmt.Errorf("line %d: longer than an id", r.line+1)
			} else {
				r.err = err
			}
		}
		return IssueID{}, false
	}
	r.line++
	if r.line-1 > r.limit {
		r.err = fmt.Errorf("more than %d ids", r.limit)
		return IssueID{}, false
	}
	id, err := ParseIssueID(r.sc.Text())
	if err != nil {
		r.err = fmt.Errorf("line %d: %w", r.line, err)
		return IssueID{}, false
	}
	return id, true
}

// Err is the error that ended reading, nil at the end of the file.
func (r *IssueIDReader) Err() error { return r.err }

// ReadIssueIDs reads fsys's IssueIDsFile: nil when there is none (results
// written before ids were kept). At most MaxIssueRows ids are read: a longer
// file cannot name the rows of an audit the comparison can read.
func ReadIssueIDs(fsys fs.FS) ([]IssueID, error) {
	f, err := fsys.Open(IssueIDsFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // read only
	ids, err := readIssueIDs(f, MaxIssueRows)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", IssueIDsFile, err)
	}
	return ids, nil
}

func readIssueIDs(r io.Reader, limit int) ([]IssueID, error) {
	rd, err := NewIssueIDReader(r, limit)
	if err != nil {
		return nil, err
	}
	ids := []IssueID{}
	for {
		id, ok := rd.Next()
		if !ok {
			return ids, rd.Err()
		}
		ids = append(ids, id)
	}
}
