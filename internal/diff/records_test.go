package diff

import "testing"

// TestRecordList: records read back in order across chunks, a short list
// holds no whole chunk, and a record past the first chunk stays where it
// is as the list grows (nothing held is copied).
func TestRecordList(t *testing.T) {
	var l recordList
	for i := range 3 {
		l.add(record{html: uint64(i)})
	}
	if l.len() != 3 || len(l.chunks) != 1 || cap(l.chunks[0]) >= recordChunk {
		t.Fatalf("three records: len %d, %d chunks, first of capacity %d", l.len(), len(l.chunks), cap(l.chunks[0]))
	}
	n := 2*recordChunk + 7
	for i := 3; i < n; i++ {
		l.add(record{html: uint64(i)})
	}
	held := l.at(recordChunk + 1)
	for i := n; i < 3*recordChunk+1; i++ {
		l.add(record{html: uint64(i)})
	}
	if l.len() != 3*recordChunk+1 || len(l.chunks) != 4 {
		t.Fatalf("len %d in %d chunks, want %d in 4", l.len(), len(l.chunks), 3*recordChunk+1)
	}
	for i := range int32(l.len()) {
		if got := l.at(i).html; got != uint64(i) {
			t.Fatalf("record %d holds %d", i, got)
		}
	}
	for k, c := range l.chunks[:3] {
		if len(c) != recordChunk {
			t.Errorf("chunk %d holds %d records, want %d", k, len(c), recordChunk)
		}
	}
	if held != l.at(recordChunk+1) {
		t.Error("a record of the second chunk moved as the list grew")
	}
}

// TestRecordListReserve: a list reserved for n records holds them in a
// first chunk made at once (capped at a chunk), reads them back in order,
// and goes on into further chunks; reserving a list that holds records
// changes nothing.
func TestRecordListReserve(t *testing.T) {
	for _, n := range []int{1, 5, recordChunk, recordChunk + 3} {
		var l recordList
		l.reserve(n)
		first := cap(l.chunks[0])
		if first != min(n, recordChunk) {
			t.Errorf("reserve(%d): first chunk of capacity %d, want %d", n, first, min(n, recordChunk))
		}
		for i := range n {
			l.add(record{html: uint64(i)})
		}
		if l.len() != n || len(l.chunks) != (n+recordChunk-1)/recordChunk {
			t.Fatalf("reserve(%d), %d added: len %d in %d chunks", n, n, l.len(), len(l.chunks))
		}
		if cap(l.chunks[0]) != first {
			t.Errorf("reserve(%d): the first chunk grew to %d", n, cap(l.chunks[0]))
		}
		for i := range int32(n) {
			if got := l.at(i).html; got != uint64(i) {
				t.Fatalf("reserve(%d): record %d holds %d", n, i, got)
			}
		}
		l.reserve(recordChunk)
		if l.len() != n || cap(l.chunks[0]) != first {
			t.Errorf("reserve on a list of %d changed it: len %d, first chunk capacity %d", n, l.len(), cap(l.chunks[0]))
		}
	}
	var empty recordList
	empty.reserve(0)
	if len(empty.chunks) != 0 {
		t.Error("reserve(0) made a chunk")
	}
}
