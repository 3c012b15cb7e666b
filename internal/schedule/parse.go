// Package schedule holds the rules of a CwacScanSchedule that need no
// Kubernetes client: parsing its cron schedule and time zone, which tick is
// due (the CronJob controller's documented rules for missed ticks and the
// starting deadline), what a tick does while a scan still runs, and which
// finished scans its history keeps. Its scans' names are scanspec's
// (ScheduledScanName).
package schedule

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	// Every IANA time zone is built in, so a schedule's time zone means the
	// same whatever the operator's image holds (`make image-tar` images have
	// no /usr/share/zoneinfo).
	_ "time/tzdata"

	"github.com/robfig/cron/v3"
)

// The fields a FieldError names.
const (
	FieldSchedule = "spec.schedule"
	FieldTimeZone = "spec.timeZone"
)

// FieldError is a value the CRD's validation let through but that cannot be
// used: a cron field out of range, a time zone the IANA database does not
// know. It names the field, so it can be shown as is.
type FieldError struct {
	// Field is the field's path, e.g. spec.schedule.
	Field string
	// Value is the refused value.
	Value string
	// Detail says what is wrong with it.
	Detail string
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("%s: invalid value %q: %s", e.Field, e.Value, e.Detail)
}

// Schedule is a parsed cron schedule in its time zone. Its ticks fall on
// whole minutes.
type Schedule struct {
	spec *cron.SpecSchedule
}

// Next is the first tick strictly after t, or the zero time when none comes
// within five years.
func (s *Schedule) Next(t time.Time) time.Time { return s.spec.Next(t) }

// Location is the time zone the schedule is read in.
func (s *Schedule) Location() *time.Location { return s.spec.Location }

// neverCheckFrom is where Parse looks for a first tick; any schedule that can
// fire does so within five years of any instant (the longest period, 29
// February, is four years).
var neverCheckFrom = time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)

// Parse reads a schedule — five cron fields (minute hour day-of-month month
// day-of-week) or one of @yearly, @annually, @monthly, @weekly, @daily,
// @midnight, @hourly — in an IANA time zone ("" is UTC). It uses the parser
// Kubernetes' CronJob controller uses (robfig/cron, standard syntax), and
// refuses what a CwacScanSchedule does not allow: a time zone inside the
// schedule (TZ=, CRON_TZ=), @every (ticks off whole minutes), the zones
// "Local" and "localtime" and names that are not IANA names, and a schedule that never fires (31 February). The error is a
// *FieldError.
func Parse(schedule, timeZone string) (*Schedule, error) {
	loc, err := LoadLocation(timeZone)
	if err != nil {
		return nil, err
	}
	invalid := func(detail string) error {
		return &FieldError{Field: FieldSchedule, Value: schedule, Detail: detail}
	}
	switch {
	case strings.TrimSpace(schedule) == "":
		return nil, invalid("the schedule is empty")
	case strings.Contains(schedule, "TZ="):
		return nil, invalid("set the time zone in spec.timeZone, not in the schedule")
	case strings.HasPrefix(strings.TrimSpace(schedule), "@every"):
		return nil, invalid("@every is not supported: use five cron fields, such as */15 * * * *")
	}
	parsed, err := parseStandard(schedule)
	if err != nil {
		return nil, invalid(err.Error())
	}
	spec, ok := parsed.(*cron.SpecSchedule)
	if !ok {
		return nil, invalid("not a cron schedule")
	}
	if spec.Second != 1 { // bit 0: second 0 only; the standard syntax never sets others
		return nil, invalid("seconds are not supported")
	}
	spec.Location = loc
	if spec.Next(neverCheckFrom).IsZero() {
		return nil, invalid("the schedule never fires: no date matches it")
	}
	return &Schedule{spec: spec}, nil
}

// parseStandard is cron.ParseStandard, with a panic (a bug in the parser)
// turned into an error.
func parseStandard(schedule string) (s cron.Schedule, err error) {
	defer func() {
		if r := recover(); r != nil {
			s, err = nil, fmt.Errorf("cannot be parsed")
		}
	}()
	return cron.ParseStandard(schedule)
}

// ianaNameRE is the shape of an IANA time zone name: each part starts
// with a capital letter (Pacific/Auckland, Etc/GMT+5, UTC). The time zone
// directory also holds files that are not zones of the database —
// localtime (a link to the host's own zone), posixrules, the posix/ and
// right/ copies — whose names start with a lower-case letter.
var ianaNameRE = regexp.MustCompile(`^[A-Z][A-Za-z0-9_+-]*(/[A-Z][A-Za-z0-9_+-]*)*$`)

// LoadLocation loads an IANA time zone by name ("" is UTC), refusing
// anything but the database's own names: Local and localtime (the host's
// zone), and paths.
func LoadLocation(timeZone string) (*time.Location, error) {
	if timeZone == "" {
		return time.UTC, nil
	}
	invalid := func(detail string) error {
		return &FieldError{Field: FieldTimeZone, Value: timeZone, Detail: detail}
	}
	if strings.EqualFold(timeZone, "Local") || strings.EqualFold(timeZone, "localtime") {
		return nil, invalid("name an IANA time zone such as Pacific/Auckland; " + timeZone + " (the host's own zone) is not allowed")
	}
	if !ianaNameRE.MatchString(timeZone) {
		return nil, invalid("unknown time zone: not an IANA time zone name (for example Pacific/Auckland, Europe/London, UTC)")
	}
	loc, err := time.LoadLocation(timeZone)
	if err != nil {
		return nil, invalid("unknown time zone: not in the IANA time zone database (for example Pacific/Auckland, Europe/London, UTC)")
	}
	return loc, nil
}
