package scanpod

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/decision"
	"github.com/a11y-dev/cwac-operator/internal/diff"
)

func TestDecisionsRoundTrip(t *testing.T) {
	at := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	review := at.AddDate(0, 4, 0)
	id, _ := diff.ParseIssueID(strings.Repeat("ab", 16))
	in := []decision.Decision{
		{Ref: "agencies/alt", Namespace: "agencies", Organisation: "Health", Kind: decision.FalsePositive, Reason: "decorative",
			DecidedBy: "alice", DecidedAt: at, Issue: &decision.Issue{ID: id, Element: 0xff}},
		{Ref: "agencies/widget", Namespace: "agencies", Organisation: "Health", Kind: decision.Accepted, Reason: strings.Repeat("é", 400),
			DecidedAt: at.Add(time.Hour), ReviewBy: review, Rule: "color-contrast", Pages: "https://health.example/book"},
	}
	data, left, err := EncodeDecisions(in, at, maxDecisionsBytes)
	if err != nil || left != 0 {
		t.Fatalf("encode: %d left, %v", left, err)
	}
	got, gotAt, err := ReadDecisions(strings.NewReader(string(data)), "agencies")
	if err != nil {
		t.Fatal(err)
	}
	if !gotAt.Equal(at) {
		t.Errorf("the decisions apply as of %v, want %v", gotAt, at)
	}
	if len(got) != 2 || got[0].Ref != "agencies/widget" {
		t.Fatalf("got %+v: want both, newest first", got)
	}
	if r := got[0].Reason; len(r) > MaxDecisionReasonBytes || !strings.HasSuffix(r, "…") {
		t.Errorf("a long reason reaches the pod as %d bytes %q…, want at most %d, marked cut", len(r), r[:10], MaxDecisionReasonBytes)
	}
	want := in[0]
	if !reflect.DeepEqual(got[1], want) {
		t.Errorf("issue decision %+v, want %+v", got[1], want)
	}
	if !got[0].ReviewBy.Equal(review) || got[0].Rule != "color-contrast" || got[0].Pages != "https://health.example/book" || got[0].Issue != nil {
		t.Errorf("rule decision %+v", got[0])
	}
}

func TestDecisionsNewestKept(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	in := make([]decision.Decision, 0, MaxDecisions+5)
	for i := range MaxDecisions + 5 {
		in = append(in, decision.Decision{Ref: "ns/d", Organisation: "O", Kind: decision.WontFix, Reason: "r", Rule: "image-alt",
			DecidedAt: at.Add(time.Duration(i) * time.Minute)})
	}
	data, left, err := EncodeDecisions(in, at, maxDecisionsBytes)
	if err != nil || left != 5 {
		t.Fatalf("%d left (%v), want 5", left, err)
	}
	got, _, err := ReadDecisions(strings.NewReader(string(data)), "ns")
	if err != nil || len(got) != MaxDecisions || !got[0].DecidedAt.Equal(in[len(in)-1].DecidedAt) || !got[len(got)-1].DecidedAt.Equal(in[5].DecidedAt) {
		t.Fatalf("%d decisions (%v); want the newest %d", len(got), err, MaxDecisions)
	}
	if len(data) > maxDecisionsBytes {
		t.Errorf("%d bytes, over %d", len(data), maxDecisionsBytes)
	}
}

func TestReadDecisionsRefuses(t *testing.T) {
	ok := `{"ref":"ns/a","organisation":"O","kind":"WontFix","reason":"r","decided_at":"2026-01-01T00:00:00Z"`
	issue := `"issue_id":"` + strings.Repeat("a", 32) + `"`
	const head = `{"version":1,"at":"2026-01-01T00:00:00Z","decisions":[`
	for name, c := range map[string]struct{ doc, want string }{
		"another version":   {`{"version":2,"decisions":[]}`, "version 2"},
		"an unknown field":  {`{"version":1,"at":"2026-01-01T00:00:00Z","decisions":[],"extra":1}`, "unknown field"},
		"an unknown kind":   {head + strings.Replace(ok, "WontFix", "Ignore", 1) + `,"rule":"x"}]}`, `kind "Ignore"`},
		"neither":           {head + ok + `}]}`, "give an issue or a rule"},
		"both":              {head + ok + `,"rule":"x",` + issue + `,"element":"00000000000000ff"}]}`, "give an issue or a rule"},
		"a bad issue id":    {head + ok + `,"issue_id":"nothex","element":"00000000000000ff"}]}`, "decision 0"},
		"a short element":   {head + ok + `,` + issue + `,"element":"ff"}]}`, "16 hexadecimal digits"},
		"a stray element":   {head + ok + `,"rule":"x","element":"00000000000000ff"}]}`, "an element without an issue"},
		"deep nesting":      {strings.Repeat("[", 100) + strings.Repeat("]", 100), "nest deeper"},
		"not JSON":          {`version: 1`, DecisionsFile},
		"a string too long": {head + ok + `,"rule":"` + strings.Repeat("x", maxDecisionFieldBytes+100) + `"}]}`, "longer than the limit"},
	} {
		if _, _, err := ReadDecisions(strings.NewReader(c.doc), "ns"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", name, err, c.want)
		}
	}
}

// TestDecisionsWithinRoom: a scan whose other files leave little room
// gets the newest decisions that fit, and says how many it left out.
func TestDecisionsWithinRoom(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	in := make([]decision.Decision, 0, 50)
	for i := range 50 {
		in = append(in, decision.Decision{Ref: "ns/d", Organisation: "O", Kind: decision.WontFix, Reason: strings.Repeat("r", 200),
			Rule: "image-alt", DecidedAt: at.Add(time.Duration(i) * time.Minute)})
	}
	data, left, err := EncodeDecisions(in, at, 4096)
	if err != nil || len(data) > 4096 || left == 0 || left == 50 {
		t.Fatalf("%d bytes, %d left (%v): want some, within 4096 bytes", len(data), left, err)
	}
	got, _, err := ReadDecisions(strings.NewReader(string(data)), "ns")
	if err != nil || len(got) != 50-left || !got[0].DecidedAt.Equal(in[49].DecidedAt) {
		t.Fatalf("read %d (%v), want the newest %d", len(got), err, 50-left)
	}
	if data, left, err := EncodeDecisions(in, at, 10); err != nil || left != 50 || !strings.Contains(string(data), `"decisions":[]`) {
		t.Errorf("no room: %s, %d left, %v", data, left, err)
	}
}
