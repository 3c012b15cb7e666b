package memlimit

import (
	"errors"
	"os"
	"testing"
)

func TestContainerMemoryLimit(t *testing.T) {
	files := func(m map[string]string) func(string) ([]byte, error) {
		return func(name string) ([]byte, error) {
			v, ok := m[name]
			if !ok {
				return nil, os.ErrNotExist
			}
			if v == "unreadable" {
				return nil, errors.New("permission denied")
			}
			return []byte(v), nil
		}
	}
	v2, v1 := cgroupMemoryFiles[0], cgroupMemoryFiles[1]
	for _, tt := range []struct {
		name  string
		files map[string]string
		want  int64
		ok    bool
	}{
		{"cgroup v2", map[string]string{v2: "268435456\n"}, 268435456, true},
		{"cgroup v2 without a limit", map[string]string{v2: "max\n"}, 0, false},
		{"cgroup v1", map[string]string{v1: "536870912\n"}, 536870912, true},
		{"cgroup v1 without a limit", map[string]string{v1: "9223372036854771712\n"}, 0, false},
		{"v2 first", map[string]string{v2: "100", v1: "200"}, 100, true},
		{"neither", map[string]string{}, 0, false},
		{"unreadable", map[string]string{v2: "unreadable", v1: "200"}, 0, false},
		{"not a number", map[string]string{v2: "lots"}, 0, false},
		{"zero", map[string]string{v2: "0"}, 0, false},
	} {
		got, ok := containerMemoryLimit(files(tt.files))
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s: %d, %v; want %d, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

// TestSetKeepsAGivenLimit: a GOMEMLIMIT the environment sets is the
// runtime's own; Set leaves it.
func TestSetKeepsAGivenLimit(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "1GiB")
	if _, _, ok := Set(); ok {
		t.Error("Set replaced the environment's GOMEMLIMIT")
	}
}

// TestSetLoggedSaysNothingWhenItSetsNothing: with the environment's
// GOMEMLIMIT kept, no limit was set and no line is logged.
func TestSetLoggedSaysNothingWhenItSetsNothing(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "1GiB")
	SetLogged(func(msg string, _ ...any) { t.Errorf("logged %q without setting a limit", msg) })
}
