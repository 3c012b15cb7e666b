package notify

import (
	"time"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// Default retry bounds.
const (
	DefaultFirstRetry  = 5 * time.Second
	DefaultMaxRetryGap = 5 * time.Minute
	DefaultRetryWindow = time.Hour
)

// Retry is the backoff of failed deliveries: the first retry comes First
// after a failure, each next one twice as late, never more than MaxGap
// apart, and none later than Window after the first attempt.
type Retry struct {
	First, MaxGap, Window time.Duration
}

func (r Retry) withDefaults() Retry {
	if r.First <= 0 {
		r.First = DefaultFirstRetry
	}
	if r.MaxGap <= 0 {
		r.MaxGap = DefaultMaxRetryGap
	}
	if r.Window <= 0 {
		r.Window = DefaultRetryWindow
	}
	return r
}

// NextAttempt is when a Pending delivery is tried next: at once when never
// tried, else its last attempt plus the backoff for its attempts. Times
// come from the delivery's own record, so a restarted operator keeps the
// same schedule.
func (r Retry) NextAttempt(d cwacv1alpha1.NotificationDelivery) time.Time {
	r = r.withDefaults()
	if d.Attempts == 0 || d.LastAttemptTime == nil {
		return time.Time{}
	}
	gap := r.First
	for i := int32(1); i < d.Attempts && gap < r.MaxGap; i++ {
		gap *= 2
	}
	return d.LastAttemptTime.Add(min(gap, r.MaxGap))
}

// GiveUp reports whether a delivery whose last attempt failed has no
// attempt left: its next one would start past the window.
func (r Retry) GiveUp(d cwacv1alpha1.NotificationDelivery) bool {
	r = r.withDefaults()
	if d.FirstAttemptTime == nil {
		return false
	}
	return r.NextAttempt(d).After(d.FirstAttemptTime.Add(r.Window))
}
