package decide

import (
	"errors"
	"strings"
	"testing"
	"time"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

func fieldOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Field
	}
	if err != nil {
		return "not an *Error: " + err.Error()
	}
	return ""
}

const anID = "0123456789abcdef0123456789abcdef"

// TestCheck: every refusal names its field, in the words cwac_decide and
// the dashboard's form both show; what is accepted makes the spec.
func TestCheck(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		in    Request
		field string
		words string
	}{
		{"no kind", Request{Rule: "r", Organisation: "o", Reason: "r"}, FieldKind, "Invalid kind: choose one (FalsePositive, Accepted or WontFix)"},
		{"an unknown kind", Request{Rule: "r", Organisation: "o", Kind: "Ignore", Reason: "r"}, FieldKind, `"Ignore"`},
		{"a kind in another case", Request{Rule: "r", Organisation: "o", Kind: "wontfix", Reason: "r"}, FieldKind, `"wontfix"`},
		{"no reason", Request{Rule: "r", Organisation: "o", Kind: "WontFix"}, FieldReason, "Invalid reason: say why (at most 2000 characters)"},
		{"a blank reason", Request{Rule: "r", Organisation: "o", Kind: "WontFix", Reason: " \n\t"}, FieldReason, "say why"},
		{"neither issue nor rule", Request{Kind: "WontFix", Reason: "r"}, FieldArguments, "give issue_id or rule"},
		{"both issue and rule", Request{IssueID: anID, Rule: "r", Kind: "WontFix", Reason: "r"}, FieldArguments, "not both"},
		{"an issue with an organisation", Request{IssueID: anID, Organisation: "o", Kind: "WontFix", Reason: "r"}, FieldArguments,
			"an issue names its own organisation"},
		{"an issue with pages", Request{IssueID: anID, Pages: "https://a.example/", Kind: "WontFix", Reason: "r"}, FieldArguments,
			"give organisation and pages only with rule"},
		{"a rule without organisation", Request{Rule: "r", Kind: "WontFix", Reason: "r"}, FieldOrganisation, "names the organisation it is for"},
		{"not an id", Request{IssueID: "Healtha", Kind: "WontFix", Reason: "r"}, FieldIssueID, "Invalid issue_id: issue id"},
		{"an upper-case id", Request{IssueID: strings.ToUpper(anID), Kind: "WontFix", Reason: "r"}, FieldIssueID, "32 lower-case"},
		{"a rule with a space", Request{Rule: "color contrast", Organisation: "o", Kind: "WontFix", Reason: "r"}, FieldRule,
			`"color contrast" is not an axe rule id`},
		{"pages not http", Request{Rule: "r", Organisation: "o", Pages: "ftp://x/", Kind: "WontFix", Reason: "r"}, FieldPages,
			"pages is an http(s) address"},
		{"pages with user information", Request{Rule: "r", Organisation: "o", Pages: "https://me@a.example/", Kind: "WontFix", Reason: "r"},
			FieldPages, "without user information"},
		{"pages without a host", Request{Rule: "r", Organisation: "o", Pages: "https:///news", Kind: "WontFix", Reason: "r"}, FieldPages, "Invalid pages"},
		{"accepted for ever", Request{Rule: "r", Organisation: "o", Kind: "Accepted", Reason: "r"}, FieldReviewBy,
			"an Accepted decision needs one"},
		{"not a date", Request{Rule: "r", Organisation: "o", Kind: "WontFix", Reason: "r", ReviewBy: "31/03/2027"}, FieldReviewBy,
			`Invalid review_by: "31/03/2027" (YYYY-MM-DD, or an RFC 3339 time)`},
		{"a date that has passed", Request{Rule: "r", Organisation: "o", Kind: "WontFix", Reason: "r", ReviewBy: "2020-01-01"}, FieldReviewBy,
			`"2020-01-01" has passed`},
	} {
		d, err := Check(tc.in, now)
		if fieldOf(err) != tc.field || err == nil || !strings.Contains(err.Error(), tc.words) || d != nil {
			t.Errorf("%s: %v (field %q), want field %q saying %q", tc.name, err, fieldOf(err), tc.field, tc.words)
		}
	}

	d, err := Check(Request{Rule: "color-contrast", Organisation: "Ministry of Health", Pages: "https://health.example/book",
		Kind: "Accepted", Reason: "a supplier's widget", ReviewBy: "2027-03-31"}, now)
	if err != nil {
		t.Fatal(err)
	}
	s := d.Spec
	if s.Kind != cwacv1alpha1.DecisionAccepted || s.Rule != "color-contrast" || s.Organisation != "Ministry of Health" ||
		s.Pages != "https://health.example/book" || s.Issue != nil || !s.ReviewBy.Time.Equal(time.Date(2027, 3, 31, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("rule decision %+v", s)
	}
	d, err = Check(Request{IssueID: anID, Kind: "FalsePositive", Reason: "decorative", ReviewBy: "2027-03-31T12:00:00+13:00"}, now)
	if err != nil {
		t.Fatal(err)
	}
	if d.Spec.Issue == nil || d.Spec.Issue.ID != anID || d.Spec.ReviewBy.Location() != time.UTC || d.Spec.ReviewBy.Hour() != 23 {
		t.Errorf("issue decision %+v %v", d.Spec, d.Spec.ReviewBy)
	}
}
