package cwac

import (
	"strings"
	"testing"
)

// CWAC's 50-character audit_name limit, one below, at and one above, in
// each place that enforces it.
func TestAuditNameLengthBoundary(t *testing.T) {
	for _, n := range []int{MaxAuditNameLength - 1, MaxAuditNameLength, MaxAuditNameLength + 1} {
		name := strings.Repeat("a", n)
		wantValid := n <= MaxAuditNameLength
		if err := ValidateAuditName(name); (err == nil) != wantValid {
			t.Errorf("ValidateAuditName(%d characters) = %v, want valid %v", n, err, wantValid)
		}
		_, audit, ok := ParseResultsDirName("2026-11-21_23-18-23_" + name)
		if ok != wantValid || (ok && audit != name) {
			t.Errorf("ParseResultsDirName(… %d characters) = %q, %v; want ok %v", n, audit, ok, wantValid)
		}
		if got, want := AuditNameFrom(name), strings.Repeat("a", min(n, MaxAuditNameLength)); got != want {
			t.Errorf("AuditNameFrom(%d characters) = %d characters, want %d", n, len(got), len(want))
		}
	}
}

// AuditNameFrom keeps exactly the characters CWAC allows and replaces the
// rest, checked at both ends of each allowed range; a dot left at the cut
// is trimmed.
func TestAuditNameFromCharacterRanges(t *testing.T) {
	tests := []struct{ in, want string }{
		{"az", "az"},
		{"AZ", "AZ"},
		{"09", "09"},
		{"a-b_c.d", "a-b_c.d"},
		{"`{@[/:", "______"}, // each just outside a range: ` before a, { after z, @ before A, [ after Z, / before 0, : after 9
		{"naïve", "na_ve"},
		{"x y", "x_y"},
		{strings.Repeat("a", MaxAuditNameLength-1) + ".b", strings.Repeat("a", MaxAuditNameLength-1)},
		{"." + strings.Repeat("a", MaxAuditNameLength), strings.Repeat("a", MaxAuditNameLength-1)},
	}
	for _, tt := range tests {
		got := AuditNameFrom(tt.in)
		if got != tt.want {
			t.Errorf("AuditNameFrom(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if err := ValidateAuditName(got); err != nil {
			t.Errorf("AuditNameFrom(%q) = %q, which CWAC refuses: %v", tt.in, got, err)
		}
	}
}

// Without a traceback, the cause is the last meaningful line, the first
// line of stderr included.
func TestFailureCauseFirstLine(t *testing.T) {
	tests := []struct{ stderr, want string }{
		{"Chrome failed to start\n\n----\n", "Chrome failed to start"},
		{"only line", "only line"},
		{"first\nsecond\n", "second"},
		{"# a comment only\n", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := FailureCause(tt.stderr); got != tt.want {
			t.Errorf("FailureCause(%q) = %q, want %q", tt.stderr, got, tt.want)
		}
	}
}
