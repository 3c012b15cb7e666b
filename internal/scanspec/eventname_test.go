package scanspec

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

// An Event's generateName keeps the scan's name up to the cut and no dash
// or dot left at it, then the source word; the cut is what makes the whole
// prefix fit in the 58 characters the API server keeps.
func TestEventNamePrefix(t *testing.T) {
	const source = "history"
	cut := maxKeptGenerateName - len("-"+source+"-") // 49
	tests := []struct {
		name, scan, want string
	}{
		{"short name", "week-1", "week-1-history-"},
		{"one below the cut", strings.Repeat("a", cut-1), strings.Repeat("a", cut-1) + "-history-"},
		{"exactly at the cut", strings.Repeat("a", cut), strings.Repeat("a", cut) + "-history-"},
		{"one past the cut", strings.Repeat("a", cut+1), strings.Repeat("a", cut) + "-history-"},
		{"the longest name", strings.Repeat("a", validation.DNS1123SubdomainMaxLength), strings.Repeat("a", cut) + "-history-"},
		{"cut landing on a dash", strings.Repeat("a", cut-1) + "-b", strings.Repeat("a", cut-1) + "-history-"},
		{"cut landing on a dot", strings.Repeat("a", cut-1) + ".b", strings.Repeat("a", cut-1) + "-history-"},
		{"cut landing after a dot and dashes", strings.Repeat("a", cut-3) + ".--bc", strings.Repeat("a", cut-3) + "-history-"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := EventNamePrefix(tt.scan, source); got != tt.want {
				t.Errorf("EventNamePrefix(%q, %q) = %q, want %q", tt.scan, source, got, tt.want)
			}
		})
	}
}

// Whatever the scan's name and whichever component records the Event, the
// API server keeps the whole prefix, and the name it makes from it is a
// valid Event name.
func TestEventNamePrefixIsKeptWhole(t *testing.T) {
	for _, source := range []string{"created", "history", "x"} {
		for _, scan := range []string{"a", "week-1.b", strings.Repeat("a.b-", 64)[:validation.DNS1123SubdomainMaxLength]} {
			prefix := EventNamePrefix(scan, source)
			if len(prefix) > maxKeptGenerateName {
				t.Errorf("EventNamePrefix(%q, %q) = %q: %d characters, the API server keeps %d", scan, source, prefix, len(prefix), maxKeptGenerateName)
			}
			if !strings.HasSuffix(prefix, "-"+source+"-") {
				t.Errorf("EventNamePrefix(%q, %q) = %q does not end with the source", scan, source, prefix)
			}
			if errs := validation.IsDNS1123Subdomain(prefix + "x7k2q"); len(errs) > 0 {
				t.Errorf("%q with the random characters is not a valid name: %v", prefix, errs)
			}
		}
	}
}
