package backoff

import (
	"testing"
	"time"
)

func TestAfter(t *testing.T) {
	b := Doubling{First: 30 * time.Second, Max: 4 * time.Minute, Attempts: 9}
	for failed, want := range map[int32]time.Duration{
		0: 30 * time.Second, 1: 30 * time.Second, 2: time.Minute, 3: 2 * time.Minute, 4: 4 * time.Minute, 5: 4 * time.Minute, 40: 4 * time.Minute,
	} {
		if got := b.After(failed); got != want {
			t.Errorf("after %d failed: %s, want %s", failed, got, want)
		}
	}
	if got := (Doubling{First: time.Minute, Max: 90 * time.Second, Attempts: 3}).After(3); got != 90*time.Second {
		t.Errorf("a doubling past max: %s, want max", got)
	}
}

func TestCheck(t *testing.T) {
	if err := (Doubling{First: time.Second, Max: time.Second, Attempts: 1}).Check(); err != nil {
		t.Errorf("a valid backoff: %v", err)
	}
	for name, b := range map[string]Doubling{
		"no first":       {Max: time.Second, Attempts: 1},
		"max below":      {First: time.Minute, Max: time.Second, Attempts: 1},
		"no attempt":     {First: time.Second, Max: time.Second},
		"negative first": {First: -time.Second, Max: time.Second, Attempts: 1},
	} {
		if err := b.Check(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
