package gate

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/utils/ptr"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// Every threshold one below, at and one above the scan's figure: a maximum
// is crossed only above it, a minimum only below it.
func TestCrossedAtEachBoundary(t *testing.T) {
	summary := &cwacv1alpha1.ScanSummary{
		TotalIssues: 17, PagesScanned: 4,
		IssuesByImpact: map[string]int64{"serious": 3},
		Diff:           &cwacv1alpha1.ScanDiff{Baseline: "nightly-1", New: 2},
	}
	tests := []struct {
		name string
		t    cwacv1alpha1.Thresholds
		want []string
	}{
		{name: "total max one below", t: cwacv1alpha1.Thresholds{MaxTotalIssues: ptr.To[int64](16)}, want: []string{"total issues 17 > 16"}},
		{name: "total max at", t: cwacv1alpha1.Thresholds{MaxTotalIssues: ptr.To[int64](17)}},
		{name: "total max one above", t: cwacv1alpha1.Thresholds{MaxTotalIssues: ptr.To[int64](18)}},
		{name: "impact max one below", t: cwacv1alpha1.Thresholds{MaxIssuesByImpact: map[string]int64{"serious": 2}}, want: []string{"serious issues 3 > 2"}},
		{name: "impact max at", t: cwacv1alpha1.Thresholds{MaxIssuesByImpact: map[string]int64{"serious": 3}}},
		{name: "impact max one above", t: cwacv1alpha1.Thresholds{MaxIssuesByImpact: map[string]int64{"serious": 4}}},
		{name: "new max one below", t: cwacv1alpha1.Thresholds{MaxNewIssues: ptr.To[int64](1)}, want: []string{"new issues 2 > 1 (against nightly-1)"}},
		{name: "new max at", t: cwacv1alpha1.Thresholds{MaxNewIssues: ptr.To[int64](2)}},
		{name: "new max one above", t: cwacv1alpha1.Thresholds{MaxNewIssues: ptr.To[int64](3)}},
		{name: "pages min one below", t: cwacv1alpha1.Thresholds{MinPagesScanned: ptr.To[int32](3)}},
		{name: "pages min at", t: cwacv1alpha1.Thresholds{MinPagesScanned: ptr.To[int32](4)}},
		{name: "pages min one above", t: cwacv1alpha1.Thresholds{MinPagesScanned: ptr.To[int32](5)}, want: []string{"pages scanned 4 < 5"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Crossed(&tt.t, summary)); diff != "" {
				t.Errorf("Crossed (-want +got):\n%s", diff)
			}
		})
	}
}

// A scan compared with no baseline has no new issues to count: maxNewIssues
// is not crossed, whatever its value.
func TestCrossedNewIssuesWithoutDiff(t *testing.T) {
	got := Crossed(&cwacv1alpha1.Thresholds{MaxNewIssues: ptr.To[int64](0)}, &cwacv1alpha1.ScanSummary{TotalIssues: 5})
	if got != nil {
		t.Errorf("Crossed = %q, want none", got)
	}
}

// Impacts are reported worst first, from the first (critical) to the last
// known one, and a key the API server should have refused comes after them.
func TestCrossedImpactOrder(t *testing.T) {
	s := &cwacv1alpha1.ScanSummary{IssuesByImpact: map[string]int64{"minor": 1, "critical": 1, "bogus": 1, "moderate": 1, "serious": 1}}
	th := &cwacv1alpha1.Thresholds{MaxIssuesByImpact: map[string]int64{"bogus": 0, "minor": 0, "moderate": 0, "serious": 0, "critical": 0}}
	want := []string{"critical issues 1 > 0", "serious issues 1 > 0", "moderate issues 1 > 0", "minor issues 1 > 0", "bogus issues 1 > 0"}
	if diff := cmp.Diff(want, Crossed(th, s)); diff != "" {
		t.Errorf("Crossed (-want +got):\n%s", diff)
	}
}
