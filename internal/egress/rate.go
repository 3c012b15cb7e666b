package egress

import (
	"errors"
	"sync"
	"time"
)

// errTooSlow ends a tunnel or a forwarded exchange slower than the minimum
// transfer rate (Limits.MinBytes per Limits.RateWindow).
var errTooSlow = errors.New("slower than the proxy's minimum transfer rate")

// rateMeter counts the bytes one connection moves, both ways together, in
// windows of its length. A peer that sends a byte now and then resets an
// idle timeout forever; it never fills a window.
type rateMeter struct {
	min    int64
	window time.Duration

	mu    sync.Mutex
	start time.Time
	bytes int64
}

func newRateMeter(minBytes int, window time.Duration, now time.Time) *rateMeter {
	return &rateMeter{min: int64(minBytes), window: window, start: now}
}

// moved counts n bytes moved at now. Once a window has passed it answers
// errTooSlow if fewer than min bytes moved in it, and otherwise starts the
// next window.
func (m *rateMeter) moved(n int, now time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.bytes += int64(n)
	if now.Sub(m.start) < m.window {
		return nil
	}
	if m.bytes < m.min {
		return errTooSlow
	}
	m.start, m.bytes = now, 0
	return nil
}

// rate is a new meter of the proxy's minimum transfer rate, for one tunnel
// or forwarded exchange.
func (p *Proxy) rate() *rateMeter {
	return newRateMeter(p.cfg.Limits.MinBytes, p.cfg.Limits.RateWindow, time.Now())
}
