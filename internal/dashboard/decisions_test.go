package dashboard

import (
	"encoding/csv"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/decide"
	"github.com/a11y-dev/cwac-operator/internal/decision"
	"github.com/a11y-dev/cwac-operator/internal/diff"
	"github.com/a11y-dev/cwac-operator/internal/mcpapi"
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
		d.Ref, d.Namespace, d.Kind, d.DecidedAt = testNS+"/"+name, testNS, decision.WontFix, now.AddDate(0, 0, -age)
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

// TestExportsSayTheDecision: the issues exports carry the applied decision
// covering each issue (CSV: its name and kind in the last two columns;
// JSON: as cwac_issue_history does), and nothing for one not applied.
func TestExportsSayTheDecision(t *testing.T) {
	applied := func(name, rule string, ok bool) cwacv1alpha1.CwacIssueDecision {
		d := cwacv1alpha1.CwacIssueDecision{}
		d.Namespace, d.Name, d.Generation = testNS, name, 1
		d.Spec = cwacv1alpha1.CwacIssueDecisionSpec{Organisation: orgAlpha, Kind: cwacv1alpha1.DecisionWontFix, Reason: "r", Rule: rule}
		status := metav1.ConditionTrue
		if !ok {
			status = metav1.ConditionFalse
		}
		d.Status.Conditions = []metav1.Condition{{Type: cwacv1alpha1.ConditionApplied, Status: status, ObservedGeneration: 1, Reason: "x"}}
		return d
	}
	decisions := &fakeDecisions{items: []cwacv1alpha1.CwacIssueDecision{applied("alt-wontfix", "image-alt", true), applied("label-refused", "label", false)}}
	h, _ := newTestHandler(t, Options{Decisions: decisions})
	base := "/export/organisations/cwac/" + url.PathEscape(orgAlpha) + "/issues"
	_, body := get(t, h, "reader", base+".csv")
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil || len(rows) < 2 {
		t.Fatalf("issues.csv: %v", err)
	}
	head := rows[0]
	if head[len(head)-2] != "decision" || head[len(head)-1] != "decision_kind" {
		t.Fatalf("issues.csv header ends %v", head[len(head)-2:])
	}
	rule := slices.Index(head, "rule")
	decided := 0
	for _, r := range rows[1:] {
		covered := r[len(r)-2] == testNS+"/alt-wontfix" && r[len(r)-1] == "WontFix"
		if covered != (r[rule] == "image-alt") || (r[rule] != "image-alt" && r[len(r)-2] != "") {
			t.Errorf("row of %s: decision %q %q", r[rule], r[len(r)-2], r[len(r)-1])
		}
		if covered {
			decided++
		}
	}
	if decided == 0 {
		t.Error("no issue of image-alt in the export")
	}
	_, body = get(t, h, "reader", base+".json")
	var out struct {
		Issues []mcpapi.HistoryIssue `json:"issues"`
	}
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, is := range out.Issues {
		if (is.Decision != nil) != (is.Rule == "image-alt") || (is.Decision != nil && is.Decision.Kind != "WontFix") {
			t.Errorf("issue of %s: decision %+v", is.Rule, is.Decision)
		}
		if is.Decision != nil {
			n++
		}
	}
	if n != decided {
		t.Errorf("the JSON export has %d decided issues, the CSV %d", n, decided)
	}
}
