package decisionapi

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/decision"
)

func TestFromObject(t *testing.T) {
	made := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	decided := made.Add(time.Minute)
	review := time.Date(2027, 3, 31, 0, 0, 0, 0, time.UTC)
	object := func(change func(*cwacv1alpha1.CwacIssueDecision)) *cwacv1alpha1.CwacIssueDecision {
		o := &cwacv1alpha1.CwacIssueDecision{
			ObjectMeta: metav1.ObjectMeta{Namespace: "agencies", Name: "alt", Generation: 2, CreationTimestamp: metav1.NewTime(made),
				Annotations: map[string]string{cwacv1alpha1.AnnotationDecidedBy: "alice"}},
			Spec: cwacv1alpha1.CwacIssueDecisionSpec{Organisation: "Health", Kind: cwacv1alpha1.DecisionAccepted, Reason: "vendor fix in March",
				ReviewBy: &metav1.Time{Time: review}, Issue: &cwacv1alpha1.DecidedIssue{ID: strings.Repeat("ab", 16), Element: "00000000000000ff"}},
			Status: cwacv1alpha1.CwacIssueDecisionStatus{DecidedAt: &metav1.Time{Time: decided}, Conditions: []metav1.Condition{
				{Type: cwacv1alpha1.ConditionApplied, Status: metav1.ConditionTrue, Reason: cwacv1alpha1.ReasonEntitled, ObservedGeneration: 2}}},
		}
		if change != nil {
			change(o)
		}
		return o
	}
	d, applies, err := FromObject(object(nil))
	if err != nil || !applies {
		t.Fatalf("applies %v, %v", applies, err)
	}
	if d.Ref != "agencies/alt" || d.Namespace != "agencies" || d.Organisation != "Health" || d.Kind != decision.Accepted ||
		d.Reason != "vendor fix in March" || d.DecidedBy != "alice" || !d.DecidedAt.Equal(decided) || !d.ReviewBy.Equal(review) ||
		d.Issue == nil || d.Issue.Element != 0xff || d.Issue.ID[0] != 0xab || d.Rule != "" || d.Pages != "" {
		t.Errorf("got %+v", d)
	}
	rule, _, err := FromObject(object(func(o *cwacv1alpha1.CwacIssueDecision) {
		o.Spec.Issue, o.Spec.Rule, o.Spec.Pages, o.Spec.ReviewBy, o.Status.DecidedAt = nil, "image-alt", "https://health.example/news", nil, nil
	}))
	if err != nil || rule.Issue != nil || rule.Rule != "image-alt" || rule.Pages != "https://health.example/news" || !rule.ReviewBy.IsZero() ||
		!rule.DecidedAt.Equal(made) {
		t.Errorf("rule decision: %+v %v (want the creation time before the operator has seen it)", rule, err)
	}
	for name, change := range map[string]func(*cwacv1alpha1.CwacIssueDecision){
		"no Applied condition": func(o *cwacv1alpha1.CwacIssueDecision) { o.Status.Conditions = nil },
		"Applied False":        func(o *cwacv1alpha1.CwacIssueDecision) { o.Status.Conditions[0].Status = metav1.ConditionFalse },
		"Applied of an older generation": func(o *cwacv1alpha1.CwacIssueDecision) {
			o.Generation = 3
		},
	} {
		if _, applies, err := FromObject(object(change)); applies || err != nil {
			t.Errorf("%s: applies %v, %v; want not applying, no error", name, applies, err)
		}
	}
	for name, change := range map[string]func(*cwacv1alpha1.CwacIssueDecision){
		"issue id":          func(o *cwacv1alpha1.CwacIssueDecision) { o.Spec.Issue.ID = "xyz" },
		"element not hex":   func(o *cwacv1alpha1.CwacIssueDecision) { o.Spec.Issue.Element = "zz000000000000ff" },
		"element too short": func(o *cwacv1alpha1.CwacIssueDecision) { o.Spec.Issue.Element = "ff" },
		"element too long":  func(o *cwacv1alpha1.CwacIssueDecision) { o.Spec.Issue.Element = "0000000000000000ff" },
	} {
		if _, applies, err := FromObject(object(change)); err == nil || applies {
			t.Errorf("%s: no error", name)
		}
	}
}
