package scanpod

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/a11y-dev/cwac-operator/internal/results"
)

// A report that fits the limit exactly is written whole; one byte less and
// it is cut, to at most the limit, and says so.
func TestEncodeLimitBoundary(t *testing.T) {
	m := Report{Outcome: OutcomeCWACFailed, ExitCode: 1, Message: "boom", StderrTail: strings.Repeat("e", 3000)}
	whole, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, limit := range []int{len(whole) + 1, len(whole), len(whole) - 1} {
		got := Encode(m, limit)
		decoded, ok := Decode(string(got))
		if !ok || len(got) > limit {
			t.Fatalf("limit %d: %d bytes, decodable %v", limit, len(got), ok)
		}
		if fits := limit >= len(whole); fits != !decoded.Truncated || fits != (string(got) == string(whole)) {
			t.Errorf("limit %d for a %d-byte report: truncated %v", limit, len(whole), decoded.Truncated)
		}
	}
}

// Encode cuts the least useful parts first: just over the limit, only the
// first step's cut is made.
func TestEncodeCutsInOrder(t *testing.T) {
	orgs := make([]results.OrganisationChange, 0, 30)
	for i := range 30 {
		orgs = append(orgs, results.OrganisationChange{Organisation: fmt.Sprintf("organisation %02d", i), New: 1})
	}
	summary := &results.Summary{TotalIssues: 5, Diff: &results.DiffCounts{Baseline: "b", New: 30, ByOrganisation: orgs}}
	m := Report{Outcome: OutcomeComplete, Message: strings.Repeat("m", 600), StderrTail: strings.Repeat("s", 1600), Summary: summary}
	whole, _ := json.Marshal(m)

	got, ok := Decode(string(Encode(m, len(whole)-1)))
	if !ok || !got.Truncated {
		t.Fatalf("not cut: %+v", got)
	}
	if n := len(got.Summary.Diff.ByOrganisation); n != 10 {
		t.Errorf("first step keeps 10 organisations, got %d", n)
	}
	if got.StderrTail != m.StderrTail || got.Message != m.Message {
		t.Error("later steps' cuts were made too")
	}
	if len(summary.Diff.ByOrganisation) != 30 {
		t.Errorf("the caller's summary was changed: %d organisations", len(summary.Diff.ByOrganisation))
	}

	// With the organisations' room taken away, the stderr tail is cut next, to
	// its last 1500 bytes, the mark of the cut included.
	afterFirst := m
	afterFirst.Truncated = true
	afterFirst.Summary = &results.Summary{TotalIssues: 5, Diff: &results.DiffCounts{Baseline: "b", New: 30, ByOrganisation: orgs[:10]}}
	firstOnly, _ := json.Marshal(afterFirst)
	// A step whose result fits exactly is the last one made.
	if got := Encode(m, len(firstOnly)); string(got) != string(firstOnly) {
		t.Errorf("at exactly the first step's size, got %d bytes:\n%s", len(got), got)
	}
	got, _ = Decode(string(Encode(m, len(firstOnly)-1)))
	if want := "…" + strings.Repeat("s", 1500-len("…")); got.StderrTail != want || got.Message != m.Message {
		t.Errorf("second step: stderr %d bytes, message %d bytes", len(got.StderrTail), len(got.Message))
	}
}

// The last resort keeps the outcome and exit code whatever the limit.
func TestEncodeLastResort(t *testing.T) {
	m := Report{Outcome: OutcomeRunnerError, ExitCode: 2, ResultsDir: strings.Repeat("d", 300), Message: strings.Repeat("m", 300)}
	got := Encode(m, 10)
	if want := `{"outcome":"runner-error","exit_code":2,"truncated":true}`; string(got) != want {
		t.Errorf("Encode = %s, want %s", got, want)
	}
}

// A value JSON cannot hold is reported as such rather than lost.
func TestEncodeUnencodableSummary(t *testing.T) {
	got, ok := Decode(string(Encode(Report{Outcome: OutcomeComplete, Summary: &results.Summary{DurationSeconds: math.NaN()}}, MaxBytes)))
	if !ok || !got.Truncated || !strings.HasPrefix(got.Message, "encoding report: ") || got.Outcome != OutcomeComplete {
		t.Errorf("Encode of NaN: %+v", got)
	}
}

func TestCutBoundary(t *testing.T) {
	s := []int{1, 2, 3}
	for _, tt := range []struct {
		n    int
		want []int
	}{{4, []int{1, 2, 3}}, {3, []int{1, 2, 3}}, {2, []int{1, 2}}, {0, []int{}}} {
		if got := cut(s, tt.n); !cmp.Equal(got, tt.want) {
			t.Errorf("cut(%v, %d) = %v, want %v", s, tt.n, got, tt.want)
		}
	}
}

// diffWithOrganisations lists at most n organisations, none at all for 0,
// and never changes the caller's copy.
func TestDiffWithOrganisationsBoundary(t *testing.T) {
	orgs := []results.OrganisationChange{{Organisation: "a"}, {Organisation: "b"}, {Organisation: "c"}}
	d := &results.DiffCounts{Baseline: "x", ByOrganisation: orgs}
	for _, tt := range []struct {
		n    int
		want []string
	}{{4, []string{"a", "b", "c"}}, {3, []string{"a", "b", "c"}}, {2, []string{"a", "b"}}, {0, nil}} {
		got := diffWithOrganisations(d, tt.n)
		var names []string
		for _, o := range got.ByOrganisation {
			names = append(names, o.Organisation)
		}
		if !cmp.Equal(names, tt.want) || got.Baseline != "x" {
			t.Errorf("n=%d: %v, want %v", tt.n, names, tt.want)
		}
		if tt.n == 0 && got.ByOrganisation != nil {
			t.Errorf("n=0: an empty list, want none")
		}
	}
	if len(d.ByOrganisation) != 3 {
		t.Errorf("the caller's copy has %d organisations", len(d.ByOrganisation))
	}
	if diffWithOrganisations(nil, 1) != nil {
		t.Error("a nil diff became one")
	}
}

func TestDecodeEdges(t *testing.T) {
	tests := []struct {
		text string
		ok   bool
	}{
		{"  \n{\"outcome\":\"complete\"}\n", true},
		{`{"outcome":""}`, false},
		{`{"exit_code":1}`, false},
		{`["outcome"]`, false},
		{`{"outcome":"complete"} trailing`, false},
	}
	for _, tt := range tests {
		if _, ok := Decode(tt.text); ok != tt.ok {
			t.Errorf("Decode(%q) ok = %v, want %v", tt.text, ok, tt.ok)
		}
	}
}
