package ingest

import (
	"math"
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
			l := newIssueIDList(len(tc.ids))
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
