package report

import (
	"encoding/binary"
	"fmt"

	"github.com/a11y-dev/cwac-operator/internal/pageruns"
)

// elementSet is the set of elements told apart, by the hash of each
// (Builder.hash of its audit, rule, page and element), and of the pairs
// of a page told apart apart from the page (Builder.firstPair). An element is of
// one page, and CWAC writes a page's rows together, viewport after
// viewport: so the set holds the elements of the page being read in a
// small table, and those of the pages read before as plain keys, 8 bytes
// each, grouped in runs (a run: the keys added while one page's rows came
// together) in a log, in memory or in a spool (Builder.SpoolElements).
// When a page's rows come back after other pages', the keys of its
// earlier runs join the table again.
type elementSet struct {
	url   string                // the page being read (when open)
	page  uint64                // its hash (Builder.hash of the URL)
	open  bool                  // whether a page is being read
	table map[uint64]struct{}   // the elements of the page being read, its earlier runs' too
	fresh []uint64              // the elements added in the run being read
	keys  *pageruns.Log[uint64] // the keys of the runs ended, by page
}

// maxPageTable is the largest table kept from one page to the next: one
// page with many elements (a page-wide rule) should not leave every page
// after it a large table to clear.
const maxPageTable = 1024

func newElementSet() elementSet {
	return elementSet{table: map[uint64]struct{}{}, keys: pageruns.NewLog(&pageruns.Memory{}, keyCodec)}
}

// len is how many keys the set holds: Builder.elementsTold and pairsTold,
// each within Limits.Elements, keep it, and so the keys' places, within 32
// bits.
func (s *elementSet) len() int { return int(s.keys.Len()) + len(s.fresh) }

// reading reports whether url is the page being read.
func (s *elementSet) reading(url string) bool { return s.open && url == s.url }

// has reports whether the set holds key, an element of the page being read.
func (s *elementSet) has(key uint64) bool {
	_, ok := s.table[key]
	return ok
}

// add adds key, an element of the page being read that the set does not
// hold.
func (s *elementSet) add(key uint64) {
	s.table[key] = struct{}{}
	s.fresh = append(s.fresh, key)
}

// turnTo ends the run being read and starts one of the page at url (whose
// hash is page), with the keys of its earlier runs.
func (s *elementSet) turnTo(url string, page uint64) error {
	if err := s.endRun(); err != nil {
		return err
	}
	if len(s.table) > maxPageTable {
		s.table = map[uint64]struct{}{}
	} else {
		clear(s.table)
	}
	s.url, s.page, s.open = url, page, true
	if err := s.keys.Each(page, func(k uint64) { s.table[k] = struct{}{} }); err != nil {
		return fmt.Errorf("reading a page's elements again: %w", err)
	}
	return nil
}

// endRun keeps the keys added in the run being read, if any.
func (s *elementSet) endRun() error {
	for _, k := range s.fresh {
		if err := s.keys.Add(k); err != nil {
			return fmt.Errorf("keeping the elements told apart: %w", err)
		}
	}
	s.fresh = s.fresh[:0]
	if err := s.keys.EndRun(s.page); err != nil {
		return fmt.Errorf("keeping the elements told apart: %w", err)
	}
	return nil
}

// keyCodec writes a key in the spool as its 8 bytes.
var keyCodec = pageruns.Codec[uint64]{Size: 8, Put: binary.LittleEndian.PutUint64, Get: binary.LittleEndian.Uint64}
