package urlpolicy

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// A denial quotes at most 200 bytes of the URL, the mark of the cut
// included, cut on a character boundary: the message reaches conditions,
// Events and MCP answers, which must be valid UTF-8.
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
		{"one above", prefix + strings.Repeat("p", limit+1-len(prefix)), prefix + strings.Repeat("p", limit-len("…")-len(prefix)) + "…"},
		// 'é' is two bytes: the 197th byte, the last before the mark, is the
		// first half of one.
		{"a character across the limit", prefix + strings.Repeat("é", limit), prefix + strings.Repeat("é", (limit-len("…")-len(prefix))/2) + "…"},
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
