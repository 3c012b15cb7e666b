package digest

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/dashboard"
	"github.com/a11y-dev/cwac-operator/internal/decision"
	"github.com/a11y-dev/cwac-operator/internal/ingest"
	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
	"github.com/a11y-dev/cwac-operator/internal/testutil/realcwac"
)

const (
	ns  = "agencies"
	org = "CWAC Test Org" // the real run's organisation
)

var week0 = time.Date(2026, 11, 16, 3, 0, 0, 0, time.UTC)

// weeklyStore records the real CWAC run twice, a week apart: the second
// time without its image-alt rows (fixed).
func weeklyStore(t *testing.T) *store.Store {
	t.Helper()
	run0, err := realcwac.Load()
	if err != nil {
		t.Fatal(err)
	}
	st := storetest.OpenSQLite(t)
	for week := range 2 {
		run := run0.Clone()
		if week == 1 {
			rows := run.CSVs["axe_core_audit.csv"]
			id := slices.Index(rows[0], "id")
			run.CSVs["axe_core_audit.csv"] = slices.DeleteFunc(rows, func(r []string) bool { return r[id] == "image-alt" })
		}
		name := "weekly-" + string(rune('0'+week))
		scan := store.Scan{UID: name, Namespace: ns, Name: name, Schedule: "weekly", Phase: "Complete",
			FinishedAt: week0.AddDate(0, 0, 7*week), ResultsPath: ns + "/" + name}
		if _, err := ingest.Ingest(context.Background(), st, run.FS(), scan, ingest.Options{Holder: "test"}); err != nil {
			t.Fatalf("recording week %d: %v", week, err)
		}
	}
	return st
}

// TestGather: the period's scans are summed as the history counts them,
// the score before the period is the last one before it, and every link
// is the dashboard's own path under its address.
func TestGather(t *testing.T) {
	st := weeklyStore(t)
	ctx := context.Background()
	points, err := st.OrganisationTrend(ctx, []string{ns}, org, "")
	if err != nil || len(points) != 2 {
		t.Fatalf("trend: %v %v", points, err)
	}
	due := []decision.Decision{{Ref: ns + "/alt-ok", Kind: decision.Accepted, ReviewBy: week0.AddDate(0, 0, 10)}}
	period := Period{From: week0.AddDate(0, 0, 7), To: week0.AddDate(0, 0, 14)}
	o, err := Gather(ctx, st, ns, org, period, "https://dash.example/", due)
	if err != nil {
		t.Fatal(err)
	}
	last := points[1]
	if o.Scans != 1 || o.LatestScan != ns+"/weekly-1" || o.New != last.New || o.Fixed != last.Fixed || o.Reopened != last.Reopened ||
		o.Open != last.Open || o.Fixed == 0 {
		t.Errorf("the period's figures %+v, want the second week's %+v (with issues fixed)", o, last)
	}
	if o.Score == nil || *o.Score != *last.Score || o.ScoreBefore == nil || *o.ScoreBefore != *points[0].Score {
		t.Errorf("scores %v before %v, want %v before %v", o.Score, o.ScoreBefore, *last.Score, *points[0].Score)
	}
	if want := "https://dash.example" + dashboard.OrganisationPath(ns, org); o.Link != want {
		t.Errorf("link %q, want %q", o.Link, want)
	}
	if len(o.Oldest) == 0 || len(o.Oldest) > ListLength {
		t.Fatalf("%d oldest issues, want 1..%d", len(o.Oldest), ListLength)
	}
	for _, is := range o.Oldest {
		if !strings.HasPrefix(is.Link, "https://dash.example/issues/"+ns+"/") || is.Since != week0 {
			t.Errorf("oldest issue %+v: want a dashboard issue link, open since %s", is, week0)
		}
	}
	if len(o.Pages) == 0 || o.Pages[0].Open < o.Pages[len(o.Pages)-1].Open || len(o.DueForReview) != 1 {
		t.Errorf("pages %+v (want most open first), due %+v", o.Pages, o.DueForReview)
	}

	// A period with no scan keeps what is open, and has no score of its own.
	empty, err := Gather(ctx, st, ns, org, Period{From: week0.AddDate(0, 0, 21), To: week0.AddDate(0, 0, 28)}, "http://127.0.0.1:8080", nil)
	if err != nil {
		t.Fatal(err)
	}
	if empty.Scans != 0 || empty.Score != nil || empty.ScoreBefore == nil || empty.Open != last.Open || empty.New != 0 {
		t.Errorf("a period without scans: %+v", empty)
	}
}

func TestGatherRefuses(t *testing.T) {
	st := weeklyStore(t)
	ctx := context.Background()
	period := Period{From: week0, To: week0.AddDate(0, 0, 7)}
	for _, bad := range []string{"", "dash.example", "ftp://dash.example/", "https://", "javascript:alert(1)"} {
		if _, err := Gather(ctx, st, ns, org, period, bad, nil); err == nil || !strings.Contains(err.Error(), "is not an http(s) URL") {
			t.Errorf("dashboard address %q: %v", bad, err)
		}
	}
	if _, err := Gather(ctx, st, ns, "Nobody", period, "https://dash.example", nil); err == nil {
		t.Error("an organisation the history does not hold was gathered")
	}
}
