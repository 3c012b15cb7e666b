package gate

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/utils/ptr"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// maxNewIssues is judged on the diff against the baseline, at its boundary;
// without a diff there is nothing to judge here (the controller reports a
// baseline that could not be used).
func TestCrossedNewIssues(t *testing.T) {
	withDiff := func(n int64) *cwacv1alpha1.ScanSummary {
		return &cwacv1alpha1.ScanSummary{TotalIssues: 40, Diff: &cwacv1alpha1.ScanDiff{Baseline: "weekly-1", New: n}}
	}
	tests := []struct {
		name string
		max  int64
		s    *cwacv1alpha1.ScanSummary
		want []string
	}{
		{name: "one below", max: 3, s: withDiff(2)},
		{name: "at", max: 3, s: withDiff(3)},
		{name: "one above", max: 3, s: withDiff(4), want: []string{"new issues 4 > 3 (against weekly-1)"}},
		{name: "zero allowed, none new", max: 0, s: withDiff(0)},
		{name: "no diff", max: 0, s: &cwacv1alpha1.ScanSummary{TotalIssues: 40}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Crossed(&cwacv1alpha1.Thresholds{MaxNewIssues: ptr.To(tt.max)}, tt.s)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Crossed (-want +got):\n%s", diff)
			}
		})
	}
}
