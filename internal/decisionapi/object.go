// Package decisionapi reads CwacIssueDecision objects as internal/decision
// applies them. It stands apart from internal/decide (which also reads the
// issue history) so that the operator, which has no history, can give
// scans their decisions without linking the history's database drivers.
package decisionapi

import (
	"fmt"
	"strconv"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/decision"
	"github.com/a11y-dev/cwac-operator/internal/diff"
)

// FromObject is the decision a CwacIssueDecision records, and whether it
// applies: only while the operator's Applied condition is True for its
// current generation (its decider was entitled, its review date not come).
// An object whose issue id or element the API server's checks let through
// but this package cannot read is an error.
func FromObject(o *cwacv1alpha1.CwacIssueDecision) (decision.Decision, bool, error) {
	d := decision.Decision{
		Ref: o.Namespace + "/" + o.Name, Namespace: o.Namespace, Organisation: o.Spec.Organisation,
		Kind: decision.Kind(o.Spec.Kind), Reason: o.Spec.Reason, DecidedBy: o.Annotations[cwacv1alpha1.AnnotationDecidedBy],
		Rule: o.Spec.Rule, Pages: string(o.Spec.Pages),
	}
	if o.Spec.ReviewBy != nil {
		d.ReviewBy = o.Spec.ReviewBy.Time
	}
	if o.Status.DecidedAt != nil {
		d.DecidedAt = o.Status.DecidedAt.Time
	} else {
		d.DecidedAt = o.CreationTimestamp.Time
	}
	if is := o.Spec.Issue; is != nil {
		id, err := diff.ParseIssueID(is.ID)
		if err != nil {
			return decision.Decision{}, false, fmt.Errorf("decision %s: issue.id: %w", d.Ref, err)
		}
		el, err := strconv.ParseUint(is.Element, 16, 64)
		if err != nil || len(is.Element) != 16 {
			return decision.Decision{}, false, fmt.Errorf("decision %s: issue.element %q: want 16 hexadecimal digits", d.Ref, is.Element)
		}
		d.Issue = &decision.Issue{ID: id, Element: el}
	}
	c := meta.FindStatusCondition(o.Status.Conditions, cwacv1alpha1.ConditionApplied)
	applies := c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == o.Generation
	return d, applies, nil
}
