package schedule

import "time"

// MaxMissedTicks is the CronJob controller's documented limit: with more
// unmet ticks than this in the window it looks at, nothing starts.
const MaxMissedTicks = 100

// Decision is what a schedule does at one instant, by the rules the CronJob
// controller documents:
//
//   - An unmet tick is one after the last scheduled time (or, before the first
//     scan, after the schedule's creation) and not after now.
//   - At most one scan starts, for the most recent unmet tick; older unmet
//     ticks are not run (Skipped counts them).
//   - With a starting deadline, a tick may start while now - tick <= deadline
//     (exactly at the deadline still starts; one second over does not), and
//     only ticks within the deadline are counted.
//   - More than MaxMissedTicks unmet ticks counted: nothing starts (TooMany).
type Decision struct {
	// Tick is the tick to start a scan for now; zero when none.
	Tick time.Time
	// Skipped counts the unmet ticks older than Tick, within the deadline,
	// that are not run.
	Skipped int
	// Late is the oldest unmet tick further in the past than the starting
	// deadline (never run); zero when none.
	Late time.Time
	// TooMany: more than MaxMissedTicks unmet ticks were counted; Tick is zero.
	TooMany bool
	// Next is the first tick after now and after last: when to look again.
	// Zero when the schedule has no further tick within five years.
	Next time.Time
}

// Due decides, at now, which tick of s to run. last is the last scheduled
// time (the schedule's creation time before its first scan); deadline is the
// starting deadline, nil for none.
func Due(s *Schedule, last, now time.Time, deadline *time.Duration) Decision {
	var d Decision
	from := last // ticks strictly after from are counted
	if deadline != nil {
		earliest := now.Add(-*deadline)
		if earliest.After(last) {
			if first := s.Next(last); !first.IsZero() && first.Before(earliest) {
				d.Late = first
			}
			// Next returns ticks strictly after its argument, at whole
			// seconds: from one nanosecond before, a tick exactly at the
			// deadline is counted.
			from = earliest.Add(-time.Nanosecond)
		}
	}
	count := 0
	for t := s.Next(from); !t.IsZero() && !t.After(now); t = s.Next(t) {
		count++
		if count > MaxMissedTicks {
			d.TooMany = true
			break
		}
		d.Tick = t
	}
	if d.TooMany {
		d.Tick = time.Time{}
	} else if count > 1 {
		d.Skipped = count - 1
	}
	after := now
	if last.After(after) {
		after = last
	}
	d.Next = s.Next(after)
	return d
}
