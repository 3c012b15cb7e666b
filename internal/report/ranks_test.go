package report

import (
	"slices"
	"testing"
)

// CompetitionRanks: equal scores share a rank; the next counts them all.
func TestCompetitionRanks(t *testing.T) {
	tests := []struct {
		scores []float64 // best first
		want   []int
	}{
		{nil, []int{}},
		{[]float64{90}, []int{1}},
		{[]float64{90, 80, 70}, []int{1, 2, 3}},
		{[]float64{90, 80, 80, 70}, []int{1, 2, 2, 4}},
		{[]float64{90, 90, 90}, []int{1, 1, 1}},
		{[]float64{90, 90, 80, 80}, []int{1, 1, 3, 3}},
	}
	for _, tc := range tests {
		got := CompetitionRanks(len(tc.scores), func(i int) bool { return tc.scores[i] == tc.scores[i-1] })
		if !slices.Equal(got, tc.want) {
			t.Errorf("%v: ranks %v, want %v", tc.scores, got, tc.want)
		}
	}
}

// ImpactClasses is axe-core's four worst first, then other, and a copy:
// a caller cannot change the classes everyone else reads.
func TestImpactClasses(t *testing.T) {
	got := ImpactClasses()
	if want := []string{"critical", "serious", "moderate", "minor", ImpactOther}; !slices.Equal(got, want) {
		t.Errorf("ImpactClasses() = %v, want %v", got, want)
	}
	got[0] = "changed"
	if ImpactClasses()[0] != "critical" {
		t.Error("ImpactClasses shares its slice")
	}
	for i, c := range ImpactClasses() {
		if ImpactClass(c) != i {
			t.Errorf("ImpactClass(%q) = %d, want %d", c, ImpactClass(c), i)
		}
	}
}
