package decide

import (
	"fmt"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/decision"
	"github.com/a11y-dev/cwac-operator/internal/diff"
)

// Record is a CwacIssueDecision as the product reads it: the decision as
// internal/decision applies it, and whether the operator let it apply.
type Record struct {
	decision.Decision
	// Name is the object's name in its namespace, UID its identity (the
	// key of its history in the store).
	Name, UID string
	// Groups are the decider's groups (the decided-by-groups annotation).
	Groups []string
	// Applied is the Applied condition's status: only an applied decision
	// covers anything. AppliedReason and AppliedMessage are the
	// condition's; AppliedReason is empty while the operator has not
	// looked at this generation yet. (Reason is the decision's own.)
	Applied                       bool
	AppliedReason, AppliedMessage string
}

// RecordOf reads an object. Its scope is the API's (checked by the API
// server); one that does not parse (written before a check existed) is an
// error, so it is never mistaken for a rule decision covering everything.
func RecordOf(obj *cwacv1alpha1.CwacIssueDecision) (Record, error) {
	s := obj.Spec
	r := Record{Name: obj.Name, UID: string(obj.UID), Decision: decision.Decision{Ref: obj.Namespace + "/" + obj.Name, Namespace: obj.Namespace,
		Organisation: s.Organisation, Kind: s.Kind, Reason: s.Reason, Rule: s.Rule, Pages: s.Pages,
		DecidedBy: obj.Annotations[cwacv1alpha1.AnnotationDecidedBy], DecidedAt: obj.CreationTimestamp.UTC()}}
	if g := obj.Annotations[cwacv1alpha1.AnnotationDecidedByGroups]; g != "" {
		r.Groups = strings.Split(g, "\n")
	}
	if s.ReviewBy != nil {
		r.ReviewBy = s.ReviewBy.UTC()
	}
	if at := obj.Status.DecidedAt; at != nil {
		r.DecidedAt = at.UTC()
	}
	if s.Issue != nil {
		id, err := diff.ParseIssueID(s.Issue.ID)
		if err != nil {
			return Record{}, fmt.Errorf("decision %s: %w", r.Ref, err)
		}
		element, err := strconv.ParseUint(s.Issue.Element, 16, 64)
		if err != nil {
			return Record{}, fmt.Errorf("decision %s: element %q is not 16 hexadecimal digits", r.Ref, s.Issue.Element)
		}
		r.Issue = &decision.Issue{ID: id, Element: element}
	} else if s.Rule == "" {
		return Record{}, fmt.Errorf("decision %s names neither an issue nor a rule", r.Ref)
	}
	for _, c := range obj.Status.Conditions {
		// Only a condition about this generation counts: a changed
		// decision applies once the operator has checked it again.
		if c.Type == cwacv1alpha1.ConditionApplied && c.ObservedGeneration == obj.Generation {
			r.Applied, r.AppliedReason, r.AppliedMessage = c.Status == metav1.ConditionTrue, c.Reason, c.Message
		}
	}
	return r, nil
}
