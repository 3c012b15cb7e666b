package wait

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// recorder is a testing.TB that keeps what a failed wait says, and stops
// the wait as Fatalf stops a test.
type recorder struct {
	testing.TB
	failed string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
	panic(r)
}

func TestFor(t *testing.T) {
	n := 0
	For(t, "the third check", time.Minute, func() (bool, string) { n++; return n == 3, "" })
	if n != 3 {
		t.Errorf("checked %d times, want 3", n)
	}

	r := &recorder{TB: t}
	func() {
		defer func() {
			if p := recover(); p != r {
				t.Fatalf("the wait did not fail: %v", p)
			}
		}()
		For(r, "nothing", 120*time.Millisecond, func() (bool, error) { return false, errors.New("still not") })
	}()
	if !strings.Contains(r.failed, "waiting for nothing") || !strings.Contains(r.failed, "(last: still not)") {
		t.Errorf("the failure says %q, want what was awaited and the last state", r.failed)
	}
}
