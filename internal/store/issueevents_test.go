package store_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
)

// noChange records a scan that changed nothing.
func noChange(context.Context, *store.ScanWriter, int64, []int64) []int64 { return nil }

// TestIssueEventDeliveries: a receiver starts with the scans recorded after
// it is first seen, each such scan gets one delivery, batches advance it,
// failures are kept with their tries and the delivery ends sent or failed;
// other receivers are apart.
func TestIssueEventDeliveries(t *testing.T) {
	for _, e := range storetest.Engines() {
		t.Run(e.Name, func(t *testing.T) {
			st := e.Open(t)
			ctx := context.Background()
			changesScan(t, st, 1, noChange)
			due := func(receiver string) []store.IssueEventDelivery {
				t.Helper()
				ds, err := st.IssueEventsDue(ctx, receiver, 10)
				if err != nil {
					t.Fatal(err)
				}
				return ds
			}
			if ds := due("tracker"); len(ds) != 0 {
				t.Fatalf("a new receiver is sent scans recorded before it: %+v", ds)
			}
			changesScan(t, st, 2, noChange)
			changesScan(t, st, 3, noChange)
			ds := due("tracker")
			if len(ds) != 2 || ds[0].ScanUID != "uid-2" || ds[1].ScanUID != "uid-3" || ds[0].State != store.EventsPending ||
				ds[0].Namespace != "ns" || ds[0].Name != "weekly-2" || ds[0].After != 0 || ds[0].FinishedAt != time.Unix(2000, 0).UTC() {
				t.Fatalf("due after two scans: %+v", ds)
			}
			if again := due("tracker"); len(again) != 2 {
				t.Errorf("asked again: %d deliveries, want the same 2", len(again))
			}
			if other := due("chat"); len(other) != 0 {
				t.Errorf("another receiver, first seen now, is due %+v", other)
			}

			checkDeliveryProgress(t, st, ds, due)
		})
	}
}

// checkDeliveryProgress: a failed try is kept with its tries, batches
// advance a delivery, and it ends sent (scan 2) or failed (scan 3).
func checkDeliveryProgress(t *testing.T, st *store.Store, ds []store.IssueEventDelivery, due func(string) []store.IssueEventDelivery) {
	t.Helper()
	ctx := context.Background()
	// Two batches of scan 2, the second its last.
	if err := st.IssueEventsFailed(ctx, ds[0].ScanID, "tracker", 1, time.Unix(5000, 0), "503 from the receiver", false); err != nil {
		t.Fatal(err)
	}
	got := due("tracker")[0]
	if got.Attempts != 1 || got.LastError != "503 from the receiver" || got.NextAttemptAt != time.Unix(5000, 0).UTC() || got.State != store.EventsPending {
		t.Errorf("after a failed try: %+v", got)
	}
	if err := st.IssueEventsSent(ctx, ds[0].ScanID, "tracker", 17, 100, false); err != nil {
		t.Fatal(err)
	}
	got = due("tracker")[0]
	if got.After != 17 || got.Batches != 1 || got.Changes != 100 || got.Attempts != 0 || got.LastError != "" {
		t.Errorf("after a batch: %+v", got)
	}
	if err := st.IssueEventsSent(ctx, ds[0].ScanID, "tracker", 20, 3, true); err != nil {
		t.Fatal(err)
	}
	if err := st.IssueEventsFailed(ctx, ds[1].ScanID, "tracker", 9, time.Time{}, strings.Repeat("x", 2000), true); err != nil {
		t.Fatal(err)
	}
	if left := due("tracker"); len(left) != 0 {
		t.Errorf("sent and failed deliveries are still due: %+v", left)
	}
	seen, err := st.ScanIssueEvents(ctx, []string{"ns"}, "uid-2")
	if err != nil || len(seen) != 1 || seen[0].State != store.EventsSent || seen[0].Batches != 2 || seen[0].Changes != 103 {
		t.Errorf("scan 2's deliveries: %+v, %v", seen, err)
	}
	seen, err = st.ScanIssueEvents(ctx, []string{"ns"}, "uid-3")
	if err != nil || len(seen) != 1 || seen[0].State != store.EventsFailed || len(seen[0].LastError) != store.MaxEventErrorBytes {
		t.Errorf("scan 3's deliveries: %+v, %v", seen, err)
	}
	if seen, err := st.ScanIssueEvents(ctx, []string{"other"}, "uid-2"); err != nil || len(seen) != 0 {
		t.Errorf("another namespace reads scan 2's deliveries: %+v, %v", seen, err)
	}
}

// TestIssueEventDeliveriesRefusals: a batch of no delivery, and a read
// without a receiver or a limit in bounds, are refused.
func TestIssueEventDeliveriesRefusals(t *testing.T) {
	st := storetest.OpenSQLite(t)
	ctx := context.Background()
	if err := st.IssueEventsSent(ctx, 999, "tracker", 1, 1, true); err == nil {
		t.Error("a batch of a delivery that does not exist was recorded")
	}
	for _, bad := range []struct {
		receiver string
		limit    int
	}{{"", 1}, {"tracker", 0}, {"tracker", store.MaxLimit + 1}} {
		if _, err := st.IssueEventsDue(ctx, bad.receiver, bad.limit); err == nil {
			t.Errorf("due %q, limit %d: no error", bad.receiver, bad.limit)
		}
	}
}

// TestIssueEventDeliveriesOfPrunedScans: a delivery whose scan was pruned
// while it was pending says so (its changes are gone), the kept scan's
// does not.
func TestIssueEventDeliveriesOfPrunedScans(t *testing.T) {
	for _, e := range storetest.Engines() {
		t.Run(e.Name, func(t *testing.T) {
			st := e.Open(t)
			ctx := context.Background()
			if _, err := st.IssueEventsDue(ctx, "chat", 10); err != nil {
				t.Fatal(err)
			}
			changesScan(t, st, 1, noChange)
			changesScan(t, st, 2, noChange)
			if ds, err := st.IssueEventsDue(ctx, "chat", 10); err != nil || len(ds) != 2 {
				t.Fatalf("chat due %d, %v", len(ds), err)
			}
			changesScan(t, st, 3, noChange)
			if _, err := st.Prune(ctx, store.Retention{MaxScans: 1}); err != nil {
				t.Fatal(err)
			}
			ds, err := st.IssueEventsDue(ctx, "chat", 10)
			if err != nil || len(ds) != 3 || !ds[0].Pruned || !ds[1].Pruned || ds[2].Pruned {
				t.Errorf("after pruning: %+v, %v", ds, err)
			}
		})
	}
}

// TestIssueEventsMigration: 0012 goes down (its tables gone, issue_changes
// kept) and up again on each engine, and deliveries are then kept.
func TestIssueEventsMigration(t *testing.T) {
	for _, e := range storetest.Engines() {
		t.Run(e.Name, func(t *testing.T) {
			dsn, driver, source := migrationDB(t, e.Name)
			_ = storetest.Open(t, dsn).Close()
			db := migratedTo(t, driver, source, 11)
			for _, table := range []string{"issue_event_receivers", "issue_event_deliveries"} {
				if _, err := db.Exec(`SELECT COUNT(*) FROM ` + table); err == nil {
					t.Errorf("%s is still there after 0012 down", table)
				}
			}
			if _, err := db.Exec(`SELECT change FROM issue_changes`); err != nil {
				t.Errorf("0011's table went with 0012: %v", err)
			}
			_ = db.Close()
			st := storetest.Open(t, dsn) // Open applies 0012 again
			if _, err := st.IssueEventsDue(context.Background(), "tracker", 1); err != nil {
				t.Fatal(err)
			}
			changesScan(t, st, 1, noChange)
			if ds, err := st.IssueEventsDue(context.Background(), "tracker", 1); err != nil || len(ds) != 1 {
				t.Errorf("after 0012 up again: %+v, %v", ds, err)
			}
		})
	}
}

// TestDecisionEventDeliveries: a receiver is sent the decision events that
// start or end a decision's effect, seen since it was first seen, in the
// order they were seen, each once; failures are kept with their tries.
func TestDecisionEventDeliveries(t *testing.T) {
	for _, e := range storetest.Engines() {
		t.Run(e.Name, func(t *testing.T) {
			st := e.Open(t)
			ctx := context.Background()
			now := time.Unix(10_000, 0)
			store.SetClock(st, func() time.Time { return now })
			ev := func(uid string, seq int64, event string, at int64) store.DecisionEvent {
				return store.DecisionEvent{Namespace: "ns", UID: uid, Seq: seq, Name: "d-" + uid, Event: event, At: time.Unix(at, 0),
					Organisation: "Ministry of Health", Kind: "FalsePositive", Reason: "decorative", Rule: "image-alt"}
			}
			if err := st.AddDecisionEvents(ctx, []store.DecisionEvent{ev("old", 1, store.DecisionApplied, 9_000)}); err != nil {
				t.Fatal(err)
			}
			due := func() []store.DecisionEventDelivery {
				t.Helper()
				ds, err := st.DecisionEventsDue(ctx, "tracker", nil, 10)
				if err != nil {
					t.Fatal(err)
				}
				return ds
			}
			if ds := due(); len(ds) != 0 {
				t.Fatalf("an event seen before the receiver is due: %+v", ds)
			}
			if err := st.AddDecisionEvents(ctx, []store.DecisionEvent{
				ev("b", 1, store.DecisionMade, 10_001), ev("b", 2, store.DecisionApplied, 10_002),
				ev("a", 1, store.DecisionApplied, 10_003), ev("b", 3, store.DecisionExpired, 10_004),
				ev("a", 2, store.DecisionChanged, 10_005), ev("a", 3, store.DecisionWithdrawn, 10_006),
			}); err != nil {
				t.Fatal(err)
			}
			ds := due()
			got := make([]string, 0, len(ds))
			for _, d := range ds {
				got = append(got, fmt.Sprintf("%s/%d %s", d.Event.UID, d.Event.Seq, d.Event.Event))
			}
			want := []string{"b/2 applied", "a/1 applied", "b/3 expired", "a/3 withdrawn"}
			if !slices.Equal(got, want) || ds[0].Event.Rule != "image-alt" || ds[0].Event.Organisation != "Ministry of Health" {
				t.Fatalf("due %v, want %v (%+v)", got, want, ds[0].Event)
			}
			if err := st.DecisionEventFailed(ctx, "tracker", ds[0].Event, 1, time.Unix(20_000, 0), "HTTP 502", false); err != nil {
				t.Fatal(err)
			}
			if first := due()[0]; first.Attempts != 1 || first.LastError != "HTTP 502" || !first.NextAttemptAt.Equal(time.Unix(20_000, 0)) {
				t.Errorf("after a failed try: %+v", first)
			}
			if err := st.DecisionEventSent(ctx, "tracker", ds[0].Event); err != nil {
				t.Fatal(err)
			}
			if err := st.DecisionEventFailed(ctx, "tracker", ds[1].Event, 16, time.Time{}, "HTTP 500", true); err != nil {
				t.Fatal(err)
			}
			if left := due(); len(left) != 2 || left[0].Event.UID != "b" || left[0].Event.Seq != 3 {
				t.Errorf("left after one sent and one given up: %+v", left)
			}
			if err := st.DecisionEventSent(ctx, "tracker", store.DecisionEvent{Namespace: "ns", UID: "zzz", Seq: 1}); err == nil {
				t.Error("an event never due was recorded sent")
			}
			if _, err := st.DecisionEventsDue(ctx, "", nil, 1); err == nil {
				t.Error("no receiver: no error")
			}
			// Routed to one organisation: its events seen since, alone.
			now = now.Add(time.Hour)
			if ds, err := st.DecisionEventsDue(ctx, "edu", nil, 1); err != nil || len(ds) != 0 {
				t.Fatalf("edu first seen: %+v, %v", ds, err)
			}
			if err := st.AddDecisionEvents(ctx, []store.DecisionEvent{ev("c", 1, store.DecisionApplied, now.Unix()),
				{Namespace: "ns", UID: "e", Seq: 1, Name: "d-e", Event: store.DecisionApplied, At: now, Organisation: "Ministry of Education"}}); err != nil {
				t.Fatal(err)
			}
			if ds, err := st.DecisionEventsDue(ctx, "edu", []string{"Ministry of Education"}, 10); err != nil || len(ds) != 1 || ds[0].Event.UID != "e" {
				t.Errorf("routed to Education: %+v, %v", ds, err)
			}
		})
	}
}
