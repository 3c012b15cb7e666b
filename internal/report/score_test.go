package report

import "testing"

// TestScore pins the leaderboard's formula at its limits: no page, one
// page, the floor at 0, rounding to one decimal, each class's weight.
func TestScore(t *testing.T) {
	cases := []struct {
		name      string
		counts    ImpactCounts
		pages     int
		weighted  float64
		score     float64
		wantScore bool
	}{
		{"no page", ImpactCounts{1, 0, 0, 0, 0}, 0, 0, 0, false},
		{"negative pages", ImpactCounts{}, -1, 0, 0, false},
		{"one page, nothing found", ImpactCounts{}, 1, 0, 100, true},
		{"critical weighs 10", ImpactCounts{1, 0, 0, 0, 0}, 1, 10, 90, true},
		{"serious weighs 5", ImpactCounts{0, 1, 0, 0, 0}, 1, 5, 95, true},
		{"moderate weighs 2", ImpactCounts{0, 0, 1, 0, 0}, 1, 2, 98, true},
		{"minor weighs 1", ImpactCounts{0, 0, 0, 1, 0}, 1, 1, 99, true},
		{"other weighs 3", ImpactCounts{0, 0, 0, 0, 1}, 1, 3, 97, true},
		{"per page, rounded", ImpactCounts{0, 0, 0, 1, 0}, 3, 0.3, 99.7, true},
		{"floor at 0", ImpactCounts{11, 0, 0, 0, 0}, 1, 110, 0, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w, s := Score(tc.counts, tc.pages)
			if w != tc.weighted {
				t.Errorf("weighted per page = %v, want %v", w, tc.weighted)
			}
			if (s != nil) != tc.wantScore || (s != nil && *s != tc.score) {
				t.Errorf("score = %v, want %v (present %v)", s, tc.score, tc.wantScore)
			}
		})
	}
}

// TestImpactClass: axe's four impacts in order, anything else "other".
func TestImpactClass(t *testing.T) {
	for impact, want := range map[string]int{"critical": 0, "serious": 1, "moderate": 2, "minor": 3, "": 4, "severe": 4} {
		if got := ImpactClass(impact); got != want {
			t.Errorf("ImpactClass(%q) = %d, want %d", impact, got, want)
		}
	}
}
