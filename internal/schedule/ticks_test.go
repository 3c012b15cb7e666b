package schedule

import (
	"testing"
	"time"
)

// day parses "22 10:30:00" as that day of November 2026, UTC, and any other
// value as RFC 3339.
func day(t *testing.T, s string) time.Time {
	t.Helper()
	if len(s) < 20 {
		v, err := time.Parse("2006-01-02 15:04:05.999999999", "2026-11-"+s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	return mustTime(t, s)
}

// TestDue: times are days of November 2026, UTC.
func TestDue(t *testing.T) {
	hourly := "0 * * * *"
	secs := func(n int) *time.Duration { d := time.Duration(n) * time.Second; return &d }
	tests := []struct {
		name     string
		schedule string
		tz       string
		last     string // last scheduled time, or creation time
		now      string
		deadline *time.Duration
		tick     string // "" for none
		skipped  int
		late     string
		tooMany  bool
		next     string
	}{
		{name: "before the first tick", schedule: hourly, last: "22 10:30:00", now: "22 10:59:59", next: "22 11:00:00"},
		{name: "exactly at the tick", schedule: hourly, last: "22 10:30:00", now: "22 11:00:00", tick: "22 11:00:00", next: "22 12:00:00"},
		{name: "created exactly at a tick: that tick is not unmet", schedule: hourly, last: "22 11:00:00", now: "22 11:00:30", next: "22 12:00:00"},
		{name: "tick already run", schedule: hourly, last: "22 11:00:00", now: "22 11:30:00", next: "22 12:00:00"},
		{name: "operator down three ticks, no deadline: the most recent runs", schedule: hourly, last: "22 11:00:00", now: "22 14:10:00",
			tick: "22 14:00:00", skipped: 2, next: "22 15:00:00"},
		{name: "deadline exactly at the tick: runs", schedule: hourly, last: "22 11:00:00", now: "22 14:10:00", deadline: secs(600),
			tick: "22 14:00:00", late: "22 12:00:00", next: "22 15:00:00"},
		{name: "deadline one second over: missed", schedule: hourly, last: "22 11:00:00", now: "22 14:10:01", deadline: secs(600),
			late: "22 12:00:00", next: "22 15:00:00"},
		{name: "deadline covering all missed ticks", schedule: hourly, last: "22 11:00:00", now: "22 14:10:00", deadline: secs(86400),
			tick: "22 14:00:00", skipped: 2, next: "22 15:00:00"},
		{name: "deadline covering two of three", schedule: hourly, last: "22 11:00:00", now: "22 14:10:00", deadline: secs(3600 + 600),
			tick: "22 14:00:00", skipped: 1, late: "22 12:00:00", next: "22 15:00:00"},
		{name: "deadline 0, exactly at the tick", schedule: hourly, last: "22 10:00:00", now: "22 11:00:00", deadline: secs(0),
			tick: "22 11:00:00", next: "22 12:00:00"},
		{name: "deadline 0, a moment later", schedule: hourly, last: "22 10:00:00", now: "22 11:00:00.1", deadline: secs(0),
			late: "22 11:00:00", next: "22 12:00:00"},
		{name: "deadline longer than the gap since last", schedule: hourly, last: "22 11:00:00", now: "22 12:00:30", deadline: secs(7200),
			tick: "22 12:00:00", next: "22 13:00:00"},
		{name: "100 missed: the limit, the most recent runs", schedule: "* * * * *", last: "22 10:00:00", now: "22 11:40:00",
			tick: "22 11:40:00", skipped: 99, next: "22 11:41:00"},
		{name: "101 missed, no deadline: nothing starts", schedule: "* * * * *", last: "22 10:00:00", now: "22 11:41:00",
			tooMany: true, next: "22 11:42:00"},
		{name: "a year missed, no deadline: nothing starts", schedule: "* * * * *", last: "2025-11-22T10:00:00Z", now: "22 11:41:00",
			tooMany: true, next: "22 11:42:00"},
		{name: "101 missed, a deadline counting 60: the most recent runs", schedule: "* * * * *", last: "22 10:00:00", now: "22 11:41:00", deadline: secs(3540),
			tick: "22 11:41:00", skipped: 59, late: "22 10:01:00", next: "22 11:42:00"},
		{name: "more than 100 within the deadline: nothing starts", schedule: "* * * * *", last: "22 08:00:00", now: "22 11:41:00", deadline: secs(7200),
			late: "22 08:01:00", tooMany: true, next: "22 11:42:00"},
		{name: "clock behind the last scheduled time", schedule: hourly, last: "22 12:00:00", now: "22 10:30:00", next: "22 13:00:00"},
		{name: "time zone: daily at 02:00 in Auckland", schedule: "0 2 * * *", tz: "Pacific/Auckland", last: "21 13:00:00", now: "22 13:00:00",
			tick: "22 13:00:00", next: "23 13:00:00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Due(mustParse(t, tt.schedule, tt.tz), day(t, tt.last), day(t, tt.now), tt.deadline)
			check := func(what string, got time.Time, want string) {
				t.Helper()
				if want == "" {
					if !got.IsZero() {
						t.Errorf("%s = %s, want none", what, got.UTC().Format(time.RFC3339))
					}
					return
				}
				if w := day(t, want); !got.Equal(w) {
					t.Errorf("%s = %s, want %s", what, got.UTC().Format(time.RFC3339), want)
				}
			}
			check("tick", d.Tick, tt.tick)
			check("late", d.Late, tt.late)
			check("next", d.Next, tt.next)
			if d.Skipped != tt.skipped || d.TooMany != tt.tooMany {
				t.Errorf("skipped %d tooMany %v, want %d %v", d.Skipped, d.TooMany, tt.skipped, tt.tooMany)
			}
		})
	}
}
