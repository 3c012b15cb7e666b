package mcpserver

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// TestStatusFailureFields: reason and exit code come from status.failure
// when the operator recorded them there, and nothing is read out of the
// message.
func TestStatusFailureFields(t *testing.T) {
	code := int32(137)
	tests := []struct {
		name    string
		exit    *int32
		failure *cwacv1alpha1.ScanFailure
		want    StatusOutput
	}{
		{"no detail", nil, nil, StatusOutput{Reason: "JobFailed"}},
		{"full detail", nil, &cwacv1alpha1.ScanFailure{Reason: cwacv1alpha1.ReasonOOMKilled, ExitCode: &code, Cause: "out of memory", LogTail: "Killed"},
			StatusOutput{Reason: "OOMKilled", ExitCode: &code, Cause: "out of memory", Stderr: "Killed"}},
		{"status exit code wins", new(int32), &cwacv1alpha1.ScanFailure{Reason: cwacv1alpha1.ReasonNoPagesScanned, ExitCode: &code},
			StatusOutput{Reason: "NoPagesScanned", ExitCode: new(int32)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := StatusOutput{Reason: "JobFailed", ExitCode: tt.exit}
			setFailure(&out, tt.failure)
			if diff := cmp.Diff(tt.want, out); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestConditionReason(t *testing.T) {
	c := func(typ string, status metav1.ConditionStatus, reason string) metav1.Condition {
		return metav1.Condition{Type: typ, Status: status, Reason: reason}
	}
	tests := []struct {
		conds []metav1.Condition
		want  string
	}{
		{nil, ""},
		{[]metav1.Condition{c(cwacv1alpha1.ConditionStarted, metav1.ConditionFalse, cwacv1alpha1.ReasonQueued)}, "Queued"},
		{[]metav1.Condition{
			c(cwacv1alpha1.ConditionStarted, metav1.ConditionTrue, cwacv1alpha1.ReasonJobCreated),
			c(cwacv1alpha1.ConditionDegraded, metav1.ConditionTrue, cwacv1alpha1.ReasonImagePullBackOff),
		}, "ImagePullBackOff"},
		{[]metav1.Condition{c(cwacv1alpha1.ConditionDegraded, metav1.ConditionFalse, cwacv1alpha1.ReasonPodHealthy)}, ""},
		{[]metav1.Condition{c(cwacv1alpha1.ConditionFailed, metav1.ConditionTrue, cwacv1alpha1.ReasonDeadlineExceeded)}, "DeadlineExceeded"},
	}
	for _, tt := range tests {
		if got := conditionReason(tt.conds); got != tt.want {
			t.Errorf("conditionReason(%v) = %q, want %q", tt.conds, got, tt.want)
		}
	}
}

func TestStatusVerdict(t *testing.T) {
	tests := []struct {
		name       string
		conditions []metav1.Condition
		wantMet    *bool
		wantText   string
	}{
		{name: "not judged yet", conditions: nil},
		{
			name:       "within",
			conditions: []metav1.Condition{{Type: cwacv1alpha1.ConditionThresholdsMet, Status: metav1.ConditionTrue, Message: "ok"}},
			wantMet:    ptrTo(true), wantText: "ok",
		},
		{
			name:       "crossed",
			conditions: []metav1.Condition{{Type: cwacv1alpha1.ConditionThresholdsMet, Status: metav1.ConditionFalse, Message: "critical issues 6 > 0"}},
			wantMet:    ptrTo(false), wantText: "critical issues 6 > 0",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out StatusOutput
			setVerdict(&out, tt.conditions)
			if diff := cmp.Diff(tt.wantMet, out.ThresholdsMet); diff != "" || out.Verdict != tt.wantText {
				t.Errorf("thresholds_met (-want +got): %s; verdict %q, want %q", diff, out.Verdict, tt.wantText)
			}
		})
	}
}

func ptrTo[T any](v T) *T { return &v }

// cwac_scan_status reports the AllSitesComplete condition as the operator
// set it, whatever its status; a scan without it (not finished, or from
// before the condition) reports none.
func TestStatusCompleteness(t *testing.T) {
	incomplete := "organisations not complete (1 of 2): Challenge Org (blocked: every page loaded was a challenge page)"
	tests := []struct {
		name       string
		conditions []metav1.Condition
		want       *ConditionState
	}{
		{name: "not set", conditions: []metav1.Condition{{Type: cwacv1alpha1.ConditionThresholdsMet, Status: metav1.ConditionTrue}}},
		{
			name: "complete",
			conditions: []metav1.Condition{{Type: cwacv1alpha1.ConditionAllSitesComplete, Status: metav1.ConditionTrue,
				Reason: cwacv1alpha1.ReasonAllOrganisationsComplete, Message: "every organisation was scanned completely (2)"}},
			want: &ConditionState{Status: "True", Reason: "AllOrganisationsComplete", Message: "every organisation was scanned completely (2)"},
		},
		{
			name: "incomplete",
			conditions: []metav1.Condition{{Type: cwacv1alpha1.ConditionThresholdsMet, Status: metav1.ConditionTrue},
				{Type: cwacv1alpha1.ConditionAllSitesComplete, Status: metav1.ConditionFalse, Reason: cwacv1alpha1.ReasonOrganisationsIncomplete, Message: incomplete}},
			want: &ConditionState{Status: "False", Reason: "OrganisationsIncomplete", Message: incomplete},
		},
		{
			name: "not known",
			conditions: []metav1.Condition{{Type: cwacv1alpha1.ConditionAllSitesComplete, Status: metav1.ConditionUnknown,
				Reason: cwacv1alpha1.ReasonCompletenessUnknown, Message: "completeness not known: the scan pod did not report it"}},
			want: &ConditionState{Status: "Unknown", Reason: "CompletenessUnknown", Message: "completeness not known: the scan pod did not report it"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out StatusOutput
			setCompleteness(&out, tt.conditions)
			if diff := cmp.Diff(tt.want, out.AllSitesComplete); diff != "" {
				t.Errorf("all_sites_complete (-want +got):\n%s", diff)
			}
		})
	}
}
