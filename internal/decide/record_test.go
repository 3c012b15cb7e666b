package decide

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// TestRecordOf: the object as the product applies it; Applied counts only
// when it is about the object's own generation.
func TestRecordOf(t *testing.T) {
	decided := metav1.NewTime(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	obj := &cwacv1alpha1.CwacIssueDecision{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "d1", Generation: 2, CreationTimestamp: metav1.NewTime(time.Unix(1000, 0)),
			Annotations: map[string]string{cwacv1alpha1.AnnotationDecidedBy: "lead", cwacv1alpha1.AnnotationDecidedByGroups: "a\nb"}},
		Spec: cwacv1alpha1.CwacIssueDecisionSpec{Organisation: "Ministry of Health", Kind: cwacv1alpha1.DecisionWontFix, Reason: "r",
			Issue: &cwacv1alpha1.DecidedIssue{ID: anID, Element: "00000000000000ff"}},
		Status: cwacv1alpha1.CwacIssueDecisionStatus{DecidedAt: &decided, Conditions: []metav1.Condition{{Type: cwacv1alpha1.ConditionApplied,
			Status: metav1.ConditionTrue, Reason: cwacv1alpha1.ReasonEntitled, ObservedGeneration: 2}}}}
	r, err := RecordOf(obj)
	if err != nil {
		t.Fatal(err)
	}
	if r.Ref != ns+"/d1" || r.Issue == nil || r.Issue.Element != 255 || r.Issue.ID.String() != anID || r.DecidedBy != "lead" ||
		strings.Join(r.Groups, ",") != "a,b" || !r.DecidedAt.Equal(decided.Time) || !r.Applied || r.AppliedReason != cwacv1alpha1.ReasonEntitled || r.Reason != "r" {
		t.Errorf("record %+v", r)
	}
	obj.Generation = 3 // changed since the operator looked
	if r, _ := RecordOf(obj); r.Applied || r.AppliedReason != "" {
		t.Errorf("a condition of an older generation counts: %+v", r)
	}
	obj.Status = cwacv1alpha1.CwacIssueDecisionStatus{}
	if r, _ := RecordOf(obj); !r.DecidedAt.Equal(time.Unix(1000, 0)) {
		t.Errorf("without decidedAt: %v, want the creation time", r.DecidedAt)
	}
	for name, spec := range map[string]cwacv1alpha1.CwacIssueDecisionSpec{
		"a bad id":      {Issue: &cwacv1alpha1.DecidedIssue{ID: "x", Element: "00000000000000ff"}},
		"a bad element": {Issue: &cwacv1alpha1.DecidedIssue{ID: anID, Element: "zz"}},
		"no scope":      {Organisation: "o"},
	} {
		if _, err := RecordOf(&cwacv1alpha1.CwacIssueDecision{Spec: spec}); err == nil {
			t.Errorf("%s: read", name)
		}
	}
}
