package dashboard

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
)

func TestIssueEventState(t *testing.T) {
	next := time.Date(2026, 11, 30, 4, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		d    store.IssueEventDelivery
		want string
	}{
		{store.IssueEventDelivery{Receiver: "t", State: store.EventsSent}, "t: nothing to send (no change in its organisations)."},
		{store.IssueEventDelivery{Receiver: "t", State: store.EventsSent, Batches: 3, Changes: 212, UpdatedAt: next},
			"t: sent, 3 batches (212 changes), finished 2026-11-30 04:00 UTC."},
		{store.IssueEventDelivery{Receiver: "t", State: store.EventsFailed, Batches: 1, Changes: 1, Attempts: 16, LastError: "the receiver answered HTTP 500"},
			"t: given up after 16 tries, 1 batch (1 change) sent first: the receiver answered HTTP 500."},
		{store.IssueEventDelivery{Receiver: "t", State: store.EventsPending, Attempts: 2, LastError: "timed out", NextAttemptAt: next},
			"t: being sent, 0 batches (0 changes) so far; the last try failed (timed out), tried again at 2026-11-30 04:00 UTC."},
		{store.IssueEventDelivery{Receiver: "t", State: store.EventsPending}, "t: waiting to be sent, 0 batches (0 changes) so far."},
	} {
		if got := issueEventState(tc.d); got != tc.want {
			t.Errorf("%+v:\n got %q\nwant %q", tc.d, got, tc.want)
		}
	}
}

// TestScanPageIssueEvents: a recorded scan's page says where its issue
// events stand for each receiver that has seen it.
func TestScanPageIssueEvents(t *testing.T) {
	st := storetest.OpenSQLite(t)
	ctx := context.Background()
	for _, r := range []string{"tracker", "chat"} {
		if _, err := st.IssueEventsDue(ctx, r, 1); err != nil { // seen before any scan: every scan is theirs
			t.Fatal(err)
		}
	}
	fillStore(t, st)
	due, err := st.IssueEventsDue(ctx, "tracker", 10)
	if err != nil || len(due) != 4 {
		t.Fatalf("due %d, %v", len(due), err)
	}
	week2 := weekScan(testNS, 2).UID
	for _, d := range due {
		if d.ScanUID == week2 {
			if err := st.IssueEventsSent(ctx, d.ScanID, "tracker", 99, 7, true); err != nil {
				t.Fatal(err)
			}
		}
	}
	scans := testScans(t)
	for i := range scans.scans {
		if scans.scans[i].Namespace == testNS && scans.scans[i].Name == "weekly-2" {
			scans.scans[i].UID = week2
		}
	}
	h, err := New(Options{Access: defaultAccess, Namespaces: []string{testNS, otherNS}, Store: store.NewHandle(st), Scans: scans})
	if err != nil {
		t.Fatal(err)
	}
	_, page := get(t, h, "reader", "/scans/"+testNS+"/weekly-2")
	for _, want := range []string{`<h3 id="issue-events">Sent to issue trackers</h3>`, "<li>tracker: sent, 1 batch (7 changes), finished"} {
		if !strings.Contains(page, want) {
			t.Errorf("the scan page lacks %q", want)
		}
	}
	if strings.Contains(page, "<li>chat:") {
		t.Error("a receiver not yet passed over the scan is listed")
	}
	if _, page := get(t, h, "reader", "/scans/"+testNS+"/weekly-1"); strings.Contains(page, "issue-events") {
		t.Error("a scan without a UID lists issue events")
	}
}
