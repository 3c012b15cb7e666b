package dashboard

import (
	"context"
	"fmt"

	"github.com/a11y-dev/cwac-operator/internal/store"
)

// issueEventStates say where the scan's issue lifecycle events stand for
// each receiver of the release (docs/issue-trackers.md), one sentence a
// receiver; none when no receiver has seen the scan, or the store does not
// answer (the page then says nothing of them).
func issueEventStates(ctx context.Context, st *store.Store, ns, uid string) []string {
	if uid == "" {
		return nil
	}
	ds, err := st.ScanIssueEvents(ctx, []string{ns}, uid)
	if err != nil {
		return nil
	}
	out := make([]string, 0, len(ds))
	for _, d := range ds {
		out = append(out, issueEventState(d))
	}
	return out
}

// issueEventState is one receiver's sentence.
func issueEventState(d store.IssueEventDelivery) string {
	sent := fmt.Sprintf("%s (%s)", Count(d.Batches, "batch", "batches"), Count(d.Changes, "change", "changes"))
	switch {
	case d.State == store.EventsSent && d.Batches == 0:
		return fmt.Sprintf("%s: nothing to send (no change in its organisations).", d.Receiver)
	case d.State == store.EventsSent:
		return fmt.Sprintf("%s: sent, %s, finished %s.", d.Receiver, sent, datetime(d.UpdatedAt))
	case d.State == store.EventsFailed:
		return fmt.Sprintf("%s: given up after %s, %s sent first: %s.", d.Receiver, Count(int64(d.Attempts), "try", "tries"), sent, d.LastError)
	case d.Attempts > 0:
		return fmt.Sprintf("%s: being sent, %s so far; the last try failed (%s), tried again at %s.",
			d.Receiver, sent, d.LastError, datetime(d.NextAttemptAt))
	}
	return fmt.Sprintf("%s: waiting to be sent, %s so far.", d.Receiver, sent)
}
