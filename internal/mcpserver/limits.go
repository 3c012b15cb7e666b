package mcpserver

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// callerLimiter rate-limits calls per caller (a token bucket each).
type callerLimiter struct {
	mu      sync.Mutex
	perMin  float64
	burst   int
	buckets map[string]*rate.Limiter
}

func newCallerLimiter(perMinute float64, burst int) *callerLimiter {
	return &callerLimiter{perMin: perMinute, burst: burst, buckets: map[string]*rate.Limiter{}}
}

// allow reports whether caller may go now, and if not, how long to wait.
func (l *callerLimiter) allow(caller string) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets[caller]
	if b == nil {
		if len(l.buckets) >= 10000 { // bound memory: forget everyone, rarely
			l.buckets = map[string]*rate.Limiter{}
		}
		b = rate.NewLimiter(rate.Limit(l.perMin/60), l.burst)
		l.buckets[caller] = b
	}
	r := b.Reserve()
	if d := r.Delay(); d > 0 {
		r.Cancel()
		return false, d
	}
	return true, 0
}
