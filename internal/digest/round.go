package digest

import (
	"time"

	"github.com/a11y-dev/cwac-operator/internal/schedule"
)

// Round is what a digest's schedule asks for at an instant.
type Round struct {
	// Period is the period whose digests are due: it ends at the newest
	// tick not after the instant, and starts where the last period ended
	// (or when the digest was made), so that nothing falls between two
	// digests even when ticks were missed. Zero when no tick has come.
	Period Period
	// Next is the schedule's first tick after the instant (zero: none
	// within five years).
	Next time.Time
}

// maxTicksWalked bounds the ticks Due walks from the last period's end to
// the instant (a minutely schedule left for two months); beyond them it
// goes on from the day before the instant, where a schedule that fires
// this often finds its newest tick. One that fired that often in the past
// but not in that day (every minute of January, in June) ends the period
// at the last tick walked: the next period starts there, so nothing is
// skipped or told twice.
const maxTicksWalked = 100_000

// Due is the round at now of a digest made at made whose last period is
// last (nil: none yet). A period equal to the last one is the same round:
// its digests are sent or being sent.
func Due(s *schedule.Schedule, made time.Time, last *Period, now time.Time) Round {
	since := made
	if last != nil {
		since = last.To
	}
	r := Round{Next: s.Next(now)}
	var end time.Time
	from := since
	for walked := 0; ; walked++ {
		if dayBefore := now.Add(-24 * time.Hour); walked == maxTicksWalked && dayBefore.After(from) {
			from = dayBefore
		}
		t := s.Next(from)
		if t.IsZero() || t.After(now) {
			break
		}
		end, from = t, t
	}
	switch {
	case end.IsZero() && last != nil:
		r.Period = *last
	case !end.IsZero():
		r.Period = Period{From: since, To: end}
	}
	return r
}
