package digest

import (
	"testing"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/schedule"
)

func TestDue(t *testing.T) {
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	weekly, err := schedule.Parse("0 8 * * MON", "Pacific/Auckland")
	if err != nil {
		t.Fatal(err)
	}
	minutely, err := schedule.Parse("* * * * *", "")
	if err != nil {
		t.Fatal(err)
	}
	january, err := schedule.Parse("* * * 1 *", "")
	if err != nil {
		t.Fatal(err)
	}
	jan2024 := Period{From: at("2023-12-01T00:00:00Z"), To: at("2024-01-01T00:00:00Z")}
	// Mondays 08:00 in Auckland (NZDT, +13:00) are Sundays 19:00 UTC.
	made := at("2026-11-25T00:00:00Z")
	first := Period{From: made, To: at("2026-11-29T19:00:00Z")}
	for _, c := range []struct {
		name       string
		s          *schedule.Schedule
		last       *Period
		now        time.Time
		want       Period
		wantNextAt time.Time
	}{
		{"before the first tick", weekly, nil, at("2026-11-29T18:59:59Z"), Period{}, at("2026-11-29T19:00:00Z")},
		{"at the first tick: since the digest was made", weekly, nil, at("2026-11-29T19:00:00Z"), first, at("2026-12-06T19:00:00Z")},
		{"the same round later", weekly, &first, at("2026-12-01T00:00:00Z"), first, at("2026-12-06T19:00:00Z")},
		{"the next round", weekly, &first, at("2026-12-06T19:00:30Z"),
			Period{From: first.To, To: at("2026-12-06T19:00:00Z")}, at("2026-12-13T19:00:00Z")},
		{"missed ticks: one period since the last digest", weekly, &first, at("2026-12-21T00:00:00Z"),
			Period{From: first.To, To: at("2026-12-20T19:00:00Z")}, at("2026-12-27T19:00:00Z")},
		{"more ticks than are walked", minutely, &Period{From: made, To: made}, made.Add(100 * 24 * time.Hour).Add(30 * time.Second),
			Period{From: made, To: made.Add(100 * 24 * time.Hour)}, made.Add(100*24*time.Hour + time.Minute)},
		// Every minute of three Januaries (133,920 ticks), looked at in
		// June: no tick in the day before, so the period ends at the last
		// tick walked (the 100,000th, in January 2026), not at the last
		// period's end.
		{"more ticks than are walked, none of them lately", january, &jan2024, at("2026-06-15T00:00:00Z"),
			Period{From: jan2024.To, To: at("2026-01-08T10:40:00Z")}, at("2027-01-01T00:00:00Z")},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := Due(c.s, made, c.last, c.now)
			if !r.Period.From.Equal(c.want.From) || !r.Period.To.Equal(c.want.To) {
				t.Errorf("period %v–%v, want %v–%v", r.Period.From, r.Period.To, c.want.From, c.want.To)
			}
			if !r.Next.Equal(c.wantNextAt) {
				t.Errorf("next %v, want %v", r.Next, c.wantNextAt)
			}
		})
	}
}
