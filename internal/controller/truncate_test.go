package controller

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// The API server refuses an Event whose note is over 1024 bytes: the cut,
// ellipsis included, must fit exactly, in bytes, on a character boundary.
func TestTruncateFitsInBytes(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		n       int
		wantLen int
		cut     bool
	}{
		{name: "one below the limit", in: strings.Repeat("a", 1023), n: 1024, wantLen: 1023},
		{name: "at the limit", in: strings.Repeat("a", 1024), n: 1024, wantLen: 1024},
		{name: "one above the limit", in: strings.Repeat("a", 1025), n: 1024, wantLen: 1024, cut: true},
		{name: "multi-byte characters", in: strings.Repeat("ā", 600), n: 1024, wantLen: 1023, cut: true},
		{name: "limit smaller than the ellipsis", in: "abcdef", n: 2, wantLen: len(ellipsis), cut: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for fn, f := range map[string]func(string, int) string{"truncate": truncate, "truncateStart": truncateStart} {
				got := f(tt.in, tt.n)
				if len(got) != tt.wantLen {
					t.Errorf("%s: %d bytes, want %d", fn, len(got), tt.wantLen)
				}
				if !utf8.ValidString(got) {
					t.Errorf("%s: invalid UTF-8 %q", fn, got)
				}
				if strings.Contains(got, ellipsis) != tt.cut {
					t.Errorf("%s: ellipsis present = %v, want %v", fn, !tt.cut, tt.cut)
				}
			}
		})
	}
}
