package dashboard

import (
	"strings"
	"testing"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/store"
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
// events stand for each receiver that has seen it (the fixture sent
// weekly-2's; weekly-1's are waiting).
func TestScanPageIssueEvents(t *testing.T) {
	h, _ := newTestHandler(t, Options{Scans: testScans(t)})
	_, page := get(t, h, "reader", "/scans/"+testNS+"/weekly-2")
	for _, want := range []string{`<h3 id="issue-events">Sent to issue trackers</h3>`, "<li>tracker: sent, 1 batch (7 changes), finished"} {
		if !strings.Contains(page, want) {
			t.Errorf("weekly-2's page lacks %q", want)
		}
	}
	waiting := "<li>tracker: waiting to be sent, 0 batches (0 changes) so far.</li>"
	if _, page := get(t, h, "reader", "/scans/"+testNS+"/weekly-1"); !strings.Contains(page, waiting) {
		t.Error("weekly-1's page does not say its events wait")
	}
	if _, page := get(t, h, "reader", "/scans/"+testNS+"/broken"); strings.Contains(page, "issue-events") {
		t.Error("a scan not in the history lists issue events")
	}
}
