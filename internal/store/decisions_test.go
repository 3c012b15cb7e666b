package store_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
)

// TestDecisionEvents: events are kept in order per decision, with the
// decision as it stood; the latest of each is found; an issue's page finds
// the decisions ever about its id or its organisation's rule, withdrawn
// ones included; a batch with a duplicate is refused whole.
func TestDecisionEvents(t *testing.T) {
	for _, e := range storetest.Engines() {
		t.Run(e.Name, func(t *testing.T) {
			ctx := context.Background()
			st := e.Open(t)
			at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
			review := at.AddDate(0, 3, 0)
			issue := store.DecisionEvent{Namespace: "ns", UID: "u1", Seq: 1, Name: "d1", Event: store.DecisionMade, At: at, Generation: 1,
				Organisation: "O", Kind: "Accepted", Reason: strings.Repeat("é", 2000), DecidedBy: "lead", ReviewBy: &review,
				IssueID: "0123456789abcdef0123456789abcdef", Element: "00000000000000ff"}
			applied := issue
			applied.Seq, applied.Event, applied.At, applied.Applied = 2, store.DecisionApplied, at.Add(time.Minute), "Entitled"
			rule := store.DecisionEvent{Namespace: "ns", UID: "u2", Seq: 1, Name: "d2", Event: store.DecisionMade, At: at, Generation: 1,
				Organisation: "O", Kind: "WontFix", Reason: "r", DecidedBy: "lead", Rule: "image-alt", Pages: "https://o.example/news"}
			withdrawn := rule
			withdrawn.Seq, withdrawn.Event = 2, store.DecisionWithdrawn
			other := store.DecisionEvent{Namespace: "ns", UID: "u3", Seq: 1, Name: "d3", Event: store.DecisionMade, At: at, Organisation: "P",
				Kind: "WontFix", Reason: "r", Rule: "image-alt"}
			if err := st.AddDecisionEvents(ctx, []store.DecisionEvent{issue, applied, rule, withdrawn, other}); err != nil {
				t.Fatal(err)
			}
			if err := st.AddDecisionEvents(ctx, []store.DecisionEvent{{Namespace: "ns", UID: "u4", Seq: 1, At: at}, withdrawn}); err == nil {
				t.Error("a batch with an event already recorded was accepted")
			}
			latest, err := st.LatestDecisionEvents(ctx, "ns")
			if err != nil {
				t.Fatal(err)
			}
			if len(latest) != 3 || latest["u1"].Seq != 2 || latest["u1"].Applied != "Entitled" || latest["u2"].Event != store.DecisionWithdrawn {
				t.Errorf("latest %+v", latest)
			}
			got, err := st.DecisionEventsAbout(ctx, "ns", issue.IssueID, "O", "image-alt")
			if err != nil {
				t.Fatal(err)
			}
			seen := make([]string, 0, len(got))
			for _, e := range got {
				seen = append(seen, e.UID+"/"+e.Event)
			}
			if strings.Join(seen, ",") != "u1/made,u1/applied,u2/made,u2/withdrawn" {
				t.Errorf("events about the issue: %s", strings.Join(seen, ","))
			}
			if g := got[0]; g.Reason != issue.Reason || g.ReviewBy == nil || !g.ReviewBy.Equal(review) || !g.At.Equal(at) || g.Element != issue.Element {
				t.Errorf("event read back: %+v", g)
			}
			if got[2].ReviewBy != nil {
				t.Errorf("no review date read back as %v", got[2].ReviewBy)
			}
		})
	}
}
