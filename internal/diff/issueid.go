package diff

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"

	"github.com/a11y-dev/cwac-operator/internal/textcap"
	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

// An issue's identity, the one rule the product names issues by: the issue
// history's ids (and so the dashboard's and the MCP tools' issue URLs),
// diff.json's issue_id and the CI reports' fingerprints (SARIF
// partialFingerprints) all come from here.
//
// An issue is first seen as a row of one scan. Its id is then a hash of the
// namespace (an organisation's history is its namespace's), the
// organisation, the page (PageKey), the viewport width, the audit and rule,
// the hashes of the element's HTML and of its target (ElementTarget), and
// the row's ordinal among the rows of that scan with all of those the same,
// in file order, skipping an id already held by another issue. From then on
// the id is carried: a row that the comparison matches with an issue of the
// baseline (MatchElements: the same element, moved or edited) keeps that
// issue's id, whatever its HTML or target have become. docs/history.md says
// this to users.

// IssueID is an issue's identity.
type IssueID [16]byte

// issueIDVersion starts every id's input, so that a change of the rule can
// never reuse an old id.
const issueIDVersion = "cwac-issue-v1"

// Caps on the text an id is made of, which are also the history's caps on
// what it stores: an organisation or rule name is cut to
// IdentityNameBytes, a page key to IdentityURLBytes (the product's URL cap;
// a test pins ids made at it).
const (
	IdentityNameBytes = 1000
	IdentityURLBytes  = urlpolicy.MaxURLLength
)

// String is the id as 32 lower-case hex digits, as every output writes it.
func (id IssueID) String() string { return hex.EncodeToString(id[:]) }

// ParseIssueID reads an id written by String, refusing anything else.
func ParseIssueID(s string) (IssueID, error) {
	var id IssueID
	if len(s) != 2*len(id) || strings.ToLower(s) != s {
		return id, errNotAnID(s)
	}
	if _, err := hex.Decode(id[:], []byte(s)); err != nil {
		return id, errNotAnID(s)
	}
	return id, nil
}

func errNotAnID(s string) error {
	return fmt.Errorf("issue id %q is not an issue's id: want 32 lower-case hexadecimal digits", textcap.Head(s, 64))
}

// IdentityText is s as an id (and the history) holds it: valid UTF-8 with
// no NUL, cut to at most n bytes at a character boundary.
func IdentityText(s string, n int) string {
	if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
	}
	return textcap.HeadMarked(s, n, "")
}

// ElementHash hashes an element's HTML or target (ElementTarget) for
// matching and for ids: stable across processes, so an id made by one
// program is the id another makes.
func ElementHash(s string) uint64 { return xxhash.Sum64String(s) }

// IssueParts are what an issue's id is made of, apart from its ordinal.
type IssueParts struct {
	// Namespace is the CwacScan's namespace.
	Namespace string
	// Organisation, PageKey (PageKey of the row's URL) and Rule
	// (AuditRule) as IdentityText cuts them.
	Organisation, PageKey, Rule string
	Width                       int
	// HTML and Target are ElementHash of the element's HTML and target.
	HTML, Target uint64
}

// RuleOf is a row's rule as people, reports and decisions name it: its
// rule id (axe's), or the audit's name for audits without one.
func RuleOf(audit, id string) string {
	if id == "" {
		return audit
	}
	return id
}

// AuditRule is the rule part of an id: the audit's name and the row's rule
// (RuleOf), the two apart as SplitAuditRule reads them.
func AuditRule(audit, id string) string {
	return audit + "\x00" + IdentityText(RuleOf(audit, id), IdentityNameBytes)
}

// SplitAuditRule is an AuditRule's audit and rule.
func SplitAuditRule(auditRule string) (audit, rule string) {
	audit, rule, _ = strings.Cut(auditRule, "\x00")
	return audit, rule
}

// PartsOf makes an issue's parts from a row's cells: pageKey is PageKey of
// its URL, rule its AuditRule.
func PartsOf(namespace, organisation, pageKey string, width int, rule string, html, target uint64) IssueParts {
	return IssueParts{Namespace: namespace, Organisation: IdentityText(organisation, IdentityNameBytes),
		PageKey: IdentityText(pageKey, IdentityURLBytes), Rule: rule, Width: width, HTML: html, Target: target}
}

// NewIssueID is the id of an issue first seen as the row with parts p and
// the given ordinal.
func NewIssueID(p IssueParts, ordinal int) IssueID {
	// The hash's input, each text after its length, then the three numbers,
	// gathered into one buffer (on the stack for the usual sizes) and
	// hashed at once: a name is made for every issue row of a scan.
	var scratch [512]byte
	var width [20]byte
	in := scratch[:0]
	for _, part := range [...]string{issueIDVersion, p.Namespace, p.Organisation, p.PageKey, string(strconv.AppendInt(width[:0], int64(p.Width), 10)), p.Rule} {
		in = binary.BigEndian.AppendUint64(in, uint64(len(part)))
		in = append(in, part...)
	}
	for _, v := range [...]uint64{p.HTML, p.Target, uint64(ordinal)} {
		in = binary.BigEndian.AppendUint64(in, v)
	}
	sum := sha256.Sum256(in)
	return IssueID(sum[:16])
}

// IssueNamer names the issue rows of one scan that no baseline issue
// carries its id to, in file order: each takes the first ordinal whose id
// no other issue holds (the baseline's issues included).
//
// Rows with different parts never make the same id (it is a hash of them),
// so a row's id can only be taken by an earlier row with its parts, which
// took the ordinals below the count kept for those parts, or by an id
// held: one entry per distinct parts and one per id held, not one per id
// given as well. The ids held from the start (a baseline's, a million on
// the largest scans) are a sorted array, 16 bytes each where a map took
// about 33, made at the first Name: a comparison in which every row keeps
// its baseline id names none and makes none.
type IssueNamer struct {
	start  []IssueID // the ids held from the start: the caller's until sorted
	sorted bool      // start is a sorted copy
	held   map[IssueID]struct{}
	next   map[IssueID]uint32 // by the id of ordinal 0 of parts named: the next ordinal to try
}

// NewIssueNamer starts naming a scan's issues; held are the ids other
// issues already hold (the baseline's), which the namer reads (and copies)
// at its first Name: the caller does not change them before that.
func NewIssueNamer(held []IssueID) *IssueNamer {
	return &IssueNamer{start: held, held: map[IssueID]struct{}{}, next: map[IssueID]uint32{}}
}

// Reset makes n a namer of another scan's rows holding no ids, as
// NewIssueNamer(nil) makes one, keeping the room its tables grew to: a
// caller naming many small sets of rows in turn (cireport's pages) made and
// grew a namer's tables for each, a third of what a million-row runner
// allocated.
func (n *IssueNamer) Reset() {
	n.start, n.sorted = nil, false
	clear(n.held)
	clear(n.next)
}

// Name returns the id of the next row with parts p.
func (n *IssueNamer) Name(p IssueParts) IssueID {
	if !n.sorted {
		n.start = slices.Clone(n.start)
		slices.SortFunc(n.start, compareIDs)
		n.sorted = true
	}
	first := NewIssueID(p, 0)
	for ord := n.next[first]; ; ord++ {
		id := first
		if ord > 0 {
			id = NewIssueID(p, int(ord))
		}
		if !n.isHeld(id) {
			n.next[first] = ord + 1
			return id
		}
	}
}

// isHeld reports whether another issue holds id.
func (n *IssueNamer) isHeld(id IssueID) bool {
	if _, held := n.held[id]; held {
		return true
	}
	_, found := slices.BinarySearchFunc(n.start, id, compareIDs)
	return found
}

func compareIDs(a, b IssueID) int { return bytes.Compare(a[:], b[:]) }

// Hold marks id as held by another issue (a carried one), so that no row
// is named it.
func (n *IssueNamer) Hold(id IssueID) { n.held[id] = struct{}{} }
