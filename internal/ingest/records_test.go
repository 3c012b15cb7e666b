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

// TestSparseList: values are set and read back in any order, across
// blocks; a value never set is zero, and a block is made only once a value
// in it is set.
func TestSparseList(t *testing.T) {
	var l sparseList[int64]
	if got := l.get(5); got != 0 || len(l.blocks) != 0 {
		t.Fatalf("empty list: get(5) = %d, %d blocks", got, len(l.blocks))
	}
	at := []int{2*blockLen + 3, 0, blockLen - 1, 2 * blockLen}
	for k, i := range at {
		l.set(i, int64(k+1))
	}
	if len(l.blocks) != 3 || l.blocks[1] != nil {
		t.Fatalf("%d blocks, the second made: %v; want 3, the second not made", len(l.blocks), l.blocks[1] != nil)
	}
	for k, i := range at {
		if got := l.get(i); got != int64(k+1) {
			t.Errorf("get(%d) = %d, want %d", i, got, k+1)
		}
	}
	for _, i := range []int{1, blockLen, blockLen + 1, 2*blockLen + 1, 3 * blockLen} {
		if got := l.get(i); got != 0 {
			t.Errorf("get(%d) = %d, never set", i, got)
		}
	}
}
