package diff

import (
	"strings"
	"testing"
)

// Compared is the one rule of which rows two scans compare, for the
// comparison and the issue history alike.
func TestCompared(t *testing.T) {
	ran := Observation{Ran: true}
	animating := Observation{Ran: true, Animating: true}
	replaced := Observation{Ran: true, Replaced: true}
	tests := []struct {
		name      string
		focus     bool
		base, cur Observation
		want      string // "" compared, else the start of the reason
	}{
		{"both ran", false, ran, ran, ""},
		{"the baseline did not run it", false, Observation{}, ran, "the other scan has no result"},
		{"the scan did not run it", true, ran, Observation{}, "the other scan has no result"},
		{"animating in both: compared like any row", true, animating, animating, ""},
		{"animating in the baseline only", true, animating, ran, "one scan could not run the focus audit"},
		{"animating in the scan only", true, ran, animating, "one scan could not run the focus audit"},
		{"another audit: animating is not its business", false, animating, ran, ""},
		{"replaced in the baseline", true, replaced, ran, "the page replaced itself"},
		{"replaced in the scan", true, ran, replaced, "the page replaced itself"},
		{"replaced, another audit", false, replaced, replaced, ""},
	}
	for _, tc := range tests {
		ok, reason := Compared(tc.focus, tc.base, tc.cur)
		if ok != (tc.want == "") || !strings.HasPrefix(reason, tc.want) || (ok && reason != "") {
			t.Errorf("%s: compared %v, %q; want %q", tc.name, ok, reason, tc.want)
		}
	}
	reasons := UnstableReasons()
	if len(reasons) != len(unstableReasons) {
		t.Errorf("UnstableReasons lists %d of %d reasons", len(reasons), len(unstableReasons))
	}
	for _, r := range reasons {
		if r == "" {
			t.Error("an empty reason")
		}
	}
}

func TestInterner(t *testing.T) {
	var in Interner
	row := "organisation,rule"
	a, b := in.ID(row[:12]), in.ID("rule")
	if a != 0 || b != 1 || in.ID("organisation") != 0 || in.Text(a) != "organisation" || in.Text(b) != "rule" {
		t.Errorf("ids %d %d, texts %q %q", a, b, in.Text(a), in.Text(b))
	}
}
