package issueevents

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/mcpapi"
	"github.com/a11y-dev/cwac-operator/internal/notify"
	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// SchemaVersion is the batch's schema version
// (docs/issue-events-v1.schema.json). New optional fields keep it.
const SchemaVersion = "cwac.a11y.dev/issue-events/v1"

// Event is the X-Cwac-Event header of every batch.
const Event = "IssueChanges"

// maxElementBytes is what is kept of an element's HTML in a change that
// would not fit in a batch whole.
const maxElementBytes = 1024

// Batch is the JSON body one request carries: some of one scan's changes,
// in the order of the issues' ids.
type Batch struct {
	SchemaVersion string `json:"schemaVersion"`
	// ID is "<scan uid>/<receiver>/<first>-<last>": the same on every
	// retry of the same changes; a receiver that sees it twice drops it.
	ID       string  `json:"id"`
	Receiver string  `json:"receiver"`
	Scan     ScanRef `json:"scan"`
	// Sequence counts the scan's batches to this receiver, from 1.
	Sequence int64 `json:"sequence"`
	// Last: no more batches of this scan follow.
	Last    bool                `json:"last"`
	Changes []mcpapi.ScanChange `json:"changes"`
}

// ScanRef names the recorded scan.
type ScanRef struct {
	Namespace  string    `json:"namespace"`
	Name       string    `json:"name"`
	UID        string    `json:"uid"`
	FinishedAt time.Time `json:"finishedAt"`
}

// built is one batch ready to send.
type built struct {
	body []byte
	id   string
	// last is the id of the last issue the batch holds, n its changes.
	last int64
	n    int
	// done: the scan's last batch.
	done bool
}

// batchOf fills a batch from a page of changes, as many as fit under
// notify.MaxBody (a change too big alone keeps only the head of its
// element's HTML). more says whether the page was followed by further
// changes.
func batchOf(d store.IssueEventDelivery, changes []store.IssueChange, more bool,
	cover covering) (built, error) {
	b := Batch{SchemaVersion: SchemaVersion, Receiver: d.Receiver, Sequence: d.Batches + 1,
		Scan: ScanRef{Namespace: d.Namespace, Name: d.Name, UID: d.ScanUID, FinishedAt: d.FinishedAt}}
	size := 0
	var last int64
	for _, c := range changes {
		ch := mcpapi.ScanChange{Change: c.Change, Issue: mcpapi.IssueOf(c.Issue)}
		ch.Issue.Decision = cover(c.Issue)
		one, err := json.Marshal(ch)
		if err != nil {
			return built{}, err
		}
		if size+len(one) > notify.MaxBody-envelopeReserve {
			if len(b.Changes) > 0 {
				more = true
				break
			}
			ch.Issue.ElementHTML = textcap.Head(ch.Issue.ElementHTML, maxElementBytes)
			if one, _ = json.Marshal(ch); len(one) > notify.MaxBody-envelopeReserve {
				return built{}, fmt.Errorf("issue %s's change is %d bytes, too big for a batch", ch.Issue.Fingerprint, len(one))
			}
		}
		size += len(one) + 1
		b.Changes = append(b.Changes, ch)
		last = c.IssueID
	}
	b.Last = !more
	b.ID = fmt.Sprintf("%s/%s/%d-%d", d.ScanUID, d.Receiver, d.After, last)
	body, err := notify.Marshal(b)
	return built{body: body, id: b.ID, last: last, n: len(b.Changes), done: b.Last}, err
}

// envelopeReserve is room in a body for everything but the changes.
const envelopeReserve = 2048
