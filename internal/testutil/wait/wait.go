// Package wait polls a condition in tests until it holds: the one way the
// tests wait for what another goroutine, process or cluster does. It checks
// an outcome and times nothing: the timeout only ends a wait that would
// otherwise never end, and says what was awaited and how things last stood.
package wait

import (
	"testing"
	"time"
)

// interval is how often a condition is checked.
const interval = 50 * time.Millisecond

// For checks cond until it holds; when timeout passes first, it fails t
// with what was awaited and the state cond last gave (a description, an
// error: anything %v prints).
func For[S any](t testing.TB, what string, timeout time.Duration, cond func() (bool, S)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var last S
	for {
		ok, state := cond()
		if ok {
			return
		}
		last = state
		if !time.Now().Before(deadline) {
			t.Fatalf("timed out after %s waiting for %s (last: %v)", timeout, what, last)
		}
		time.Sleep(interval)
	}
}
