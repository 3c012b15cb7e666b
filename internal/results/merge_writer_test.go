package results

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// shortWriter takes at most n bytes of each write, then fails.
type shortWriter struct {
	n   int
	got []byte
}

func (w *shortWriter) Write(b []byte) (int, error) {
	n := min(w.n, len(b))
	w.got = append(w.got, b[:n]...)
	if n < len(b) {
		return n, errors.New("disk full")
	}
	return n, nil
}

// TestPartWriterCountsWhatWasWritten: the merged file's size, last byte
// and quotes are those of the bytes the file took, not of those it was
// offered, even when a write fails part-way or at once.
func TestPartWriterCountsWhatWasWritten(t *testing.T) {
	tests := []struct {
		name       string
		take       int
		writes     []string
		wantN      int64
		wantLast   byte
		wantQuotes int
	}{
		{name: "all taken", take: 100, writes: []string{`a,"b`, "\"\n"}, wantN: 6, wantLast: '\n', wantQuotes: 2},
		{name: "part taken", take: 3, writes: []string{`a,"b"` + "\n"}, wantN: 3, wantLast: '"', wantQuotes: 1},
		{name: "nothing taken", take: 0, writes: []string{`"x"`}, wantN: 0, wantLast: 0, wantQuotes: 0},
		{name: "nothing after something", take: 0, writes: []string{}, wantN: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sw := &shortWriter{n: tt.take}
			p := &partWriter{w: sw}
			for _, s := range tt.writes {
				n, err := p.Write([]byte(s))
				if n != min(tt.take, len(s)) || (err != nil) != (tt.take < len(s)) {
					t.Errorf("Write(%q) = %d, %v", s, n, err)
				}
			}
			if p.n != tt.wantN || p.last != tt.wantLast || p.quotes != tt.wantQuotes {
				t.Errorf("n %d, last %q, quotes %d; want %d, %q, %d", p.n, p.last, p.quotes, tt.wantN, tt.wantLast, tt.wantQuotes)
			}
		})
	}
}

// openFiles counts this process's open file descriptors.
func openFiles(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatalf("counting open files: %v", err)
	}
	return len(entries)
}

// TestMergeShardsClosesWhatItOpens: a merge, failed or not, leaves no file
// open (a merge pod merges many files; each failure must not hold one).
func TestMergeShardsClosesWhatItOpens(t *testing.T) {
	for _, tt := range []struct {
		name    string
		second  string // shard 1's x.csv
		wantErr bool
	}{
		{"merged", "a,b\n3,4\n", false},
		{"refused: other columns", "a,c\n3,4\n", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for i, data := range []string{"a,b\n1,2\n", tt.second} {
				d := filepath.Join(dir, "shards", strconv.Itoa(i))
				must(t, os.MkdirAll(d, 0o755))
				must(t, os.WriteFile(filepath.Join(d, "x.csv"), []byte(data), 0o644))
			}
			root, err := os.OpenRoot(dir)
			must(t, err)
			defer func() { _ = root.Close() }()
			before := openFiles(t)
			_, err = MergeShards(context.Background(), root, "merged", []string{"shards/0", "shards/1"})
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want an error %v", err, tt.wantErr)
			}
			if after := openFiles(t); after != before {
				t.Errorf("%d files open before the merge, %d after", before, after)
			}
		})
	}
}

// TestMergeShardsCancelledMidCopy: a merge cancelled while it copies a
// part returns the context's error as it is, not as a failed copy.
func TestMergeShardsCancelledMidCopy(t *testing.T) {
	dir := t.TempDir()
	d := filepath.Join(dir, "shards", "0")
	must(t, os.MkdirAll(d, 0o755))
	must(t, os.WriteFile(filepath.Join(d, "x.csv"), []byte("a,b\n1,2\n"), 0o644))
	root, err := os.OpenRoot(dir)
	must(t, err)
	defer func() { _ = root.Close() }()
	// Not cancelled when the part is opened; cancelled at the copy's first read.
	_, err = MergeShards(&lateCancel{Context: context.Background()}, root, "merged", []string{"shards/0"})
	if !errors.Is(err, context.Canceled) || err.Error() != context.Canceled.Error() {
		t.Errorf("err = %v, want the context's error itself", err)
	}
	if _, statErr := os.Stat(filepath.Join(dir, "merged")); !errors.Is(statErr, os.ErrNotExist) {
		t.Errorf("a cancelled merge left its directory: %v", statErr)
	}
}
