package ingest

import "testing"

// TestBlockListAcrossBlocks: records keep their order and values across
// block boundaries, and are changed in place.
func TestBlockListAcrossBlocks(t *testing.T) {
	var l blockList[record]
	n := 2*blockLen + 3
	for i := range n {
		l.add(record{issues: int64(i)})
	}
	if l.len() != n || len(l.blocks) != 3 {
		t.Fatalf("len %d in %d blocks, want %d in 3", l.len(), len(l.blocks), n)
	}
	for _, i := range []int{0, 1, blockLen - 1, blockLen, blockLen + 1, 2 * blockLen, n - 1} {
		if got := l.at(i).issues; got != int64(i) {
			t.Errorf("at(%d).issues = %d", i, got)
		}
	}
	l.at(blockLen).fate = fateNew
	if l.blocks[1][0].fate != fateNew {
		t.Error("at does not point into the list")
	}
}
