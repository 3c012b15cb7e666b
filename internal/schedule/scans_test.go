package schedule

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestPrune(t *testing.T) {
	base := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	scan := func(hour int, s State) Scan {
		return Scan{Name: fmt.Sprintf("s-%02d", hour), Tick: base.Add(time.Duration(hour) * time.Hour), State: s}
	}
	tests := []struct {
		name                     string
		scans                    []Scan
		keepComplete, keepFailed int
		want                     []string
	}{
		{"nothing", nil, 3, 1, nil},
		{"limit exactly reached", []Scan{scan(1, Complete), scan(2, Complete), scan(3, Complete), scan(4, Failed)}, 3, 1, nil},
		{"one over, oldest goes", []Scan{scan(4, Complete), scan(1, Complete), scan(2, Complete), scan(3, Complete)}, 3, 1, []string{"s-01"}},
		{"failed one over", []Scan{scan(1, Failed), scan(2, Failed), scan(3, Complete)}, 3, 1, []string{"s-01"}},
		{"limits counted apart", []Scan{scan(1, Complete), scan(2, Failed), scan(3, Complete), scan(4, Failed), scan(5, Failed)}, 1, 1,
			[]string{"s-01", "s-02", "s-04"}},
		{"zero keeps none", []Scan{scan(1, Complete), scan(2, Failed)}, 0, 0, []string{"s-01", "s-02"}},
		{"negative counts as zero", []Scan{scan(1, Complete)}, -1, -1, []string{"s-01"}},
		{"running scans are never pruned", []Scan{scan(1, Running), scan(2, Running), scan(3, Complete)}, 0, 0, []string{"s-03"}},
		{"same tick: by name", []Scan{{Name: "b", Tick: base, State: Complete}, {Name: "a", Tick: base, State: Complete}}, 1, 1, []string{"a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Prune(tt.scans, tt.keepComplete, tt.keepFailed)); diff != "" {
				t.Errorf("Prune (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewest(t *testing.T) {
	base := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	scans := []Scan{
		{Name: "b", Tick: base.Add(2 * time.Hour), State: Complete},
		{Name: "c", Tick: base.Add(3 * time.Hour), State: Failed},
		{Name: "a", Tick: base.Add(time.Hour), State: Complete},
		{Name: "d", Tick: base.Add(4 * time.Hour), State: Running},
	}
	if got, ok := Newest(scans, Complete); !ok || got.Name != "b" {
		t.Errorf("newest Complete = %+v %v, want b", got, ok)
	}
	if got, ok := Newest(scans, Failed); !ok || got.Name != "c" {
		t.Errorf("newest Failed = %+v %v, want c", got, ok)
	}
	if got, ok := Newest(scans[:1], Failed); ok {
		t.Errorf("newest Failed of none = %+v", got)
	}
}

func TestAdmit(t *testing.T) {
	tests := []struct {
		policy  Policy
		running int
		want    Action
	}{
		{Forbid, 0, Start},
		{Forbid, 1, Skip},
		{Allow, 0, Start},
		{Allow, 2, Start},
		{Replace, 0, Start},
		{Replace, 1, ReplaceRunning},
		{"", 1, Skip},
		{"Sometimes", 1, Skip},
	}
	for _, tt := range tests {
		if got := Admit(tt.policy, tt.running); got != tt.want {
			t.Errorf("Admit(%q, %d) = %v, want %v", tt.policy, tt.running, got, tt.want)
		}
	}
}
