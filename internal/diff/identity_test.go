package diff

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/a11y-dev/cwac-operator/internal/results"
)

// TestMatchElements: the exported matcher pairs as Compare does, HTML and
// target first, then HTML, then target, and leaves the rest unmatched.
func TestMatchElements(t *testing.T) {
	const h1, h2, h3, t1, t2, t3 = 11, 12, 13, 21, 22, 23
	cases := []struct {
		name      string
		base, cur []Element
		want      []ElementMatch
	}{
		{"nothing before", nil, []Element{{h1, t1}}, []ElementMatch{{Base: -1}}},
		{"nothing now", []Element{{h1, t1}}, nil, []ElementMatch{}},
		{"same html and target", []Element{{h2, t2}, {h1, t1}}, []Element{{h1, t1}, {h2, t2}},
			[]ElementMatch{{Base: 1}, {Base: 0}}},
		{"html moved to another target", []Element{{h1, t1}}, []Element{{h1, t2}}, []ElementMatch{{Base: 0}}},
		{"html changed at the same target", []Element{{h1, t1}}, []Element{{h2, t1}}, []ElementMatch{{Base: 0, OnTarget: true}}},
		{"exact pair before html-only", []Element{{h1, t1}, {h1, t2}}, []Element{{h1, t2}},
			[]ElementMatch{{Base: 1}}},
		{"html before target", []Element{{h1, t1}, {h2, t2}}, []Element{{h2, t1}},
			[]ElementMatch{{Base: 1}}},
		{"one fixed, one new", []Element{{h1, t1}}, []Element{{h3, t3}}, []ElementMatch{{Base: -1}}},
		{"duplicates pair one to one", []Element{{h1, t1}, {h1, t1}}, []Element{{h1, t1}, {h1, t1}, {h1, t1}},
			[]ElementMatch{{Base: 0}, {Base: 1}, {Base: -1}}},
		{"target pairs in file order", []Element{{h1, t3}, {h2, t3}}, []Element{{h3, t3}},
			[]ElementMatch{{Base: 0, OnTarget: true}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := MatchElements(tc.base, tc.cur)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("MatchElements (-want +got):\n%s", diff)
			}
		})
	}
}

// TestIdentityHelpers: the exported rules are the comparison's own.
func TestIdentityHelpers(t *testing.T) {
	if got := PageKey("HTTPS://Example.org:443"); got != "https://example.org/" {
		t.Errorf("PageKey = %q", got)
	}
	if !FocusedBody("<body class=x>") || FocusedBody("<a>") {
		t.Error("FocusedBody does not follow focusedBody")
	}
	if !FocusAnimating(animatingPrefix+" (10 s)") || FocusAnimating("Tab key press #1 did not show a focus indicator") {
		t.Error("FocusAnimating does not follow the animating prefix")
	}
	if FocusAuditFile != "focus_indicator_audit.csv" {
		t.Errorf("FocusAuditFile = %q", FocusAuditFile)
	}
	for _, tc := range []struct{ csv, want string }{
		{"target,description\n/html/body,Tab key press #1\n", "/html/body"},
		{"description\nTab key press #2\n", "Tab key press #2"},
	} {
		r, err := results.NewReader(strings.NewReader(tc.csv))
		if err != nil {
			t.Fatal(err)
		}
		row, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if got := ElementTarget(r, row); got != tc.want {
			t.Errorf("ElementTarget(%q) = %q, want %q", tc.csv, got, tc.want)
		}
	}
}
