package textcap

import (
	"strings"
	"testing"
	"unicode/utf8"
)

const mcpMarker = "…[truncated]" // a longer marker, as the MCP server uses

// The limits, one below, at and one above the marker's length and the
// text's, and characters of two, three and four bytes straddling the cut.
func TestCut(t *testing.T) {
	tests := []struct {
		name       string
		s          string
		n          int
		head, tail string
	}{
		{"empty", "", 0, "", ""},
		{"empty, room to spare", "", 5, "", ""},
		{"empty, n below 0", "", -1, "", ""},
		{"n is 0", "abcdef", 0, "", ""},
		{"n below 0", "abcdef", -3, "", ""},
		{"n below the marker: no room for it", "abcdef", 2, "ab", "ef"},
		{"n one below the marker", "abcdef", len(Ellipsis) - 1, "ab", "ef"},
		{"n at the marker: the marker alone", "abcdef", len(Ellipsis), Ellipsis, Ellipsis},
		{"n one above the marker", "abcdef", len(Ellipsis) + 1, "a…", "…f"},
		{"text one below n", "abcde", 6, "abcde", "abcde"},
		{"text at n", "abcdef", 6, "abcdef", "abcdef"},
		{"text one above n", "abcdefg", 6, "abc…", "…efg"},
		{"two-byte character straddling the cut", "abcédef", 7, "abc…", "…def"},
		{"two-byte character just fitting", "abcédef", 8, "abcédef", "abcédef"},
		{"two-byte character ending at the cut", "abécdef", 7, "abé…", "…cdef"},
		{"two-byte character straddling the start of the kept end", "abcdéf", 5, "ab…", "…f"},
		{"two-byte character starting at the cut", "abcdéf", 6, "abc…", "…éf"},
		{"three-byte character straddling the cut", "ab€cd", 5, "ab…", "…cd"},
		{"three-byte character straddling the start of the kept end", "abc€d", 5, "ab…", "…d"},
		{"three-byte character, every byte of it", "a€b", 4, "a…", "…b"},
		{"four-byte character straddling the cut", "a😀b😀", 6, "a…", "…"},
		{"four-byte character just fitting", "a😀b😀", 8, "a😀…", "…b😀"},
		{"four-byte characters only", "😀😀😀", 8, "😀…", "…😀"},
		{"four-byte characters only, no room for one", "😀😀😀", 6, "…", "…"},
		{"only multi-byte characters, no room for one", "ééé", 4, "…", "…"},
		{"only continuation bytes (not UTF-8)", strings.Repeat("\x80", 5), 4, "…", "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Head(tt.s, tt.n); got != tt.head {
				t.Errorf("Head(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.head)
			}
			if got := Tail(tt.s, tt.n); got != tt.tail {
				t.Errorf("Tail(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.tail)
			}
		})
	}
}

// HeadMarked counts its own marker, whatever its length, and "" marks nothing.
func TestHeadMarked(t *testing.T) {
	long := "abcdefghijklmnopqrstuvwxyz"
	tests := []struct {
		name   string
		s      string
		n      int
		marker string
		want   string
	}{
		{"n one below a long marker", long, len(mcpMarker) - 1, mcpMarker, long[:len(mcpMarker)-1]},
		{"n at a long marker", long, len(mcpMarker), mcpMarker, mcpMarker},
		{"n one above a long marker", long, len(mcpMarker) + 1, mcpMarker, "a" + mcpMarker},
		{"a long marker, the text fitting", long, len(long), mcpMarker, long},
		{"no marker", long, 5, "", "abcde"},
		{"no marker, a character straddling the cut", "abcdé", 5, "", "abcd"},
		{"no marker, n is 0", long, 0, "", ""},
		{"no marker, the text fitting", "é", 2, "", "é"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := HeadMarked(tt.s, tt.n, tt.marker); got != tt.want {
				t.Errorf("HeadMarked(%q, %d, %q) = %q, want %q", tt.s, tt.n, tt.marker, got, tt.want)
			}
		})
	}
}

// A long text is cut in time linear in the cut, not in its length (the
// runner's stderr tail can be megabytes).
func TestCutLongText(t *testing.T) {
	s := strings.Repeat("é", 1<<20)
	if got := Head(s, 4096); len(got) != 4095 || !strings.HasSuffix(got, Ellipsis) {
		t.Errorf("Head of 2 MiB to 4096 bytes: %d bytes", len(got))
	}
	if got := Tail(s, 4096); len(got) != 4095 || !strings.HasPrefix(got, Ellipsis) {
		t.Errorf("Tail of 2 MiB to 4096 bytes: %d bytes", len(got))
	}
}

// boundaryAfter is the first character start in s at or after i (len(s) at
// the end): the place the next whole character would end a cut.
func boundaryAfter(s string, i int) int {
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return i
}

// checkCut checks one cut against the contract: at most n bytes with the
// marker, s unchanged when it fits, the kept part s's start (or end) cut
// between characters and as long as the limit allows, and valid UTF-8 from
// valid UTF-8.
func checkCut(t *testing.T, fn, s string, n int, marker, got string, fromEnd bool) {
	t.Helper()
	if len(s) <= n {
		if got != s {
			t.Fatalf("%s(%q, %d) = %q: the text fits and must be kept whole", fn, s, n, got)
		}
		return
	}
	if len(got) > max(n, 0) {
		t.Fatalf("%s(%q, %d) = %q: %d bytes, more than %d", fn, s, n, got, len(got), n)
	}
	if len(marker) > n {
		marker = ""
	}
	kept, ok := strings.CutSuffix(got, marker)
	if fromEnd {
		kept, ok = strings.CutPrefix(got, marker)
	}
	if n > 0 && !ok {
		t.Fatalf("%s(%q, %d) = %q: the cut is not marked with %q", fn, s, n, got, marker)
	}
	budget := max(n-len(marker), 0)
	if fromEnd {
		start := len(s) - len(kept)
		if !strings.HasSuffix(s, kept) || start < len(s) && !utf8.RuneStart(s[start]) {
			t.Fatalf("%s(%q, %d) = %q: not an end of the text cut between characters", fn, s, n, got)
		}
		if start > 0 {
			prev := start - 1
			for prev > 0 && !utf8.RuneStart(s[prev]) {
				prev--
			}
			if len(s)-prev <= budget && utf8.RuneStart(s[prev]) {
				t.Fatalf("%s(%q, %d) = %q: the character before the cut would have fitted", fn, s, n, got)
			}
		}
	} else {
		if !strings.HasPrefix(s, kept) || len(kept) > 0 && !utf8.RuneStart(s[len(kept)]) {
			t.Fatalf("%s(%q, %d) = %q: not a start of the text cut between characters", fn, s, n, got)
		}
		if next := boundaryAfter(s, len(kept)+1); next <= budget {
			t.Fatalf("%s(%q, %d) = %q: the character after the cut would have fitted", fn, s, n, got)
		}
	}
	if utf8.ValidString(s) && !utf8.ValidString(got) {
		t.Fatalf("%s(%q, %d) = %q: not valid UTF-8", fn, s, n, got)
	}
}

func FuzzCut(f *testing.F) {
	for _, seed := range []string{"", "abcdef", "abcédef", "a€b", "a😀b😀", "ééé", "\x80\x80\x80", "a\xffb\xe2\x82"} {
		f.Add(seed, 3)
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		n %= len(s) + 20 // limits near the text's length, where cuts happen
		checkCut(t, "Head", s, n, Ellipsis, Head(s, n), false)
		checkCut(t, "Tail", s, n, Ellipsis, Tail(s, n), true)
		checkCut(t, "HeadMarked", s, n, mcpMarker, HeadMarked(s, n, mcpMarker), false)
		checkCut(t, "HeadMarked", s, n, "", HeadMarked(s, n, ""), false)
	})
}
