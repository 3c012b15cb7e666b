package diff

import (
	"bufio"
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
	bw := bufio.NewWriter(w)
	_, _ = bw.WriteString(issueIDsHeader + "\n")
	for _, id := range ids {
		_, _ = bw.WriteString(id.String() + "\n")
	}
	return bw.Flush()
}

// ReadIssueIDs reads fsys's IssueIDsFile: nil when there is none (results
// written before ids were kept). At most maxRecords ids are read: a longer
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
	ids, err := readIssueIDs(f, maxRecords)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", IssueIDsFile, err)
	}
	return ids, nil
}

func readIssueIDs(r io.Reader, limit int) ([]IssueID, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64), len(issueIDsHeader)+1)
	if !sc.Scan() || sc.Text() != issueIDsHeader {
		if err := sc.Err(); err != nil && !errors.Is(err, bufio.ErrTooLong) {
			return nil, err
		}
		return nil, fmt.Errorf("not an issue ids file: its first line is not %q", issueIDsHeader)
	}
	ids := []IssueID{}
	for line := 2; sc.Scan(); line++ {
		if len(ids) >= limit {
			return nil, fmt.Errorf("more than %d ids", limit)
		}
		id, err := ParseIssueID(sc.Text())
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		ids = append(ids, id)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("a line longer than an id")
		}
		return nil, err
	}
	return ids, nil
}
