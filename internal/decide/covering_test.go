package decide

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/store"
)

type listed struct {
	objs []cwacv1alpha1.CwacIssueDecision
	err  error
}

func (l listed) List(context.Context, string) ([]cwacv1alpha1.CwacIssueDecision, error) {
	return l.objs, l.err
}

// TestCoveringIn: one read of the namespace's decisions says which covers
// an issue; one that cannot be read covers nothing and is logged; a
// failed read is the caller's error.
func TestCoveringIn(t *testing.T) {
	applied := []metav1.Condition{{Type: cwacv1alpha1.ConditionApplied, Status: metav1.ConditionTrue, Reason: cwacv1alpha1.ReasonEntitled}}
	rule := cwacv1alpha1.CwacIssueDecision{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "alt"},
		Spec:   cwacv1alpha1.CwacIssueDecisionSpec{Organisation: "Ministry of Health", Kind: cwacv1alpha1.DecisionFalsePositive, Reason: "r", Rule: "image-alt"},
		Status: cwacv1alpha1.CwacIssueDecisionStatus{Conditions: applied}}
	unreadable := cwacv1alpha1.CwacIssueDecision{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "bad"},
		Spec: cwacv1alpha1.CwacIssueDecisionSpec{Issue: &cwacv1alpha1.DecidedIssue{ID: "x", Element: "00000000000000ff"}}}
	var logged bytes.Buffer
	cover, err := CoveringIn(context.Background(), listed{objs: []cwacv1alpha1.CwacIssueDecision{unreadable, rule}}, ns, time.Now(),
		slog.New(slog.NewTextHandler(&logged, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if d := cover(store.Issue{Organisation: "Ministry of Health", Rule: "image-alt", Page: "https://health.example/"}); d == nil || d.Decision != ns+"/alt" {
		t.Errorf("the rule's issue: %+v", d)
	}
	if d := cover(store.Issue{Organisation: "Ministry of Health", Rule: "label", Page: "https://health.example/"}); d != nil {
		t.Errorf("another rule's issue is covered by %+v", d)
	}
	if !strings.Contains(logged.String(), "a decision that cannot be read covers nothing") || !strings.Contains(logged.String(), "bad") {
		t.Errorf("logged %q", logged.String())
	}
	if _, err := CoveringIn(context.Background(), listed{err: errors.New("forbidden")}, ns, time.Now(), slog.Default()); err == nil ||
		err.Error() != "forbidden" {
		t.Errorf("a failed read: %v", err)
	}
}
