package report

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/a11y-dev/cwac-operator/internal/pageruns"
	"github.com/a11y-dev/cwac-operator/internal/results"
)

// The element set holds what one set of every element would, whatever
// the order of the pages' rows: pages in turn, pages that come back once
// or often, a page with more elements than the table kept between pages,
// and pages back after the keys' log wrote theirs to a segment.
func TestElementSetAsOneSet(t *testing.T) {
	type step struct {
		page int
		key  uint64
	}
	// elementsOf makes n steps on page p, keys k0..k0+n-1 (keys carry their
	// page in their high bits, as the hash of one includes its page).
	elementsOf := func(p, k0, n int) []step {
		out := make([]step, n)
		for i := range out {
			out[i] = step{page: p, key: uint64(p)<<32 | uint64(k0+i)}
		}
		return out
	}
	cat := func(parts ...[]step) []step {
		var out []step
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	random := rand.New(rand.NewPCG(1, 2))
	shuffled := make([]step, 0, 20_000)
	for range 20_000 {
		p := random.IntN(40)
		shuffled = append(shuffled, step{page: p, key: uint64(p)<<32 | uint64(random.IntN(300))})
	}
	// Pages of one element each, past those the keys' log holds in memory,
	// then the first ones back.
	pastSegment := make([]step, 0, pageruns.RecentPages+10)
	for p := range pageruns.RecentPages + 5 {
		pastSegment = append(pastSegment, step{page: 200 + p, key: uint64(200+p) << 32})
	}
	pastSegment = append(pastSegment, cat(elementsOf(200, 0, 2), elementsOf(201, 1, 1), elementsOf(200, 0, 3))...)
	cases := map[string][]step{
		"pages in turn":          cat(elementsOf(1, 0, 3), elementsOf(2, 0, 3), elementsOf(1+2, 0, 3)),
		"seen again on a page":   cat(elementsOf(1, 0, 3), elementsOf(1, 0, 3), elementsOf(1, 1, 3)),
		"a page that comes back": cat(elementsOf(1, 0, 3), elementsOf(2, 0, 3), elementsOf(1, 0, 4), elementsOf(2, 2, 2)),
		"back more than once":    cat(elementsOf(1, 0, 2), elementsOf(2, 0, 1), elementsOf(1, 1, 2), elementsOf(3, 0, 1), elementsOf(1, 0, 4)),
		"a large page, then back": cat(elementsOf(1, 0, maxPageTable+5), elementsOf(2, 0, 2), elementsOf(1, maxPageTable, 10),
			elementsOf(3, 0, 1), elementsOf(1, 0, maxPageTable+20)),
		"back past a segment": pastSegment,
		"shuffled":            shuffled,
	}
	pageHash := func(p int) uint64 { return uint64(p) * 0x9e3779b97f4a7c15 }
	for kind, newSet := range setKinds(t) {
		for name, steps := range cases {
			name := kind + ", " + name
			s := newSet()
			want := map[uint64]bool{}
			for i, st := range steps {
				url := fmt.Sprint("https://a/", st.page)
				if !s.reading(url) {
					turn(t, &s, url, pageHash(st.page))
				}
				if got := s.has(st.key); got != want[st.key] {
					t.Fatalf("%s: step %d (page %d, key %x): has %v, want %v", name, i, st.page, st.key, got, want[st.key])
				}
				if !want[st.key] {
					s.add(st.key)
					want[st.key] = true
				}
			}
			if s.len() != len(want) {
				t.Errorf("%s: %d elements, want %d", name, s.len(), len(want))
			}
		}
	}
}

// setKinds make element sets of each kind: keys in memory, and in a
// spool (a file).
func setKinds(t *testing.T) map[string]func() elementSet {
	return map[string]func() elementSet{
		"in memory": newElementSet,
		"spooled": func() elementSet {
			s := newElementSet()
			s.keys = pageruns.NewLog(tempSpool(t), keyCodec)
			return s
		},
	}
}

// tempSpool is a file the test removes.
func tempSpool(t *testing.T) *os.File {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "spool")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	return f
}

// turn turns s to the page at url, whose hash is page.
func turn(t *testing.T, s *elementSet, url string, page uint64) {
	t.Helper()
	if err := s.turnTo(url, page); err != nil {
		t.Fatal(err)
	}
}

// failingSpool fails its writes, or its reads, with err.
type failingSpool struct {
	writes bool
	err    error
}

func (f failingSpool) Write(b []byte) (int, error) {
	if f.writes {
		return 0, f.err
	}
	return len(b), nil
}

func (f failingSpool) ReadAt([]byte, int64) (int, error) { return 0, f.err }

// A spool that fails stops the set with its error, said as what the set
// was doing: keeping a run's elements when it turns to another page, or
// reading a page's back when it comes again; one that ends early is
// short, not at its end.
func TestElementSetSpoolFailing(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spool pageruns.Spool
		want  string
	}{
		{name: "writes fail", spool: failingSpool{writes: true, err: errors.New("disk full")}, want: "keeping the elements told apart: disk full"},
		{name: "reads fail", spool: failingSpool{err: errors.New("disk gone")}, want: "reading a page's elements again: disk gone"},
		{name: "reads end early", spool: failingSpool{err: io.EOF}, want: "reading a page's elements again: " + io.ErrUnexpectedEOF.Error()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newElementSet()
			s.keys = pageruns.NewLog(tc.spool, keyCodec)
			var err error
			for _, page := range []uint64{1, 2, 1} {
				if err = s.turnTo(fmt.Sprint("https://a/", page), page); err != nil {
					break
				}
				// bufio holds what is added until it has a block's worth, or a read flushes it
				for k := range 5000 {
					s.add(page<<32 | uint64(k))
				}
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// The set keeps a page's elements in a small table only while the page is
// read: turning to another page keeps them as keys, and a table grown
// past maxPageTable is not kept for the next page.
func TestElementSetKeepsRuns(t *testing.T) {
	s := newElementSet()
	for p, n := range []int{3, maxPageTable + 1, 2} {
		turn(t, &s, fmt.Sprint("https://a/", p), uint64(p))
		for k := range n {
			s.add(uint64(p)<<32 | uint64(k))
		}
	}
	if len(s.table) != 2 || s.keys.Len() != 3+maxPageTable+1 || s.len() != 3+maxPageTable+1+2 {
		t.Errorf("reading the third page: table %d, keys %d, %d elements; want 2, %d, %d",
			len(s.table), s.keys.Len(), s.len(), 3+maxPageTable+1, 3+maxPageTable+1+2)
	}
	turn(t, &s, "https://a/1", 1) // the large page again
	var keys []uint64
	if err := s.keys.Each(1, func(k uint64) { keys = append(keys, k) }); err != nil {
		t.Fatal(err)
	}
	if len(s.table) != maxPageTable+1 || s.keys.Len() != 3+maxPageTable+1+2 || len(keys) != maxPageTable+1 || keys[0] != 1<<32 {
		t.Errorf("back on the large page: table %d, keys %d, %d of its own", len(s.table), s.keys.Len(), len(keys))
	}
}

// The set reads one page at a time: a new set reads none (not even a page
// whose URL is empty), and after turning to a page it reads that one only.
func TestElementSetReadsOnePage(t *testing.T) {
	s := newElementSet()
	if s.reading("") || s.reading("https://a/") {
		t.Error("a new set reads a page")
	}
	turn(t, &s, "https://a/", 1)
	if !s.reading("https://a/") || s.reading("https://b/") || s.reading("") {
		t.Error("after turning to page a, the set does not read a, or reads another")
	}
}

// The page's table is kept for the next page, cleared, up to maxPageTable
// elements; one grown past it is let go for a new one.
func TestElementSetLetsALargeTableGo(t *testing.T) {
	table := func(s *elementSet) uintptr { return reflect.ValueOf(s.table).Pointer() }
	for _, n := range []int{maxPageTable, maxPageTable + 1} {
		s := newElementSet()
		turn(t, &s, "https://a/", 1)
		for k := range n {
			s.add(uint64(k))
		}
		before := table(&s)
		turn(t, &s, "https://b/", 2)
		if kept := table(&s) == before; kept != (n <= maxPageTable) || len(s.table) != 0 {
			t.Errorf("a page of %d elements: table kept %v, %d elements in it for the next page", n, kept, len(s.table))
		}
	}
}

// The element set's places are 32 bits: no limit lets it hold more.
func TestElementLimitWithinPlaces(t *testing.T) {
	for lim, want := range map[int]int{0: MaxTrackedElements, 7: 7, math.MaxInt32: math.MaxInt32, math.MaxInt: math.MaxInt32} {
		if got := (Limits{Elements: lim}).withDefaults().Elements; got != want {
			t.Errorf("Limits{Elements: %d}: %d, want %d", lim, got, want)
		}
	}
}

// A builder whose elements are spooled makes the same report, byte for
// byte, as one that holds them, on rows whose pages come back: blocks of
// pages written viewport by viewport, as CWAC's threads write them.
func TestSpooledElementsMakeTheSameReport(t *testing.T) {
	var rows []axeRow
	for block := range 6 {
		for _, vp := range []string{"{'width': 320, 'height': 450}", "{'width': 1280, 'height': 800}", "{'width': 1920, 'height': 1080}"} {
			for page := range 8 {
				for e := range 3 + page {
					rows = append(rows, axeRow{url: fmt.Sprintf("https://a/%d/%d", block, page), vp: vp, target: fmt.Sprintf("/e[%d]", e),
						id: fmt.Sprint("rule-", e%4), impact: "serious", html: "<p>", tags: "['wcag2a', 'wcag111']"})
				}
			}
		}
	}
	held := walkAxe(t, rows)
	spooled := NewBuilder()
	if err := spooled.SpoolElements(tempSpool(t)); err != nil {
		t.Fatal(err)
	}
	var body strings.Builder
	body.WriteString(axeHead)
	for _, r := range rows {
		body.WriteString(r.line())
	}
	if err := results.Walk(context.Background(), fstest.MapFS{"axe_core_audit.csv": csvFile(body.String())}, spooled); err != nil {
		t.Fatal(err)
	}
	if held.elementsTold != 6*8*(3+10)/2 || spooled.elementsTold != held.elementsTold {
		t.Errorf("elements told apart: %d held, %d spooled; want %d", held.elementsTold, spooled.elementsTold, 6*8*(3+10)/2)
	}
	files := func(b *Builder) map[string]string {
		out := map[string]string{}
		if _, err := b.WriteFiles(Meta{Title: "t", GeneratedAt: time.Unix(0, 0)}, &results.Summary{}, func(name string, data []byte) error {
			out[name] = string(data)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	if diff := cmp.Diff(files(held), files(spooled)); diff != "" {
		t.Errorf("the spooled builder's files differ (-held +spooled):\n%s", diff)
	}
}

// Elements are spooled from the first row or not at all: a builder that
// holds some refuses a spool, and keeps what it holds.
func TestSpoolElementsFromTheFirstRow(t *testing.T) {
	b := walkAxe(t, []axeRow{{url: "https://a/", vp: "{'width': 320, 'height': 450}", target: "/a", id: "r", impact: "minor"}})
	held := b.elements.keys
	if err := b.SpoolElements(tempSpool(t)); err == nil || !strings.Contains(err.Error(), "from the first row") {
		t.Errorf("spooling after a row: error %v", err)
	}
	if b.elements.keys != held || b.elements.len() != 1 {
		t.Errorf("after a refused spool: keys %p (was %p), %d held; want the same, 1", b.elements.keys, held, b.elements.len())
	}
	if err := NewBuilder().SpoolElements(tempSpool(t)); err != nil {
		t.Errorf("spooling a new builder's elements: %v", err)
	}
}
