package cireport

import (
	"testing"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/decision"
)

// TestSARIFSuppressions: a result a decision covers carries one accepted,
// external suppression with the decision's reason as its justification
// (the schema accepts it); a decision past its review date, or about
// another organisation or rule, suppresses nothing.
func TestSARIFSuppressions(t *testing.T) {
	at := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	_, plain := sarifOf(t, realFS(t), realOpts)
	org := ""
	for _, r := range plain.Runs[0].Results {
		if r.RuleID == "image-alt" {
			org = r.Properties.Organisation
		}
	}
	if org == "" {
		t.Fatal("no image-alt result in the real run")
	}
	opts := realOpts
	opts.DecidedAt = at
	opts.Decisions = decision.NewSet([]decision.Decision{
		{Ref: "ns/alt", Organisation: org, Kind: decision.FalsePositive, Reason: "decorative images, hidden from assistive technology",
			DecidedBy: "alice", Rule: "image-alt"},
		{Ref: "ns/expired", Organisation: org, Kind: decision.WontFix, Reason: "r", Rule: "color-contrast", ReviewBy: at.Add(-time.Hour)},
		{Ref: "ns/other-org", Organisation: "Someone Else", Kind: decision.WontFix, Reason: "r", Rule: "label"},
	})
	_, log := sarifOf(t, realFS(t), opts)
	suppressed := 0
	for _, r := range log.Runs[0].Results {
		switch {
		case r.RuleID == "image-alt":
			if len(r.Suppressions) != 1 {
				t.Fatalf("an image-alt result has %d suppressions, want 1", len(r.Suppressions))
			}
			s := r.Suppressions[0]
			if s.Kind != "external" || s.Status != "accepted" || s.Justification != "decorative images, hidden from assistive technology" ||
				s.Properties.Decision != "ns/alt" || s.Properties.Kind != "FalsePositive" || s.Properties.DecidedBy != "alice" {
				t.Errorf("suppression %+v", s)
			}
			suppressed++
		case len(r.Suppressions) > 0:
			t.Errorf("a %s result is suppressed: %+v", r.RuleID, r.Suppressions)
		}
	}
	if suppressed == 0 {
		t.Error("nothing suppressed")
	}
	validateSARIF(t, realFS(t), opts)
}
