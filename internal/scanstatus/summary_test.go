package scanstatus

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/a11y-dev/cwac-operator/internal/results"
)

func TestRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		in   *results.Summary
		want *results.Summary // what survives the status
	}{
		{name: "nil", in: nil, want: nil},
		{
			name: "full",
			in: &results.Summary{
				TotalIssues:       17,
				DecidedIssues:     3,
				IssuesByAuditType: map[string]int64{"AxeCoreAudit": 12, "ReflowAudit": 1},
				IssuesByImpact:    map[string]int64{"critical": 6},
				TopViolations:     []results.Violation{{ID: "image-alt", AuditType: "AxeCoreAudit", Impact: "critical", Description: "d", Count: 4}},
				Informational:     map[string]int64{"TitleAudit": 4},
				URLsScanned:       4,
				PagesScanned:      4,
				BaseURLs:          []results.BaseURLPages{{Organisation: "o", BaseURL: "https://a", Sector: "s", Pages: 4}},
				UnscannedBaseURLs: []string{"https://b"},
				DurationSeconds:   12.5,
				AuditFiles:        []string{"axe_core_audit.csv"},
			},
			want: &results.Summary{
				TotalIssues:       17,
				DecidedIssues:     3,
				IssuesByAuditType: map[string]int64{"AxeCoreAudit": 12, "ReflowAudit": 1},
				IssuesByImpact:    map[string]int64{"critical": 6},
				TopViolations:     []results.Violation{{ID: "image-alt", AuditType: "AxeCoreAudit", Impact: "critical", Description: "d", Count: 4}},
				Informational:     map[string]int64{"TitleAudit": 4},
				URLsScanned:       4,
				PagesScanned:      4,
				UnscannedBaseURLs: []string{"https://b"},
				DurationSeconds:   13, // rounded half up to whole seconds
			},
		},
		{name: "duration just below a half rounds down", in: &results.Summary{DurationSeconds: 2.49}, want: &results.Summary{DurationSeconds: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := FromAPI(ToAPI(tt.in))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
		})
	}
}
