package cireport

import (
	"crypto/sha256"
	"encoding/binary"
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
// file order, its id: the id the comparison with the baseline named it
// (known, when given), else a new one (diff.IssueNamer, holding every
// known id). It keeps the ids it gave, for the scan's diff.IssueIDsFile.
type rowNamer struct {
	namespace string
	known     []diff.IssueID
	namer     *diff.IssueNamer
	ids       []diff.IssueID
}

// namesFor is the namer of a scan's rows: the ids opts.IssueIDs gives,
// else those of fsys's diff.IssueIDsFile (a report built again from
// results the runner named), else none known.
func namesFor(fsys fs.FS, opts Options) (*rowNamer, error) {
	known := opts.IssueIDs
	if known == nil {
		var err error
		if known, err = diff.ReadIssueIDs(fsys); err != nil {
			return nil, err
		}
	}
	return &rowNamer{namespace: opts.Namespace, known: known, namer: diff.NewIssueNamer(known)}, nil
}

// name sets the id of is when it is an issue row (num_issues above 0),
// whether or not a report lists it.
func (n *rowNamer) name(is *issue) {
	if is.issues <= 0 {
		return
	}
	if k := len(n.ids); k < len(n.known) {
		is.id = n.known[k]
	} else {
		p := is.parts
		p.Namespace = n.namespace
		is.id = n.namer.Name(p)
	}
	n.ids = append(n.ids, is.id)
}

// partsOf is a row's diff.IssueParts (without the namespace): pageKey is
// diff.PageKey of its URL, html and target its uncut cells.
func partsOf(organisation, pageKey string, width int, rule, html, target string) diff.IssueParts {
	return diff.PartsOf("", organisation, pageKey, width, diff.AuditRule(axeAudit, rule), diff.ElementHash(html), diff.ElementHash(target))
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
