package results

import (
	"slices"
	"testing"
)

func TestImpactsWorstFirst(t *testing.T) {
	want := []string{"critical", "serious", "moderate", "minor"}
	if got := Impacts(); !slices.Equal(got, want) {
		t.Fatalf("Impacts() = %q, want %q", got, want)
	}
	got := Impacts()
	got[0] = "changed"
	if Impacts()[0] != ImpactCritical {
		t.Error("changing the slice Impacts returned changed the list itself")
	}
}

func TestImpactRank(t *testing.T) {
	for _, tt := range []struct {
		impact string
		want   int
	}{
		{ImpactCritical, 0}, {ImpactSerious, 1}, {ImpactModerate, 2}, {ImpactMinor, 3},
		{"", 4}, {"Critical", 4}, {"other", 4},
	} {
		if got := ImpactRank(tt.impact); got != tt.want {
			t.Errorf("ImpactRank(%q) = %d, want %d", tt.impact, got, tt.want)
		}
	}
}

func TestImpactNumber(t *testing.T) {
	for _, tt := range []struct {
		impact string
		want   int
	}{
		{"", 0}, {"none", 0}, {"critical", 1}, {"SERIOUS", 2}, {"moderate", 3}, {"Minor", 4},
	} {
		if got := impactNumber(tt.impact); got != tt.want {
			t.Errorf("impactNumber(%q) = %d, want %d", tt.impact, got, tt.want)
		}
	}
	if NumRowClasses != 10 {
		t.Errorf("NumRowClasses = %d, want 10 (five impact numbers, each issue or not)", NumRowClasses)
	}
}
