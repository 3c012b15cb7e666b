package store_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
)

// TestUnrecordedScans: why a scan is not recorded is kept, replaced at each
// attempt, cut to its bound, and forgotten once the scan is recorded; a
// state the store does not know is refused.
func TestUnrecordedScans(t *testing.T) {
	for _, e := range storetest.Engines() {
		t.Run(e.Name, func(t *testing.T) {
			ctx := context.Background()
			st := e.Open(t)
			if u, err := st.Unrecorded(ctx, "uid-1"); u != nil || err != nil {
				t.Fatalf("before any note: %+v, %v", u, err)
			}
			note := store.UnrecordedScan{UID: "uid-1", Namespace: "ns", Name: "week-1", State: store.Retrying,
				Reason: "disk I/O error", Attempts: 1, UpdatedAt: at(100)}
			if err := st.NoteUnrecorded(ctx, note); err != nil {
				t.Fatal(err)
			}
			note.State, note.Reason, note.Attempts, note.UpdatedAt = store.LeftOut, strings.Repeat("é", 2000), 3, at(200)
			if err := st.NoteUnrecorded(ctx, note); err != nil {
				t.Fatal(err)
			}
			u, err := st.Unrecorded(ctx, "uid-1")
			if err != nil || u == nil {
				t.Fatalf("after two notes: %+v, %v", u, err)
			}
			if u.State != store.LeftOut || u.Attempts != 3 || !u.UpdatedAt.Equal(at(200)) || u.Name != "week-1" || u.Namespace != "ns" {
				t.Errorf("the second note did not replace the first: %+v", u)
			}
			if len(u.Reason) > store.MaxUnrecordedReasonBytes || !strings.HasPrefix(u.Reason, "éé") {
				t.Errorf("reason of %d bytes, want at most %d", len(u.Reason), store.MaxUnrecordedReasonBytes)
			}
			if err := st.NoteUnrecorded(ctx, store.UnrecordedScan{UID: "uid-2", State: "lost"}); err == nil || !strings.Contains(err.Error(), `"lost"`) {
				t.Errorf("an unknown state: %v", err)
			}
			if u, _ := st.Unrecorded(ctx, "uid-2"); u != nil {
				t.Errorf("a refused note was kept: %+v", u)
			}
			if err := st.ClearUnrecorded(ctx, "uid-1"); err != nil {
				t.Fatal(err)
			}
			if u, err := st.Unrecorded(ctx, "uid-1"); u != nil || err != nil {
				t.Errorf("after clearing: %+v, %v", u, err)
			}
			if err := st.Ping(ctx); err != nil {
				t.Errorf("ping: %v", err)
			}
			// Retention by age forgets notes older than the age, not newer ones.
			for uid, sec := range map[string]int64{"old": 1000, "new": 3000} {
				if err := st.NoteUnrecorded(ctx, store.UnrecordedScan{UID: uid, State: store.LeftOut, UpdatedAt: at(sec)}); err != nil {
					t.Fatal(err)
				}
			}
			store.SetClock(st, func() time.Time { return at(3500) })
			if _, err := st.Prune(ctx, store.Retention{MaxScans: 5}); err != nil {
				t.Fatal(err)
			}
			if u, _ := st.Unrecorded(ctx, "old"); u == nil {
				t.Error("a policy without an age removed a note")
			}
			if _, err := st.Prune(ctx, store.Retention{MaxAge: 1000 * time.Second}); err != nil {
				t.Fatal(err)
			}
			if u, _ := st.Unrecorded(ctx, "old"); u != nil {
				t.Error("a note older than the age was kept")
			}
			if u, _ := st.Unrecorded(ctx, "new"); u == nil {
				t.Error("a note newer than the age was removed")
			}
		})
	}
}
