package cireport

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"

	"github.com/a11y-dev/cwac-operator/internal/diff"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// FingerprintKey names the partial fingerprint in SARIF's
// partialFingerprints: the issue's id (diff.IssueID), the one the issue
// history, the dashboard and the MCP tools name it by. The version changes
// whenever the rule does (v1 was a hash of the row alone, not carried).
const FingerprintKey = "cwacIssue/v2"

// rowNamer gives each issue row of the axe audit (num_issues above 0), in
// file order, its id: the next known id (the comparison's, or the results'
// diff.IssueIDsFile read as the rows are), else a new one
// (diff.IssueNamer, holding every known id given so far). When no ids are
// known at all (a scan without a baseline), every row is named by page
// (pageNamer). It keeps none of the ids it gives: they go out to a
// diff.IssueIDWriter as they are given.
type rowNamer struct {
	namespace string
	known     *diff.IssueIDList       // the comparison's ids (nil: none given)
	knownRd   *diff.IssueIDListReader // reads known
	given     int                     // how many known ids were given
	fsys      fs.FS                   // the results (file is read again from it to hold its ids)
	file      fs.File                 // the results' diff.IssueIDsFile, streamed (nil: none)
	rd        *diff.IssueIDReader     // reads file
	namer     *diff.IssueNamer
	// knownHeld says the namer holds the known ids given: held only once a
	// new id is first needed, as the known ids usually name every row.
	knownHeld bool
	out       *diff.IssueIDWriter // the ids given, written out (nil: not written)
	// pages names every row when no ids are known (nil: some are).
	pages *pageNamer
}

// namesFor is the namer of a scan's rows: the ids opts.IssueIDs gives,
// else those of fsys's diff.IssueIDsFile (a report built again from
// results the runner named), else none known, and every row is named by
// page, its ids kept in spool (nil: in memory); each id given is written
// to out (nil: none), and the namer must be closed.
func namesFor(fsys fs.FS, opts Options, out io.Writer, spool Spool) (*rowNamer, error) {
	n := &rowNamer{namespace: opts.Namespace, namer: diff.NewIssueNamer(nil), known: opts.IssueIDs, fsys: fsys}
	if out != nil {
		n.out = diff.NewIssueIDWriter(out)
	}
	if opts.IssueIDs != nil {
		n.knownRd = opts.IssueIDs.Reader()
		return n, nil
	}
	f, err := fsys.Open(diff.IssueIDsFile)
	if errors.Is(err, fs.ErrNotExist) {
		n.pages = newPageNamer(spool)
		return n, nil
	}
	if err != nil {
		return nil, err
	}
	if n.rd, err = diff.NewIssueIDReader(f, diff.MaxIssueRows); err != nil {
		_ = f.Close() // read only
		return nil, fmt.Errorf("%s: %w", diff.IssueIDsFile, err)
	}
	n.file = f
	return n, nil
}

// close closes the streamed file, if any.
func (n *rowNamer) close() {
	if n.file != nil {
		_ = n.file.Close() // read only
	}
}

// nextKnown is the next known id; false past the last, or at an error in
// the streamed file (returned).
func (n *rowNamer) nextKnown() (diff.IssueID, bool, error) {
	if n.rd != nil {
		id, ok := n.rd.Next()
		if err := n.rd.Err(); err != nil {
			return id, false, fmt.Errorf("%s: %w", diff.IssueIDsFile, err)
		}
		if ok {
			n.given++
		}
		return id, ok, nil
	}
	if n.knownRd == nil {
		return diff.IssueID{}, false, nil
	}
	id, ok := n.knownRd.Next()
	if err := n.knownRd.Err(); err != nil {
		return id, false, err
	}
	if ok {
		n.given++
	}
	return id, ok, nil
}

// name sets the id of is when it is an issue row (num_issues above 0),
// whether or not a report lists it; an error is the known ids' (a file
// that is not the scan's).
func (n *rowNamer) name(is *issue) error {
	if is.issues <= 0 {
		return nil
	}
	id, ok, err := n.nextKnown()
	switch {
	case err != nil:
		return err
	case !ok && n.pages != nil:
		p := is.parts
		p.Namespace = n.namespace
		if id, err = n.pages.name(p); err != nil {
			return err
		}
	case !ok:
		if !n.knownHeld {
			if err := n.holdKnown(); err != nil {
				return err
			}
			n.knownHeld = true
		}
		p := is.parts
		p.Namespace = n.namespace
		id = n.namer.Name(p)
	}
	is.id = id
	if n.out != nil {
		n.out.Add(id)
	}
	return nil
}

// holdKnown has the namer hold every known id given, so that no new id is
// one of them: the comparison's, or those of the streamed file, read again
// from its start (they were not kept).
func (n *rowNamer) holdKnown() error {
	if n.rd == nil {
		rd := n.known.Reader()
		for i := range n.given {
			id, ok := rd.Next()
			if !ok {
				return fmt.Errorf("the scan's issue ids, read again: %d of %d: %v", i, n.given, rd.Err())
			}
			n.namer.Hold(id)
		}
		return nil
	}
	f, err := n.fsys.Open(diff.IssueIDsFile)
	if err != nil {
		return fmt.Errorf("%s: reading again: %w", diff.IssueIDsFile, err)
	}
	defer func() { _ = f.Close() }() // read only
	rd, err := diff.NewIssueIDReader(f, n.given)
	if err != nil {
		return fmt.Errorf("%s: reading again: %w", diff.IssueIDsFile, err)
	}
	for i := range n.given {
		id, ok := rd.Next()
		if !ok {
			return fmt.Errorf("%s: reading again: changed while read (%d ids, %d before): %v", diff.IssueIDsFile, i, n.given, rd.Err())
		}
		n.namer.Hold(id)
	}
	return nil
}

// flush writes out the ids given that are still buffered.
func (n *rowNamer) flush() error {
	if n.out == nil {
		return nil
	}
	return n.out.Flush()
}

// partsOf is a row's diff.IssueParts (without the namespace): pageKey is
// diff.PageKey of its URL, auditRule diff.AuditRule of the axe audit and
// its rule, html and target its uncut cells.
func partsOf(organisation, pageKey string, width int, auditRule, html, target string) diff.IssueParts {
	return diff.PartsOf("", organisation, pageKey, width, auditRule, diff.ElementHash(html), diff.ElementHash(target))
}

// key is a hash of strings with their lengths, so no two lists of parts
// hash alike by moving a boundary.
type key [sha256.Size]byte

func hashParts(parts ...string) key {
	h := sha256.New()
	var buf [8]byte
	for _, p := range parts {
		binary.BigEndian.PutUint64(buf[:], uint64(len(p)))
		h.Write(buf[:])
		h.Write([]byte(p))
	}
	var out key
	copy(out[:], h.Sum(nil))
	return out
}

// comparedText is the smallest cap diff.json puts on a URL, rule or target
// cell: text cut to it reads the same from a CSV row and from diff.json.
const comparedText = 1000

// comparedKey is how a CSV row and a diff.json row of the same issue find
// each other: the cells diff.json carries, cut as it cuts them.
func comparedKey(url string, width int, rule, target, html string) key {
	return hashParts(textcap.Head(url, comparedText), strconv.Itoa(width), textcap.Head(rule, comparedText),
		textcap.Head(target, comparedText), textcap.Head(html, diff.MaxHTMLBytes))
}
