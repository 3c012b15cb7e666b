package dashboard

import (
	"testing"
	"time"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/decide"
	"github.com/a11y-dev/cwac-operator/internal/decision"
	"github.com/a11y-dev/cwac-operator/internal/diff"
	"github.com/a11y-dev/cwac-operator/internal/store"
)

// TestIssueDecisions: the decisions about an issue, whatever their state,
// each saying whether it covers the issue and, if not, why; decisions
// about other issues, rules, organisations and pages are left out.
func TestIssueDecisions(t *testing.T) {
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	is := store.Issue{Fingerprint: "0123456789abcdef0123456789abcdef", Organisation: orgAlpha, Rule: "image-alt",
		Page: "https://alpha.example/news/2026", ElementHash: 7}
	f := decide.FindingOf(testNS, is)
	id, _ := diff.ParseIssueID(is.Fingerprint)
	other, _ := diff.ParseIssueID("ffffffffffffffffffffffffffffffff")
	rec := func(name string, age int, applied bool, reason string, d decision.Decision) decide.Record {
		d.Ref, d.Namespace, d.Kind, d.DecidedAt = testNS+"/"+name, testNS, cwacv1alpha1.DecisionWontFix, now.AddDate(0, 0, -age)
		if d.Organisation == "" {
			d.Organisation = orgAlpha
		}
		return decide.Record{Name: name, Decision: d, Applied: applied, AppliedReason: reason}
	}
	records := []decide.Record{
		rec("everywhere", 9, true, cwacv1alpha1.ReasonEntitled, decision.Decision{Rule: "image-alt"}),
		rec("news", 8, true, cwacv1alpha1.ReasonEntitled, decision.Decision{Rule: "image-alt", Pages: "https://alpha.example/news"}),
		rec("not-entitled", 7, false, cwacv1alpha1.ReasonNotEntitled, decision.Decision{Issue: &decision.Issue{ID: id, Element: 7}}),
		rec("old-element", 6, true, cwacv1alpha1.ReasonEntitled, decision.Decision{Issue: &decision.Issue{ID: id, Element: 8}}),
		rec("past-review", 5, true, cwacv1alpha1.ReasonEntitled, decision.Decision{Rule: "image-alt", ReviewBy: now.Add(-time.Hour)}),
		rec("unchecked", 4, false, "", decision.Decision{Rule: "image-alt"}),
		// Not about this issue:
		rec("newsletter", 1, true, cwacv1alpha1.ReasonEntitled, decision.Decision{Rule: "image-alt", Pages: "https://alpha.example/newsletter"}),
		rec("other-rule", 1, true, cwacv1alpha1.ReasonEntitled, decision.Decision{Rule: "label"}),
		rec("other-org", 1, true, cwacv1alpha1.ReasonEntitled, decision.Decision{Rule: "image-alt", Organisation: orgBeta}),
		rec("other-issue", 1, true, cwacv1alpha1.ReasonEntitled, decision.Decision{Issue: &decision.Issue{ID: other, Element: 7}}),
	}
	want := []struct{ name, why string }{
		{"news", ""},
		{"unchecked", "not applied yet: the operator has not checked it"},
		{"past-review", "its review date has passed"},
		{"old-element", "the element has changed since the decision"},
		{"not-entitled", "not applied: NotEntitled"},
		{"everywhere", "a more specific decision covers the issue"},
	}
	got := issueDecisions(records, f, now)
	if len(got) != len(want) {
		t.Fatalf("%d decisions shown, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		if got[i].Name != w.name || got[i].Why != w.why || got[i].Covers != (w.why == "") {
			t.Errorf("decision %d: %s covers %v (%q), want %s (%q)", i, got[i].Name, got[i].Covers, got[i].Why, w.name, w.why)
		}
	}
	if e := got[3].ElementDecided; e == nil || *e {
		t.Errorf("old-element: element still decided %v", e)
	}
	if e := got[4].ElementDecided; e == nil || !*e {
		t.Errorf("not-entitled: element still decided %v", e)
	}
}
