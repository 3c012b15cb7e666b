package report

// elementSet is the set of elements told apart, by the hash of each
// (Builder.hash of its audit, rule, page and element). An element is of
// one page, and CWAC writes a page's rows together, viewport after
// viewport: so the set holds the elements of the page being read in a
// small table, and those of the pages read before as plain keys, 8 bytes
// each, grouped in runs (a run: the keys added while one page's rows came
// together). When a page's rows come back after other pages', the keys of
// its earlier runs join the table again.
type elementSet struct {
	url     string              // the page being read (when open)
	page    uint64              // its hash (Builder.hash of the URL)
	open    bool                // whether a page is being read
	table   map[uint64]struct{} // the elements of the page being read, its earlier runs' too
	fresh   []uint64            // the elements added in the run being read
	keys    [][]uint64          // the runs' keys, end to end, in blocks
	n       uint32              // the keys in keys
	runs    []elementRun
	last    map[uint64]int32 // by page: its last run (in runs)
	tracked int              // the elements in the set
}

// elementRun is one run of a page's keys, [start, end) in keys, and the
// page's run before it (-1: none): twelve bytes, where a scan can have a
// run for every few rows (Limits.Elements keeps the places within 32 bits).
type elementRun struct {
	start, end uint32
	prev       int32
}

// elementBlock is the keys a block of elementSet.keys holds: the set grows
// without copying what it holds.
const elementBlock = 4096

// maxPageTable is the largest table kept from one page to the next: one
// page with many elements (a page-wide rule) should not leave every page
// after it a large table to clear.
const maxPageTable = 1024

func newElementSet() elementSet {
	return elementSet{table: map[uint64]struct{}{}, last: map[uint64]int32{}}
}

// len is how many elements the set holds.
func (s *elementSet) len() int { return s.tracked }

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
	s.tracked++
}

// turnTo ends the run being read and starts one of the page at url (whose
// hash is page), with the keys of its earlier runs.
func (s *elementSet) turnTo(url string, page uint64) {
	s.endRun()
	if len(s.table) > maxPageTable {
		s.table = map[uint64]struct{}{}
	} else {
		clear(s.table)
	}
	s.url, s.page, s.open = url, page, true
	i, ok := s.last[page]
	for ; ok && i >= 0; i = s.runs[i].prev {
		for k := s.runs[i].start; k < s.runs[i].end; k++ {
			s.table[s.keys[k/elementBlock][k%elementBlock]] = struct{}{}
		}
	}
}

// endRun keeps the keys added in the run being read, if any.
func (s *elementSet) endRun() {
	if len(s.fresh) == 0 {
		return
	}
	start := s.n
	for _, k := range s.fresh {
		if s.n%elementBlock == 0 {
			s.keys = append(s.keys, make([]uint64, 0, elementBlock))
		}
		b := &s.keys[len(s.keys)-1]
		*b = append(*b, k)
		s.n++
	}
	s.fresh = s.fresh[:0]
	prev, ok := s.last[s.page]
	if !ok {
		prev = -1
	}
	s.runs = append(s.runs, elementRun{start: start, end: s.n, prev: prev})
	s.last[s.page] = int32(len(s.runs) - 1)
}
