package urlpolicy

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// A denial quotes at most 200 bytes of the URL, cut on a character
// boundary: the message reaches conditions, Events and MCP answers, which
// must be valid UTF-8.
func TestDenialErrorCutsOnACharacter(t *testing.T) {
	const limit = 200
	prefix := "https://example.org/"
	tests := []struct {
		name    string
		url     string
		wantURL string
	}{
		{"one below", prefix + strings.Repeat("p", limit-1-len(prefix)), prefix + strings.Repeat("p", limit-1-len(prefix))},
		{"at", prefix + strings.Repeat("p", limit-len(prefix)), prefix + strings.Repeat("p", limit-len(prefix))},
		{"one above", prefix + strings.Repeat("p", limit+1-len(prefix)), prefix + strings.Repeat("p", limit-len(prefix)) + "…"},
		// 'é' is two bytes: the 200th byte is the first half of one.
		{"a character across the limit", prefix + "p" + strings.Repeat("é", limit), prefix + "p" + strings.Repeat("é", (limit-len(prefix)-1)/2) + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg := (&Denial{URL: tt.url, Rule: RuleLength, Detail: "d"}).Error()
			if !utf8.ValidString(msg) {
				t.Fatalf("not valid UTF-8: %q", msg)
			}
			if want := "URL " + tt.wantURL + " is not allowed (length): d"; msg != want {
				t.Errorf("Error() = %q, want %q", msg, want)
			}
		})
	}
}

// truncate never cuts inside a character, and stops at the start of s when
// what it holds is no character at all (bytes that only continue one).
func TestTruncateBoundary(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 4, "abc"},
		{"abc", 3, "abc"},
		{"abc", 2, "ab…"},
		{"abc", 0, "…"},
		{"aé", 2, "a…"},
		{strings.Repeat("\x80", 5), 3, "…"},
	}
	for _, tt := range tests {
		if got := truncate(tt.s, tt.n); got != tt.want {
			t.Errorf("truncate(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}
