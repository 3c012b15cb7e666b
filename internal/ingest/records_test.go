package ingest

import "testing"

// TestRecordListAcrossBlocks: records keep their order and values across
// block boundaries, and are changed in place.
func TestRecordListAcrossBlocks(t *testing.T) {
	var l recordList
	n := 2*recordBlock + 3
	for i := range n {
		l.add(record{issues: int64(i)})
	}
	if l.len() != n || len(l.blocks) != 3 {
		t.Fatalf("len %d in %d blocks, want %d in 3", l.len(), len(l.blocks), n)
	}
	for _, i := range []int{0, 1, recordBlock - 1, recordBlock, recordBlock + 1, 2 * recordBlock, n - 1} {
		if got := l.at(i).issues; got != int64(i) {
			t.Errorf("at(%d).issues = %d", i, got)
		}
	}
	l.at(recordBlock).fate = fateNew
	if l.blocks[1][0].fate != fateNew {
		t.Error("at does not point into the list")
	}
}
