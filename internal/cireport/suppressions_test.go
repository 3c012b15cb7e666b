package cireport

import (
	"strings"
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

// TestJUnitSkipsDecided: a page and rule whose issues a decision covers
// all is a skipped test case whose message gives the decision and its
// reason, in no failure count; a case with some covered issues still
// fails on the others and says how many were decided; the report follows
// the schema.
func TestJUnitSkipsDecided(t *testing.T) {
	at := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	plain := parseJUnit(t, junitOf(t, realFS(t), realOpts))
	var failedAlt []junitCase
	for _, c := range plain.Suites[0].Cases {
		if c.Name == "image-alt" && c.Failure != nil {
			failedAlt = append(failedAlt, c)
		}
	}
	if len(failedAlt) == 0 {
		t.Fatal("no failed image-alt case in the real run")
	}
	_, sl := sarifOf(t, realFS(t), realOpts)
	org := ""
	for _, r := range sl.Runs[0].Results {
		if r.RuleID == "image-alt" {
			org = r.Properties.Organisation
		}
	}
	opts := realOpts
	opts.DecidedAt = at
	opts.Decisions = decision.NewSet([]decision.Decision{{Ref: "ns/alt", Organisation: org, Kind: decision.FalsePositive,
		Reason: "decorative images", DecidedBy: "alice", Rule: "image-alt"}})
	data := junitOf(t, realFS(t), opts)
	checkJUnit(t, data)
	got := parseJUnit(t, data)
	skipped := 0
	for _, c := range got.Suites[0].Cases {
		if c.Name != "image-alt" {
			if c.Skipped != nil {
				t.Errorf("a %s case is skipped", c.Name)
			}
			continue
		}
		if c.Skipped == nil || c.Failure != nil {
			t.Errorf("image-alt on %s: skipped %v, failure %v; want skipped alone", c.Classname, c.Skipped, c.Failure)
			continue
		}
		if !strings.Contains(c.Skipped.Message, "FalsePositive by alice (ns/alt): decorative images") ||
			!strings.HasPrefix(c.Skipped.Message, "2 issues decided") {
			t.Errorf("skipped message %q", c.Skipped.Message)
		}
		skipped++
	}
	if skipped != len(failedAlt) || got.Suites[0].Skipped != skipped {
		t.Errorf("%d image-alt cases skipped (suite says %d), want %d", skipped, got.Suites[0].Skipped, len(failedAlt))
	}
	if got.Suites[0].Failures != plain.Suites[0].Failures-len(failedAlt) || got.Failures != got.Suites[0].Failures {
		t.Errorf("failures %d (root %d), want %d", got.Suites[0].Failures, got.Failures, plain.Suites[0].Failures-len(failedAlt))
	}
}
