// Package backoff says when a delivery that was not accepted (a digest
// the SMTP server refused, a batch of issue events a receiver refused) is
// tried again, and when it is given up.
package backoff

import (
	"fmt"
	"time"
)

// Doubling tries again after First, doubling the wait up to Max between
// tries, at most Attempts tries in all.
type Doubling struct {
	First, Max time.Duration
	Attempts   int32
}

// Check refuses a backoff that could never work.
func (b Doubling) Check() error {
	if b.First <= 0 || b.Max < b.First || b.Attempts < 1 {
		return fmt.Errorf("retry %+v: want 0 < first <= max and at least one attempt", b)
	}
	return nil
}

// After is the wait before the try that follows failed ones.
func (b Doubling) After(failed int32) time.Duration {
	d := b.First
	for i := int32(1); i < failed && d < b.Max; i++ {
		d *= 2
	}
	return min(d, b.Max)
}
