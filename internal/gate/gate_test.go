package gate

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/utils/ptr"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

func TestCrossed(t *testing.T) {
	summary := &cwacv1alpha1.ScanSummary{
		TotalIssues: 17, PagesScanned: 4,
		IssuesByImpact: map[string]int64{"critical": 6, "serious": 6, "minor": 0},
	}
	tests := []struct {
		name string
		t    *cwacv1alpha1.Thresholds
		s    *cwacv1alpha1.ScanSummary
		want []string
	}{
		{name: "no thresholds", t: nil, s: summary},
		{name: "empty thresholds", t: &cwacv1alpha1.Thresholds{}, s: summary},
		{name: "total one below the figure", t: &cwacv1alpha1.Thresholds{MaxTotalIssues: ptr.To[int64](16)}, s: summary, want: []string{"total issues 17 > 16"}},
		{name: "total at the figure", t: &cwacv1alpha1.Thresholds{MaxTotalIssues: ptr.To[int64](17)}, s: summary},
		{name: "total zero with no issues", t: &cwacv1alpha1.Thresholds{MaxTotalIssues: ptr.To[int64](0)}, s: &cwacv1alpha1.ScanSummary{}},
		{name: "critical zero", t: &cwacv1alpha1.Thresholds{MaxIssuesByImpact: map[string]int64{"critical": 0}}, s: summary, want: []string{"critical issues 6 > 0"}},
		{name: "impact at the figure", t: &cwacv1alpha1.Thresholds{MaxIssuesByImpact: map[string]int64{"critical": 6}}, s: summary},
		{name: "impact absent from the summary counts zero", t: &cwacv1alpha1.Thresholds{MaxIssuesByImpact: map[string]int64{"moderate": 0}}, s: summary},
		{
			name: "several, reported worst first",
			t: &cwacv1alpha1.Thresholds{
				MaxTotalIssues:    ptr.To[int64](10),
				MaxIssuesByImpact: map[string]int64{"serious": 5, "critical": 5, "minor": 0},
				MinPagesScanned:   ptr.To[int32](5),
			},
			s:    summary,
			want: []string{"total issues 17 > 10", "critical issues 6 > 5", "serious issues 6 > 5", "pages scanned 4 < 5"},
		},
		{name: "pages one below", t: &cwacv1alpha1.Thresholds{MinPagesScanned: ptr.To[int32](5)}, s: summary, want: []string{"pages scanned 4 < 5"}},
		{name: "pages at", t: &cwacv1alpha1.Thresholds{MinPagesScanned: ptr.To[int32](4)}, s: summary},
		{name: "no summary: no pages", t: &cwacv1alpha1.Thresholds{MinPagesScanned: ptr.To[int32](1)}, s: nil, want: []string{"pages scanned 0 < 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Crossed(tt.t, tt.s)); diff != "" {
				t.Errorf("Crossed (-want +got):\n%s", diff)
			}
		})
	}
}
