package cireport

import (
	"fmt"

	"github.com/cespare/xxhash/v2"

	"github.com/a11y-dev/cwac-operator/internal/diff"
	"github.com/a11y-dev/cwac-operator/internal/pageruns"
)

// Spool is where the reports keep the ids they give while the walk runs,
// to read a page's again when its rows come back (a file, in the runner;
// pageruns.Memory where there is none): written in order, 16 bytes an id
// with a few more a run and a page, and read at any place.
type Spool = pageruns.Spool

// pageNamer names the issue rows of a scan that no ids are known for
// (no baseline, no kept ids file) exactly as one diff.IssueNamer for the
// whole scan would, holding only the page being read. An id is a hash of
// its parts, the organisation and page among them, so a row's id can only
// have been given to an earlier row of its own page: a namer per run of
// rows of one page, holding the ids given on that page before (none, but
// for a page whose rows come back), names each row as the scan's namer
// does. One namer for a scan held each distinct row's id and count, 21 MB
// at a million rows; this keeps the ids given in a log (pageruns.Log), in
// the spool, and finds a page's there when it comes back.
//
// A page named for the first time holds no ids, so its rows are named by
// a namer shared with other such pages (fresh): what it holds of their
// rows is theirs (another page's parts make other ids) and cannot change
// a name on this page. It is made anew every maxFreshRows rows, so that it
// stays small (emptied, keeping its tables' room), and most pages (a few
// rows each) cost no namer of their own.
type pageNamer struct {
	// The run being named: its page and its namer.
	org, page string
	hash      uint64
	namer     *diff.IssueNamer

	// fresh names the runs of pages met for the first time; freshRows
	// counts the rows it has named.
	fresh     *diff.IssueNamer
	freshRows int

	given *pageruns.Log[diff.IssueID] // the ids given, in runs by page hash
}

func newPageNamer(spool Spool) *pageNamer {
	if spool == nil {
		spool = &pageruns.Memory{}
	}
	return &pageNamer{given: pageruns.NewLog(spool, idCodec)}
}

// name names the next row with parts p.
func (p *pageNamer) name(parts diff.IssueParts) (diff.IssueID, error) {
	if p.namer == nil || parts.Organisation != p.org || parts.PageKey != p.page {
		if err := p.begin(parts.Organisation, parts.PageKey); err != nil {
			return diff.IssueID{}, err
		}
	}
	id := p.namer.Name(parts)
	if p.namer == p.fresh {
		p.freshRows++
	}
	if err := p.given.Add(id); err != nil {
		return diff.IssueID{}, fmt.Errorf("keeping the ids given: %w", err)
	}
	return id, nil
}

// begin ends the run being named and starts one on the organisation's
// page, whose namer holds every id given on that page before.
func (p *pageNamer) begin(org, page string) error {
	if err := p.given.EndRun(p.hash); err != nil {
		return fmt.Errorf("keeping the ids given: %w", err)
	}
	p.org, p.page, p.hash = org, page, pageHash(org, page)
	var held []diff.IssueID
	if err := p.given.Each(p.hash, func(id diff.IssueID) { held = append(held, id) }); err != nil {
		return fmt.Errorf("reading the ids given to a page again: %w", err)
	}
	if len(held) == 0 {
		switch {
		case p.fresh == nil:
			p.fresh = diff.NewIssueNamer(nil)
		case p.freshRows >= maxFreshRows:
			p.fresh.Reset()
			p.freshRows = 0
		}
		p.namer = p.fresh
		return nil
	}
	p.namer = diff.NewIssueNamer(held)
	return nil
}

// maxFreshRows is how many rows a shared namer of first runs names before
// it is emptied: it holds an entry for each distinct row it named
// (about 40 bytes), and a namer for every page cost the runner more in
// making and growing its tables than in naming the page's rows.
const maxFreshRows = 4096

// pageHash is the key a page's runs are found by. Two pages with the same
// hash share their runs: each namer then holds the other's ids too, which
// no row of its own page can be named, so the names are the same.
func pageHash(org, page string) uint64 {
	d := xxhash.New()
	_, _ = d.WriteString(org)
	_, _ = d.Write([]byte{0})
	_, _ = d.WriteString(page)
	return d.Sum64()
}

// idCodec writes an id in the spool as its 16 bytes.
var idCodec = pageruns.Codec[diff.IssueID]{
	Size: len(diff.IssueID{}),
	Put:  func(b []byte, id diff.IssueID) { copy(b, id[:]) },
	Get:  func(b []byte) diff.IssueID { return diff.IssueID(b) },
}
