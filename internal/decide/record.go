package decide

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/decision"
	"github.com/a11y-dev/cwac-operator/internal/decisionapi"
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
	d, applied, err := decisionapi.FromObject(obj)
	if err != nil {
		return Record{}, err
	}
	if d.Issue == nil && d.Rule == "" {
		return Record{}, fmt.Errorf("decision %s names neither an issue nor a rule", d.Ref)
	}
	d.DecidedAt, d.ReviewBy = d.DecidedAt.UTC(), d.ReviewBy.UTC()
	r := Record{Decision: d, Name: obj.Name, UID: string(obj.UID), Applied: applied}
	if g := obj.Annotations[cwacv1alpha1.AnnotationDecidedByGroups]; g != "" {
		r.Groups = strings.Split(g, "\n")
	}
	if c := meta.FindStatusCondition(obj.Status.Conditions, cwacv1alpha1.ConditionApplied); c != nil && c.ObservedGeneration == obj.Generation {
		// Only a condition about this generation counts: a changed
		// decision applies once the operator has checked it again.
		r.AppliedReason, r.AppliedMessage = c.Reason, c.Message
	}
	return r, nil
}
