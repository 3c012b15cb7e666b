package metrics

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// decisionObject is a rule decision of the namespace, applied or not,
// with a review date when review is not zero.
func decisionObject(ns, name string, kind cwacv1alpha1.DecisionKind, applied bool, review time.Time) cwacv1alpha1.CwacIssueDecision {
	o := cwacv1alpha1.CwacIssueDecision{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Generation: 1},
		Spec:       cwacv1alpha1.CwacIssueDecisionSpec{Organisation: "O", Kind: kind, Reason: "r", Rule: "image-alt"},
	}
	if !review.IsZero() {
		o.Spec.ReviewBy = &metav1.Time{Time: review}
	}
	status := metav1.ConditionFalse
	if applied {
		status = metav1.ConditionTrue
	}
	o.Status.Conditions = []metav1.Condition{{Type: cwacv1alpha1.ConditionApplied, Status: status, ObservedGeneration: 1, Reason: "R"}}
	return o
}

// TestDecisionCollector: decisions by namespace, kind and whether they
// apply (every known kind has its series, 0 when none); applied ones past
// their review date by namespace; a decision of a condition about an older
// generation does not count as applied; a list that fails says so.
func TestDecisionCollector(t *testing.T) {
	now := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	stale := decisionObject("health", "stale", cwacv1alpha1.DecisionWontFix, true, time.Time{})
	stale.Generation = 2 // changed since the operator checked it
	list := []cwacv1alpha1.CwacIssueDecision{
		decisionObject("health", "alt", cwacv1alpha1.DecisionFalsePositive, true, time.Time{}),
		decisionObject("health", "widget", cwacv1alpha1.DecisionAccepted, true, now.Add(-time.Hour)),
		decisionObject("health", "later", cwacv1alpha1.DecisionAccepted, true, now.Add(time.Hour)),
		decisionObject("health", "refused", cwacv1alpha1.DecisionFalsePositive, false, time.Time{}),
		stale,
		decisionObject("tax", "contrast", cwacv1alpha1.DecisionWontFix, true, time.Time{}),
	}
	c := &DecisionCollector{List: func(context.Context) ([]cwacv1alpha1.CwacIssueDecision, error) { return list, nil },
		Now: func() time.Time { return now }}
	want := `
# HELP cwac_issue_decisions CwacIssueDecisions that exist now, by namespace, kind and whether the operator applies them (applied="true").
# TYPE cwac_issue_decisions gauge
cwac_issue_decisions{applied="false",kind="Accepted",namespace="health"} 0
cwac_issue_decisions{applied="false",kind="FalsePositive",namespace="health"} 1
cwac_issue_decisions{applied="false",kind="WontFix",namespace="health"} 1
cwac_issue_decisions{applied="true",kind="Accepted",namespace="health"} 2
cwac_issue_decisions{applied="true",kind="FalsePositive",namespace="health"} 1
cwac_issue_decisions{applied="true",kind="WontFix",namespace="health"} 0
cwac_issue_decisions{applied="false",kind="Accepted",namespace="tax"} 0
cwac_issue_decisions{applied="false",kind="FalsePositive",namespace="tax"} 0
cwac_issue_decisions{applied="false",kind="WontFix",namespace="tax"} 0
cwac_issue_decisions{applied="true",kind="Accepted",namespace="tax"} 0
cwac_issue_decisions{applied="true",kind="FalsePositive",namespace="tax"} 0
cwac_issue_decisions{applied="true",kind="WontFix",namespace="tax"} 1
# HELP cwac_issue_decisions_past_review Applied CwacIssueDecisions past their review date: they cover nothing until someone decides anew.
# TYPE cwac_issue_decisions_past_review gauge
cwac_issue_decisions_past_review{namespace="health"} 1
cwac_issue_decisions_past_review{namespace="tax"} 0
# HELP cwac_issue_decision_collector_up 1 when the decision gauges were computed from the operator's cache at this scrape, 0 when it could not be read.
# TYPE cwac_issue_decision_collector_up gauge
cwac_issue_decision_collector_up 1
`
	if err := testutil.CollectAndCompare(c, strings.NewReader(want)); err != nil {
		t.Error(err)
	}

	// A kind the API does not know counts as Other, never applied.
	odd := decisionObject("tax", "odd", "Ignore", true, time.Time{})
	counts, _ := countDecisions([]cwacv1alpha1.CwacIssueDecision{odd}, now)
	if counts[decisionKey{"tax", OtherKind, "false"}] != 1 || counts[decisionKey{"tax", "Ignore", "true"}] != 0 {
		t.Errorf("an unknown kind counted as %v", counts)
	}

	failing := &DecisionCollector{List: func(context.Context) ([]cwacv1alpha1.CwacIssueDecision, error) { return nil, errors.New("down") }}
	if err := testutil.CollectAndCompare(failing, strings.NewReader(`
# HELP cwac_issue_decision_collector_up 1 when the decision gauges were computed from the operator's cache at this scrape, 0 when it could not be read.
# TYPE cwac_issue_decision_collector_up gauge
cwac_issue_decision_collector_up 0
`)); err != nil {
		t.Error(err)
	}
	inactive := &DecisionCollector{List: c.List, Active: func() bool { return false }}
	if n := testutil.CollectAndCount(inactive); n != 0 {
		t.Errorf("a standby replica reports %d series", n)
	}
}
