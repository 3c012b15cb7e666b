package mcpserver

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestFitJSON(t *testing.T) {
	line := "<p>héllo & \"world\"</p>\n"
	text := strings.Repeat(line, 100)
	for _, budget := range []int{0, 2, 10, 50, 500, 3000, 100000} {
		got, cut := fitJSON(text, budget)
		if size := jsonSize(got); size > budget && got != "" {
			t.Errorf("budget %d: %d bytes encoded", budget, size)
		}
		if cut != (got != text) || !strings.HasPrefix(text, got) || !utf8.ValidString(got) {
			t.Errorf("budget %d: cut %v, %d of %d bytes", budget, cut, len(got), len(text))
		}
		// Short lines: the cut is at a line end, and loses less than a line.
		if cut && budget > 10*jsonSize(line) && (!strings.HasSuffix(got, "\n") || jsonSize(got)+jsonSize(line) < budget) {
			t.Errorf("budget %d: cut at %d bytes (%d encoded): %q", budget, len(got), jsonSize(got), got[len(got)-10:])
		}
	}
	// One long line is cut inside it, never inside a character.
	got, _ := fitJSON(strings.Repeat("é", 1000), 101)
	if !utf8.ValidString(got) || jsonSize(got) > 101 || len(got) < 80 {
		t.Errorf("long line: %d bytes, valid %v", len(got), utf8.ValidString(got))
	}
}
