package decide

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/orgaccess"
	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
)

const ns = "agencies"

// TestMake: the decision names the history's organisation and element and
// its decider; a refusal makes nothing.
func TestMake(t *testing.T) {
	st := storetest.OpenSQLite(t)
	storetest.TwoAgencies(t, st, ns)
	id, element := storetest.OneIssue(t, st, ns)
	var made []*cwacv1alpha1.CwacIssueDecision
	var createErr error
	m := Maker{Namespace: ns, Store: st, Now: func() time.Time { return time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC) },
		Create: func(_ context.Context, d *cwacv1alpha1.CwacIssueDecision) error {
			if createErr != nil {
				return createErr
			}
			d.Name = d.GenerateName + "x"
			made = append(made, d)
			return nil
		}}
	lead := Decider{User: "lead@example.org", Groups: []string{"a11y", "web"}, Reach: orgaccess.Whole()}
	education := []cwacv1alpha1.CwacOrganisationGrant{{ObjectMeta: metav1.ObjectMeta{Name: "g"}, Spec: cwacv1alpha1.CwacOrganisationGrantSpec{
		Subjects:      []cwacv1alpha1.GrantSubject{{Kind: cwacv1alpha1.GrantSubjectUser, Name: "edu@example.org"}},
		Organisations: []string{"Ministry of Education"}}}}
	edu := Decider{User: "edu@example.org", Reach: orgaccess.Granted(education, "edu@example.org", nil)}
	ctx := context.Background()

	d, err := m.Make(ctx, lead, Request{IssueID: id, Kind: "WontFix", Reason: "a third party's form"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Namespace != ns || d.Spec.Organisation != "Ministry of Health" || d.Spec.Issue.Element != fmt.Sprintf("%016x", element) ||
		d.Annotations[cwacv1alpha1.AnnotationDecidedBy] != "lead@example.org" || d.Annotations[cwacv1alpha1.AnnotationDecidedByGroups] != "a11y\nweb" {
		t.Errorf("decision %+v %+v", d.ObjectMeta, d.Spec)
	}
	if _, err := m.Make(ctx, edu, Request{Rule: "image-alt", Organisation: "Ministry of Education", Kind: "FalsePositive", Reason: "decorative"}); err != nil {
		t.Errorf("by grant: %v", err)
	}

	createErr = errors.New("the API server refused")
	for name, tc := range map[string]struct {
		who  Decider
		in   Request
		want error
		says string
	}{
		"a bad request":      {lead, Request{Rule: "image-alt", Kind: "WontFix", Reason: "r"}, nil, "Invalid organisation"},
		"nobody":             {Decider{Reach: orgaccess.Whole()}, Request{IssueID: id, Kind: "WontFix", Reason: "r"}, ErrNoDecider, ""},
		"an issue not there": {lead, Request{IssueID: strings.Repeat("0", 32), Kind: "WontFix", Reason: "r"}, nil, "Invalid issue_id: no issue"},
		"outside the grants": {edu, Request{IssueID: id, Kind: "WontFix", Reason: "r"}, orgaccess.ErrNotCovered, ""},
		"an unknown org":     {edu, Request{Rule: "r", Organisation: "Nobody", Kind: "WontFix", Reason: "r"}, orgaccess.ErrNotCovered, ""},
		"the API refuses":    {lead, Request{IssueID: id, Kind: "WontFix", Reason: "r"}, createErr, "making the decision: "},
	} {
		_, err := m.Make(ctx, tc.who, tc.in)
		if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if len(made) != 2 {
		t.Errorf("%d decisions made, want the 2 accepted", len(made))
	}
}
