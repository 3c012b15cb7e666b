package schedule

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func mustParse(t *testing.T, schedule, tz string) *Schedule {
	t.Helper()
	s, err := Parse(schedule, tz)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestParseAccepts(t *testing.T) {
	tests := []struct {
		schedule, tz string
		from         string
		want         []string // the next ticks after from, in UTC
	}{
		{"0 2 * * *", "", "2026-11-22T01:59:59Z", []string{"2026-11-22T02:00:00Z", "2026-11-23T02:00:00Z"}},
		{"*/15 * * * *", "UTC", "2026-11-22T10:07:30Z", []string{"2026-11-22T10:15:00Z", "2026-11-22T10:30:00Z"}},
		{"0 9 * * MON-FRI", "", "2026-11-20T09:00:00Z", []string{"2026-11-23T09:00:00Z", "2026-11-24T09:00:00Z"}}, // Friday 09:00 is not after itself
		{"0 0 1 JAN,jul ?", "", "2026-02-01T00:00:00Z", []string{"2026-07-01T00:00:00Z", "2027-01-01T00:00:00Z"}},
		{"0 0 29 2 *", "", "2026-01-01T00:00:00Z", []string{"2028-02-29T00:00:00Z"}},
		{"@hourly", "", "2026-11-22T10:00:00Z", []string{"2026-11-22T11:00:00Z"}},
		{"@daily", "Pacific/Auckland", "2026-11-22T00:00:00Z", []string{"2026-11-22T11:00:00Z"}}, // midnight NZDT (UTC+13)
		{"@midnight", "", "2026-11-22T00:00:00Z", []string{"2026-11-23T00:00:00Z"}},
		{"@weekly", "", "2026-11-22T00:00:00Z", []string{"2026-11-29T00:00:00Z"}}, // Sundays
		{"@monthly", "", "2026-11-22T00:00:00Z", []string{"2026-12-01T00:00:00Z"}},
		{"@yearly", "", "2026-11-22T00:00:00Z", []string{"2027-01-01T00:00:00Z"}},
		{"@annually", "", "2026-11-22T00:00:00Z", []string{"2027-01-01T00:00:00Z"}},
		{"0 2 * * *", "Europe/London", "2026-07-01T00:00:00Z", []string{"2026-07-01T01:00:00Z"}}, // 02:00 BST
		{"0 2 * * *", "Etc/GMT+12", "2026-07-01T00:00:00Z", []string{"2026-07-01T14:00:00Z"}},
		// Pacific/Auckland, 27 September 2026: 02:00 NZST jumps to 03:00
		// NZDT; 02:30 does not exist that day and does not fire.
		{"30 2 * * *", "Pacific/Auckland", "2026-09-25T15:00:00Z", []string{"2026-09-27T13:30:00Z"}},
		// 5 April 2026: 03:00 NZDT falls back to 02:00 NZST; 02:30 happens
		// twice, and fires twice (two instants, two scan names).
		{"30 2 * * *", "Pacific/Auckland", "2026-04-04T12:00:00Z", []string{"2026-04-04T13:30:00Z", "2026-04-04T14:30:00Z", "2026-04-05T14:30:00Z"}},
	}
	for _, tt := range tests {
		t.Run(tt.schedule+" "+tt.tz, func(t *testing.T) {
			s := mustParse(t, tt.schedule, tt.tz)
			wantLoc := tt.tz
			if wantLoc == "" {
				wantLoc = "UTC"
			}
			if s.Location().String() != wantLoc {
				t.Errorf("location %s, want %s", s.Location(), wantLoc)
			}
			at := mustTime(t, tt.from)
			for _, w := range tt.want {
				at = s.Next(at)
				if want := mustTime(t, w); !at.Equal(want) {
					t.Fatalf("next tick %s, want %s", at.UTC().Format(time.RFC3339), w)
				}
			}
		})
	}
}

func TestParseRefuses(t *testing.T) {
	tests := []struct {
		schedule, tz string
		field        string
		detail       string
	}{
		{"61 * * * *", "", FieldSchedule, "above maximum (59)"},
		{"0 24 * * *", "", FieldSchedule, "above maximum (23)"},
		{"0 0 32 * *", "", FieldSchedule, "above maximum (31)"},
		{"0 0 0 * *", "", FieldSchedule, "below minimum (1)"},
		{"0 0 * 13 *", "", FieldSchedule, "above maximum (12)"},
		{"0 0 * * 7", "", FieldSchedule, "above maximum (6)"},
		{"*/0 * * * *", "", FieldSchedule, "positive"},
		{"0 0 * * FUN", "", FieldSchedule, "failed to parse int"},
		{"", "", FieldSchedule, "empty"},
		{"  ", "", FieldSchedule, "empty"},
		{"* * * *", "", FieldSchedule, "expected exactly 5 fields"},
		{"0 * * * * *", "", FieldSchedule, "expected exactly 5 fields"},
		{"CRON_TZ=Pacific/Auckland 0 2 * * *", "", FieldSchedule, "spec.timeZone"},
		{"TZ=UTC 0 2 * * *", "", FieldSchedule, "spec.timeZone"},
		{"TZ=", "", FieldSchedule, "spec.timeZone"}, // robfig/cron panics on this one
		{"@every 1h", "", FieldSchedule, "@every is not supported"},
		{"@reboot", "", FieldSchedule, "unrecognized descriptor"},
		{"@Daily", "", FieldSchedule, "unrecognized descriptor"},
		{"0 0 31 2 *", "", FieldSchedule, "never fires"},
		{"0 0 30 2 *", "", FieldSchedule, "never fires"},
		{"0 2 * * *", "Mars/Olympus_Mons", FieldTimeZone, "unknown time zone"},
		{"0 2 * * *", "pacific/auckland", FieldTimeZone, "not an IANA time zone name"},
		{"0 2 * * *", "Local", FieldTimeZone, "Local"},
		{"0 2 * * *", "local", FieldTimeZone, "local (the host's own zone)"},
		{"0 2 * * *", "localtime", FieldTimeZone, "localtime (the host's own zone) is not allowed"},
		{"0 2 * * *", "LocalTime", FieldTimeZone, "the host's own zone"},
		{"0 2 * * *", "posixrules", FieldTimeZone, "not an IANA time zone name"},
		{"0 2 * * *", "posix/Pacific/Auckland", FieldTimeZone, "not an IANA time zone name"},
		{"0 2 * * *", "right/UTC", FieldTimeZone, "not an IANA time zone name"},
		{"0 2 * * *", "Pacific/auckland", FieldTimeZone, "not an IANA time zone name"},
		{"0 2 * * *", "Pacific//Auckland", FieldTimeZone, "not an IANA time zone name"},
		{"0 2 * * *", "Pacific/Auckland/", FieldTimeZone, "not an IANA time zone name"},
		{"0 2 * * *", "../../etc/passwd", FieldTimeZone, "unknown time zone"},
		{"0 2 * * *", "/etc/localtime", FieldTimeZone, "unknown time zone"},
		// The time zone is checked first: both wrong names the time zone.
		{"61 * * * *", "Nowhere/Land", FieldTimeZone, "unknown time zone"},
	}
	for _, tt := range tests {
		t.Run(tt.schedule+" "+tt.tz, func(t *testing.T) {
			s, err := Parse(tt.schedule, tt.tz)
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("Parse = %v, %v; want a *FieldError", s, err)
			}
			if fe.Field != tt.field || !strings.Contains(fe.Detail, tt.detail) {
				t.Errorf("error %q: field %s, want %s, detail containing %q", err, fe.Field, tt.field, tt.detail)
			}
			if !strings.HasPrefix(err.Error(), tt.field+": invalid value ") {
				t.Errorf("error %q does not start with the field", err)
			}
		})
	}
}

func TestValidateTemplateMetadata(t *testing.T) {
	tests := []struct {
		name        string
		labels      map[string]string
		annotations map[string]string
		field       string // "" for valid
	}{
		{"none", nil, nil, ""},
		{"good", map[string]string{"team": "a11y", "cwac.a11y.dev/tier": "gold"}, map[string]string{"note": "any text at all"}, ""},
		{"label key with a space", map[string]string{"a b": "x"}, nil, "spec.scanTemplate.metadata.labels"},
		{"label value with a space", map[string]string{"team": "a 11y"}, nil, "spec.scanTemplate.metadata.labels"},
		{"label value of 64 characters", map[string]string{"team": strings.Repeat("a", 64)}, nil, "spec.scanTemplate.metadata.labels"},
		{"annotation key without a name", nil, map[string]string{"example.org/": "x"}, "spec.scanTemplate.metadata.annotations"},
		{"annotations over 256 KiB", nil, map[string]string{"big": strings.Repeat("x", 256*1024+1)}, "spec.scanTemplate.metadata.annotations"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateTemplateMetadata(tt.labels, tt.annotations)
			if tt.field == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != tt.field {
				t.Fatalf("error %v, want a *FieldError on %s", err, tt.field)
			}
			if len(err.Error()) > 1024 {
				t.Errorf("error of %d bytes: the refused value should not be repeated", len(err.Error()))
			}
		})
	}
}

// FuzzParse: Parse never panics; what it accepts ticks on whole minutes,
// strictly later, in its time zone; what it refuses names the field.
func FuzzParse(f *testing.F) {
	seeds := []string{"0 2 * * *", "*/15 9-17 * * MON-FRI", "@daily", "TZ=", "CRON_TZ=x", "61 * * * *", "0 0 31 2 *", "@every 1s", "1-5/2,7 */3 1,15 JAN-MAR ?"}
	for _, s := range seeds {
		f.Add(s, "")
		f.Add(s, "Pacific/Auckland")
	}
	f.Add("0 2 * * *", "Local")
	f.Add("0 2 * * *", "../x")
	from := time.Date(2026, 11, 22, 10, 7, 30, 5, time.UTC)
	f.Fuzz(func(t *testing.T, schedule, tz string) {
		s, err := Parse(schedule, tz)
		if err != nil {
			var fe *FieldError
			if !errors.As(err, &fe) || (fe.Field != FieldSchedule && fe.Field != FieldTimeZone) {
				t.Fatalf("Parse(%q, %q) = %v: not a *FieldError naming the field", schedule, tz, err)
			}
			return
		}
		next := s.Next(from)
		if next.IsZero() {
			return // a schedule may have no tick in the next five years
		}
		if !next.After(from) || next.Second() != 0 || next.Nanosecond() != 0 {
			t.Fatalf("Parse(%q, %q): next tick after %s is %s", schedule, tz, from, next)
		}
		if next.Location() != from.Location() {
			t.Fatalf("next tick in %s, want the caller's %s", next.Location(), from.Location())
		}
	})
}

// IANA names of every shape load: one part, several, signs, hyphens,
// underscores, digits after the first letter.
func TestLoadLocationIANANames(t *testing.T) {
	for _, name := range []string{"", "UTC", "Pacific/Auckland", "Etc/GMT+5", "Etc/GMT-14", "America/Argentina/Buenos_Aires",
		"America/Port-au-Prince", "EST5EDT", "W-SU"} {
		loc, err := LoadLocation(name)
		if err != nil || loc == nil {
			t.Errorf("%q: %v", name, err)
		}
	}
}
