package ingest

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"unsafe"
)

// TestBlockListAcrossBlocks: records keep their order and values across
// block boundaries, and are changed in place.
func TestBlockListAcrossBlocks(t *testing.T) {
	var l blockList[record]
	n := 2*blockLen + 3
	for i := range n {
		l.add(record{issues: uint32(i)})
	}
	if l.len() != n || len(l.blocks) != 3 {
		t.Fatalf("len %d in %d blocks, want %d in 3", l.len(), len(l.blocks), n)
	}
	for _, i := range []int{0, 1, blockLen - 1, blockLen, blockLen + 1, 2 * blockLen, n - 1} {
		if got := l.at(i).issues; got != uint32(i) {
			t.Errorf("at(%d).issues = %d", i, got)
		}
	}
	l.at(blockLen).setFate(fateNew)
	if l.blocks[1][0].fate() != fateNew {
		t.Error("at does not point into the list")
	}
}

// TestIssueIDList: ids are kept as given, in 4 bytes each while they fit,
// and every id is kept when one no longer does.
// TestBlockListSlice: the values come out in one slice of their exact
// number, in order across block boundaries, and the list is left empty.
func TestBlockListSlice(t *testing.T) {
	for _, n := range []int{0, 1, blockLen, blockLen + 1, 2*blockLen + 3} {
		var l blockList[int32]
		for i := range n {
			l.add(int32(i))
		}
		got := l.slice()
		if len(got) != n || cap(got) != n {
			t.Errorf("%d values: a slice of %d (capacity %d)", n, len(got), cap(got))
		}
		for i, v := range got {
			if v != int32(i) {
				t.Errorf("%d values: value %d is %d", n, i, v)
				break
			}
		}
		if l.len() != 0 || l.blocks != nil {
			t.Errorf("%d values: the list keeps %d values in %d blocks", n, l.len(), len(l.blocks))
		}
	}
}

func TestIssueIDList(t *testing.T) {
	const big = int64(1) << 32
	for _, tc := range []struct {
		name string
		ids  []int64 // set in order, at index i
		wide bool
	}{
		{"none", []int64{0, 0, 0}, false},
		{"small", []int64{1, 7, math.MaxUint32}, false},
		{"one past 32 bits, last", []int64{3, 9, big}, true},
		{"one past 32 bits, first", []int64{big + 5, 9, 1}, true},
		{"largest", []int64{2, math.MaxInt64, 4}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newStoreIDList(len(tc.ids))
			for i, id := range tc.ids {
				l.set(i, id)
			}
			for i, id := range tc.ids {
				if got := l.get(i); got != id {
					t.Errorf("get(%d) = %d, want %d", i, got, id)
				}
			}
			if (l.wide != nil) != tc.wide {
				t.Errorf("wide = %v, want %v", l.wide != nil, tc.wide)
			}
			if tc.wide && l.small != nil {
				t.Error("the 4-byte ids are still held beside the 8-byte ones")
			}
		})
	}
}

// TestRecordFlags: a record's fate, element key and body bit are kept
// apart in its one byte of flags, each set without touching the others;
// and a record is 32 bytes (a million of them held through the ingest).
func TestRecordFlags(t *testing.T) {
	if size := unsafe.Sizeof(record{}); size != 32 {
		t.Errorf("a record is %d bytes, want 32", size)
	}
	// A page and a group too: a scan has one of each for every few rows.
	if size := unsafe.Sizeof(page{}); size != 16 {
		t.Errorf("a page is %d bytes, want 16", size)
	}
	if size := unsafe.Sizeof(seenGroup{}); size != 8 {
		t.Errorf("a group is %d bytes, want 8", size)
	}
	for _, body := range []bool{false, true} {
		for _, from := range []uint8{elemTarget, elemHTML, elemOwn} {
			for _, fate := range []uint8{fateUnstable, fateOpen, fateRetarget, fateReopened, fateNew} {
				r := record{}
				if body {
					r.flags |= flagBody
				}
				r.setFate(fateNew) // changed again below: the last set wins
				r.setElemFrom(from)
				r.setFate(fate)
				if r.fate() != fate || r.elemFrom() != from || r.body() != body {
					t.Errorf("set fate %d, element key %d, body %v: got %d, %d, %v", fate, from, body, r.fate(), r.elemFrom(), r.body())
				}
			}
		}
	}
}

// TestTextArena: texts come back as kept, across blocks, each at a
// position of its own; a text longer than a block is refused.
func TestTextArena(t *testing.T) {
	var a textArena
	var texts []string
	var at []uint32
	for i := 0; len(a.full) < 2; i++ {
		s := strings.Repeat(string(rune('a'+i%26)), 1+i%1999)
		p, err := a.add(s)
		if err != nil {
			t.Fatal(err)
		}
		texts, at = append(texts, s), append(at, p)
	}
	for i, s := range texts {
		if got := a.text(at[i], len(s)); got != s {
			t.Fatalf("text %d at %#x: %d bytes %.10q…, want %d bytes %.10q…", i, at[i], len(got), got, len(s), s)
		}
	}
	if _, err := a.add(strings.Repeat("x", textBlockLen+1)); err == nil {
		t.Error("a text longer than a block was kept")
	}
	if p, err := a.add(""); err != nil || a.text(p, 0) != "" {
		t.Errorf("the empty text: %q, %v", a.text(p, 0), err)
	}
}

// TestPageTable: each of many pages is found again by its organisation and
// key after the table has grown, and a page not added is not found.
func TestPageTable(t *testing.T) {
	rd := newReading()
	n := 5 * pageTableMin
	for i := range n {
		id, err := rd.page(int32(i%3), fmt.Sprintf("https://example.govt.nz/%d", i))
		if err != nil || id != int32(i) {
			t.Fatalf("page %d added as %d, %v", i, id, err)
		}
	}
	if 4*n > 3*len(rd.pageSlots.slots) || rd.pageSlots.n != n {
		t.Fatalf("%d pages in %d slots (counted %d): more than three quarters full", n, len(rd.pageSlots.slots), rd.pageSlots.n)
	}
	for i := range n {
		rd.lastPage = -1 // past the last page's shortcut
		if id, err := rd.page(int32(i%3), fmt.Sprintf("https://example.govt.nz/%d", i)); err != nil || id != int32(i) {
			t.Fatalf("page %d found as %d, %v", i, id, err)
		}
		if got := rd.pageKey(int32(i)); got != fmt.Sprintf("https://example.govt.nz/%d", i) {
			t.Fatalf("page %d's key %q", i, got)
		}
	}
	rd.lastPage = -1
	if id, err := rd.page(1, "https://example.govt.nz/0"); err != nil || id != int32(n) { // page 0 is organisation 0's
		t.Errorf("another organisation's page: %d, %v, want a new page %d", id, err, n)
	}
}

// TestAuditNumbers: an audit keeps its number; past maxAudits audits the
// scan is refused.
func TestAuditNumbers(t *testing.T) {
	rd := newReading()
	for i := range int32(maxAudits) {
		if n, err := rd.auditNo(rd.strs.ID(fmt.Sprintf("audit%d", i))); err != nil || n != i {
			t.Fatalf("audit %d numbered %d, %v", i, n, err)
		}
	}
	if n, err := rd.auditNo(rd.strs.ID("audit7")); err != nil || n != 7 || rd.auditName(n) != "audit7" {
		t.Errorf("audit7 again: %d (%q), %v", n, rd.auditName(n), err)
	}
	if _, err := rd.auditNo(rd.strs.ID("one too many")); err == nil {
		t.Error("an audit past maxAudits was numbered")
	}
}

// TestSplitHost: a page key splits after its scheme and host, whatever
// follows; a key without a scheme has no host.
func TestSplitHost(t *testing.T) {
	for _, tc := range []struct{ key, host, rest string }{
		{"https://example.govt.nz/a/b?c=d", "https://example.govt.nz", "/a/b?c=d"},
		{"https://example.govt.nz/", "https://example.govt.nz", "/"},
		{"https://example.govt.nz", "https://example.govt.nz", ""},
		{"http://127.0.0.1:8765/x", "http://127.0.0.1:8765", "/x"},
		{"example.govt.nz/a", "", "example.govt.nz/a"},
		{"", "", ""},
		{"a://", "a://", ""},
	} {
		host, rest := splitHost(tc.key)
		if host != tc.host || rest != tc.rest || host+rest != tc.key {
			t.Errorf("splitHost(%q) = %q, %q, want %q, %q", tc.key, host, rest, tc.host, tc.rest)
		}
	}
}

// TestPageKeysPastMaxHosts: pages of more hosts than reading.hosts holds
// keep their whole keys, and each is found again, by its key, as the
// pages of hosts it holds are.
func TestPageKeysPastMaxHosts(t *testing.T) {
	rd := newReading()
	url := func(i int) string { return fmt.Sprintf("https://h%d.example.govt.nz/p", i) }
	n := maxHosts + 10
	for i := range n {
		if id, err := rd.page(0, url(i)); err != nil || id != int32(i) {
			t.Fatalf("page %d added as %d, %v", i, id, err)
		}
	}
	if len(rd.hosts) != maxHosts+1 {
		t.Errorf("%d hosts kept, want %d and the empty one", len(rd.hosts)-1, maxHosts)
	}
	for _, i := range []int{0, 1, maxHosts - 1, maxHosts, n - 1} {
		rd.lastPage = -1
		if id, err := rd.page(0, url(i)); err != nil || id != int32(i) {
			t.Errorf("page %d found as %d, %v", i, id, err)
		}
		if got := rd.pageKey(int32(i)); got != url(i) {
			t.Errorf("page %d's key %q, want %q", i, got, url(i))
		}
	}
	if p := rd.pages.at(n - 1); p.host != 0 || int(p.keyLen) != len(url(n-1)) {
		t.Errorf("the last page's key kept as host %d and %d bytes, want whole", p.host, p.keyLen)
	}
}
