package results

import "testing"

func TestOrganisationScoreDropDrop(t *testing.T) {
	for _, tt := range []struct {
		prev, cur, want float64
	}{{80, 60, 20}, {80.04, 79.84, 0.2}, {60, 80, -20}, {50, 50, 0}, {0.06, 0, 0.1}} {
		if got := (OrganisationScoreDrop{Previous: tt.prev, Current: tt.cur}).Drop(); got != tt.want {
			t.Errorf("drop from %v to %v = %v, want %v", tt.prev, tt.cur, got, tt.want)
		}
	}
}

func TestVerdictScoreShown(t *testing.T) {
	for v, want := range map[Verdict]bool{
		VerdictComplete: true, VerdictPartial: true, "": true, "unknown": true,
		VerdictBlocked: false, VerdictUnreachable: false,
	} {
		if got := v.ScoreShown(); got != want {
			t.Errorf("%q.ScoreShown() = %v, want %v", v, got, want)
		}
	}
}
