package realcwac

import (
	"bufio"
	"encoding/csv"
	"os"
	"path/filepath"
	"testing"
)

// grown reads the axe audit a grow wrote: its rows, its distinct URLs
// and whether every issue_id is its own.
func grown(t *testing.T, dir string) (rows, urls int, idsApart bool) {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "axe_core_audit.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	br := bufio.NewReader(f)
	if head, err := br.Peek(len(bom)); err != nil || string(head) != bom {
		t.Fatalf("no byte-order mark first: %q, %v", head, err)
	}
	_, _ = br.Discard(len(bom))
	records, err := csv.NewReader(br).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	header := records[0]
	urlCol, issueCol := column(header, "url"), column(header, "issue_id")
	seenURL, seenID := map[string]bool{}, map[string]bool{}
	for _, r := range records[1:] {
		seenURL[r[urlCol]], seenID[r[issueCol]] = true, true
	}
	return len(records) - 1, len(seenURL), len(seenID) == len(records)-1
}

// TestGrowPagesApart: Grow puts each turn of the real rows on one page;
// GrowPagesApart puts it on as many pages as the real run has, and both
// write the rows asked for, each with its own issue_id.
func TestGrowPagesApart(t *testing.T) {
	realDir := t.TempDir()
	if err := Copy(realDir); err != nil {
		t.Fatal(err)
	}
	realRows, realPages, _ := grown(t, realDir)
	if realPages < 2 {
		t.Fatalf("the real run has %d pages: nothing to keep apart", realPages)
	}
	n := 3*realRows + 1 // three whole turns and the start of a fourth
	for _, tc := range []struct {
		name  string
		grow  func(string, int) error
		pages int
	}{
		{"Grow", Grow, 4},
		{"GrowPagesApart", GrowPagesApart, 3*realPages + 1},
	} {
		dir := t.TempDir()
		if err := tc.grow(dir, n); err != nil {
			t.Fatal(err)
		}
		rows, pages, idsApart := grown(t, dir)
		if rows != n || pages != tc.pages || !idsApart {
			t.Errorf("%s(%d): %d rows on %d pages (own issue_ids: %v), want %d rows on %d pages", tc.name, n, rows, pages, idsApart, n, tc.pages)
		}
	}
}
