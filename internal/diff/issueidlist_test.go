package diff

import (
	"slices"
	"strings"
	"testing"
)

// A list kept in a file reads back in order, each reader on its own, and
// a file shorter than the list says so.
func TestIssueIDListInAFile(t *testing.T) {
	ids := []IssueID{{1}, {2}, {3}}
	f, err := createRemoved(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if _, err := f.Write(id[:]); err != nil {
			t.Fatal(err)
		}
	}
	l := &IssueIDList{file: f, n: len(ids)}
	first, second := l.Reader(), l.Reader()
	if id, ok := first.Next(); !ok || id != ids[0] {
		t.Fatalf("first reader's first id %v %v", id, ok)
	}
	if got, err := l.All(); err != nil || !slices.Equal(got, ids) {
		t.Errorf("All: %v %v, want %v", got, err, ids)
	}
	for _, want := range ids {
		if id, ok := second.Next(); !ok || id != want {
			t.Errorf("second reader: %v %v, want %v", id, ok, want)
		}
	}
	if id, ok := second.Next(); ok || second.Err() != nil {
		t.Errorf("past the last id: %v %v %v", id, ok, second.Err())
	}
	if id, ok := first.Next(); !ok || id != ids[1] {
		t.Errorf("first reader's second id %v %v: readers are not independent", id, ok)
	}

	long := &IssueIDList{file: f, n: len(ids) + 1}
	got, err := long.All()
	if err == nil || !strings.Contains(err.Error(), "reading the scan's issue ids back") || !slices.Equal(got, ids) {
		t.Errorf("a file shorter than its list: %v, %v", got, err)
	}
	if err := l.Close(); err != nil {
		t.Error(err)
	}
	if err := l.Close(); err != nil {
		t.Errorf("closed twice: %v", err)
	}
	if l.Len() != len(ids) {
		t.Errorf("Len %d", l.Len())
	}
	mem := IssueIDListOf(ids)
	if got, err := mem.All(); err != nil || !slices.Equal(got, ids) || mem.Close() != nil || mem.Len() != 3 {
		t.Errorf("in memory: %v %v", got, err)
	}
}
