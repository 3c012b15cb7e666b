package issueevents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/notify"
	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
	"github.com/a11y-dev/cwac-operator/internal/testutil/schema"
	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

// recordScan records scan n of namespace ns: each organisation's issues
// opened (a new issue per fingerprint, on one page of its own).
func recordScan(t *testing.T, st *store.Store, n int, issues map[string][]string) {
	t.Helper()
	ctx := context.Background()
	w, err := st.BeginScan(ctx, store.Scan{UID: fmt.Sprintf("uid-%d", n), Namespace: "ns", Name: fmt.Sprintf("weekly-%d", n),
		Schedule: "weekly", FinishedAt: time.Unix(int64(1000*n), 0), Phase: "Complete"}, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Rollback()
	orgs := make([]string, 0, len(issues))
	for org := range issues {
		orgs = append(orgs, org)
	}
	slices.Sort(orgs)
	for _, org := range orgs {
		id, err := w.Organisation(ctx, org, "Health")
		if err != nil {
			t.Fatal(err)
		}
		pages, err := w.AddPages(ctx, id, []string{fmt.Sprintf("https://%d.example/%s", n, strings.ReplaceAll(org, " ", "-"))})
		if err != nil {
			t.Fatal(err)
		}
		fps := issues[org]
		ids := make([]int64, len(fps))
		news := make([]store.NewIssue, len(fps))
		first := w.IssueIDs(len(fps))
		for i, fp := range fps {
			ids[i] = first + int64(i)
			news[i] = store.NewIssue{Fingerprint: fp, OrgID: id, PageID: pages[0], Width: 1280, Audit: "axe_core_audit", Rule: "image-alt",
				Impact: "critical", ElementHTML: "<img src=x>"}
		}
		if err := w.AddIssues(ctx, ids, news); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
}

// tracker is a receiver: it answers the statuses given in turn (200 when
// they run out) and keeps every request.
type tracker struct {
	mu       sync.Mutex
	statuses []int
	got      []request
}

type request struct {
	header http.Header
	body   []byte
	status int
}

func (tr *tracker) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	tr.mu.Lock()
	defer tr.mu.Unlock()
	status := http.StatusOK
	if len(tr.statuses) > 0 {
		status, tr.statuses = tr.statuses[0], tr.statuses[1:]
	}
	tr.got = append(tr.got, request{header: r.Header.Clone(), body: body, status: status})
	w.WriteHeader(status)
}

func (tr *tracker) requests() []request {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return slices.Clone(tr.got)
}

// noDNS resolves nothing: the tests' receivers are at loopback addresses.
type noDNS struct{}

func (noDNS) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return nil, errors.New("no such host")
}

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newSender(t *testing.T, st *store.Store, c *clock, allowHTTP bool, rs ...Receiver) *Sender {
	t.Helper()
	policy := urlpolicy.New(urlpolicy.Config{AllowCIDRs: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}, Resolver: noDNS{}})
	s, err := New(Config{Store: st, Receivers: rs, HTTP: notify.NewSender(policy, allowHTTP, 5*time.Second), Decisions: decisions{},
		Retry: Retry{First: time.Minute, Max: 4 * time.Minute, Attempts: 3}, BatchSize: 2, Now: c.now})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func pass(t *testing.T, s *Sender) time.Duration {
	t.Helper()
	wait, err := s.Pass(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return wait
}

// TestSenderSendsEachChangeOnce: a receiver gets the scans recorded after
// it was first seen, in signed batches with stable ids; a refused batch is
// tried again after the backoff, holding back the later scans; a restart
// sends nothing twice.
func TestSenderSendsEachChangeOnce(t *testing.T) {
	st := storetest.OpenSQLite(t)
	c := &clock{t: time.Unix(1_800_000_000, 0)}
	tr := &tracker{statuses: []int{http.StatusServiceUnavailable}}
	srv := httptest.NewServer(tr)
	defer srv.Close()
	key := []byte("tracker-key")
	r := Receiver{Name: "tracker", URL: srv.URL, Key: key}

	recordScan(t, st, 1, map[string][]string{"Ministry of Health": {"before"}})
	if wait := pass(t, newSender(t, st, c, true, r)); wait != 0 || len(tr.requests()) != 0 {
		t.Fatalf("a scan recorded before the receiver was seen was sent (%d requests, wait %s)", len(tr.requests()), wait)
	}
	recordScan(t, st, 2, map[string][]string{"Ministry of Health": {"h1", "h2", "h3"}, "Ministry of Education": {"e1", "e2"}})
	recordScan(t, st, 3, map[string][]string{"Ministry of Health": {"h4"}})

	s := newSender(t, st, c, true, r)
	if wait := pass(t, s); wait != time.Minute || len(tr.requests()) != 1 {
		t.Fatalf("after a 503: wait %s, %d requests (want a minute and 1: scan 3 waits for scan 2)", wait, len(tr.requests()))
	}
	if wait := pass(t, s); wait <= 0 || len(tr.requests()) != 1 {
		t.Fatalf("tried again before the backoff: %d requests", len(tr.requests()))
	}
	c.t = c.t.Add(time.Minute)
	if wait := pass(t, s); wait != 0 {
		t.Fatalf("wait %s after sending everything", wait)
	}
	reqs := tr.requests()
	batches, seen := accepted(t, reqs, key, c.t)
	// The 503'd batch went again whole, under the same id.
	if len(reqs) != 5 || reqs[0].status != http.StatusServiceUnavailable || string(reqs[0].body) == "" ||
		reqs[0].header.Get(notify.HeaderDelivery) != reqs[1].header.Get(notify.HeaderDelivery) {
		t.Fatalf("%d requests; the first two ids %q, %q", len(reqs),
			reqs[0].header.Get(notify.HeaderDelivery), reqs[min(1, len(reqs)-1)].header.Get(notify.HeaderDelivery))
	}
	slices.Sort(seen)
	if want := []string{"e1", "e2", "h1", "h2", "h3", "h4"}; !slices.Equal(seen, want) {
		t.Errorf("changes sent %v, want each of %v once", seen, want)
	}
	for i, b := range batches {
		wantScan, wantSeq, wantLast := "weekly-2", int64(i+1), i == 2
		if i == 3 {
			wantScan, wantSeq, wantLast = "weekly-3", 1, true
		}
		if b.Scan.Name != wantScan || b.Sequence != wantSeq || b.Last != wantLast || len(b.Changes) == 0 || len(b.Changes) > 2 {
			t.Errorf("batch %d: scan %s, sequence %d, last %v, %d changes", i, b.Scan.Name, b.Sequence, b.Last, len(b.Changes))
		}
	}
	ds, err := st.ScanIssueEvents(context.Background(), []string{"ns"}, "uid-2")
	if err != nil || len(ds) != 1 || ds[0].State != store.EventsSent || ds[0].Batches != 3 || ds[0].Changes != 5 {
		t.Errorf("scan 2's delivery: %+v, %v", ds, err)
	}

	// A restart (a new sender, the same store) sends nothing again.
	if pass(t, newSender(t, st, c, true, r)); len(tr.requests()) != 5 {
		t.Errorf("after a restart: %d requests, want still 5", len(tr.requests()))
	}
}

// batchSchema is the published schema (docs/), which receivers code against.
func batchSchema(t *testing.T) *jsonschema.Resolved {
	return schema.Load(t, "../../docs/issue-events-v1.schema.json")
}

// decisions are a namespace's decisions: one applied false positive on
// image-alt across the Ministry of Education.
type decisions struct{}

func (decisions) List(_ context.Context, ns string) ([]cwacv1alpha1.CwacIssueDecision, error) {
	return []cwacv1alpha1.CwacIssueDecision{{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "decorative", Annotations: map[string]string{cwacv1alpha1.AnnotationDecidedBy: "alice"}},
		Spec: cwacv1alpha1.CwacIssueDecisionSpec{Organisation: "Ministry of Education", Kind: cwacv1alpha1.DecisionFalsePositive,
			Reason: "decorative images", Rule: "image-alt"},
		Status: cwacv1alpha1.CwacIssueDecisionStatus{Conditions: []metav1.Condition{{Type: cwacv1alpha1.ConditionApplied,
			Status: metav1.ConditionTrue, Reason: "Applied"}}},
	}}, nil
}

// accepted checks every request's signature and id, and returns the
// batches the tracker accepted, with the issues they named.
func accepted(t *testing.T, reqs []request, key []byte, now time.Time) (batches []Batch, seen []string) {
	t.Helper()
	published := batchSchema(t)
	for i, rq := range reqs {
		if err := schema.Validate(t, published, rq.body); err != nil {
			t.Errorf("request %d fails the schema: %v\n%s", i, err, rq.body)
		}
		if rq.header.Get(notify.HeaderEvent) != Event ||
			!notify.Verify(key, rq.header.Get(notify.HeaderTimestamp), rq.header.Get(notify.HeaderSignature), rq.body, now, time.Hour) {
			t.Errorf("request %d: headers %v do not sign it", i, rq.header)
		}
		var b Batch
		if err := json.Unmarshal(rq.body, &b); err != nil {
			t.Fatal(err)
		}
		if b.ID != rq.header.Get(notify.HeaderDelivery) || b.SchemaVersion != SchemaVersion || b.Receiver != "tracker" {
			t.Errorf("request %d: id %q (header %q), version %q", i, b.ID, rq.header.Get(notify.HeaderDelivery), b.SchemaVersion)
		}
		if rq.status != http.StatusOK {
			continue
		}
		batches = append(batches, b)
		for _, ch := range b.Changes {
			education := ch.Issue.Organisation == "Ministry of Education"
			if ch.Change != store.ChangeOpened || (ch.Issue.Decision != nil) != education ||
				(education && (ch.Issue.Decision.Decision != "ns/decorative" || ch.Issue.Decision.DecidedBy != "alice")) {
				t.Errorf("change %+v, decision %+v", ch, ch.Issue.Decision)
			}
			seen = append(seen, ch.Issue.Fingerprint)
		}
	}
	return batches, seen
}

// TestSenderRoutesAndGivesUp: a receiver routed to organisations gets only
// their changes, a scan with none of them sends nothing; a permanent error
// gives a scan up at once and the next scan goes on; spent tries give up.
func TestSenderRoutesAndGivesUp(t *testing.T) {
	st := storetest.OpenSQLite(t)
	c := &clock{t: time.Unix(1_800_000_000, 0)}
	tr := &tracker{statuses: []int{500, 500, 500}}
	srv := httptest.NewServer(tr)
	defer srv.Close()
	edu := Receiver{Name: "edu", URL: srv.URL, Key: []byte("k"), Organisations: []string{"Ministry of Education"}}
	httpOnly := Receiver{Name: "plain", URL: srv.URL, Key: []byte("k")}
	pass(t, newSender(t, st, c, true, edu))
	pass(t, newSender(t, st, c, false, httpOnly))
	recordScan(t, st, 1, map[string][]string{"Ministry of Health": {"h1"}})
	recordScan(t, st, 2, map[string][]string{"Ministry of Health": {"h2"}, "Ministry of Education": {"e1"}})

	// http refused for good: both scans given up without a request.
	if wait := pass(t, newSender(t, st, c, false, httpOnly)); wait != 0 || len(tr.requests()) != 0 {
		t.Fatalf("an http receiver: wait %s, %d requests", wait, len(tr.requests()))
	}
	ds, _ := st.ScanIssueEvents(context.Background(), []string{"ns"}, "uid-2")
	// (The other receiver has not been passed since: its deliveries are added when it is.)
	if len(ds) != 1 || ds[0].Receiver != "plain" || ds[0].State != store.EventsFailed || !strings.Contains(ds[0].LastError, "is http") {
		t.Errorf("the http receiver's delivery: %+v", ds)
	}

	// Routed: scan 1 has nothing of Education (sent, no request); scan 2's
	// batch fails three times and is given up.
	s := newSender(t, st, c, true, edu)
	for try := range 3 {
		wait := pass(t, s)
		if try < 2 && wait == 0 {
			t.Fatalf("try %d: no retry", try)
		}
		c.t = c.t.Add(wait)
	}
	reqs := tr.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3 tries of one batch", len(reqs))
	}
	var b Batch
	if err := json.Unmarshal(reqs[0].body, &b); err != nil || b.Scan.Name != "weekly-2" || len(b.Changes) != 1 || b.Changes[0].Issue.Fingerprint != "e1" {
		t.Errorf("routed batch %+v, %v", b, err)
	}
	ds, _ = st.ScanIssueEvents(context.Background(), []string{"ns"}, "uid-2")
	if ds[0].Receiver != "edu" || ds[0].State != store.EventsFailed || ds[0].Attempts != 3 || !strings.Contains(ds[0].LastError, "HTTP 500") {
		t.Errorf("given up: %+v", ds[0])
	}
	ds, _ = st.ScanIssueEvents(context.Background(), []string{"ns"}, "uid-1")
	if ds[0].Receiver != "edu" || ds[0].State != store.EventsSent || ds[0].Batches != 0 {
		t.Errorf("a scan with nothing routed: %+v", ds[0])
	}
}

// TestSenderSendsDecisions: decisions that start or end covering issues
// reach the receiver signed, one message each, in the order they
// happened (a refused one holds back the later), each once; a routed
// receiver gets its organisations' alone.
func TestSenderSendsDecisions(t *testing.T) {
	st := storetest.OpenSQLite(t)
	ctx := context.Background()
	c := &clock{t: time.Unix(1_800_000_000, 0)}
	tr := &tracker{statuses: []int{http.StatusBadGateway}}
	srv := httptest.NewServer(tr)
	defer srv.Close()
	key := []byte("tracker-key")
	r := Receiver{Name: "tracker", URL: srv.URL, Key: key}
	edu := Receiver{Name: "edu", URL: srv.URL, Key: key, Organisations: []string{"Ministry of Education"}}
	pass(t, newSender(t, st, c, true, r, edu)) // both first seen now
	at := time.Now().Add(time.Minute).UTC().Truncate(time.Second)
	review := at.Add(90 * 24 * time.Hour)
	ev := func(uid string, seq int64, event string, after time.Duration) store.DecisionEvent {
		return store.DecisionEvent{Namespace: "ns", UID: uid, Seq: seq, Name: "d-" + uid, Event: event, At: at.Add(after),
			Organisation: "Ministry of Health", Kind: "Accepted", Reason: "a third party's widget", DecidedBy: "alice", ReviewBy: &review}
	}
	issue := ev("i", 2, store.DecisionApplied, 0)
	issue.IssueID, issue.Element = "66d7b2e35c94a0e1", "00ff00ff00ff00ff"
	rule := ev("r", 2, store.DecisionApplied, time.Second)
	rule.Rule, rule.Pages = "color-contrast", "https://health.example/forms"
	made, expired := issue, issue
	made.Seq, made.Event = 1, store.DecisionMade
	expired.Seq, expired.Event, expired.At = 3, store.DecisionExpired, at.Add(2*time.Second)
	if err := st.AddDecisionEvents(ctx, []store.DecisionEvent{made, issue, rule, expired}); err != nil {
		t.Fatal(err)
	}
	s := newSender(t, st, c, true, r, edu)
	if wait := pass(t, s); wait != time.Minute || len(tr.requests()) != 1 {
		t.Fatalf("after a 502: wait %s, %d requests", wait, len(tr.requests()))
	}
	c.t = c.t.Add(time.Minute)
	pass(t, s)
	pass(t, newSender(t, st, c, true, r, edu)) // a restart sends nothing again
	reqs := tr.requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 1 refused and 3 decisions", len(reqs))
	}
	messages := batchSchema(t)
	var got []string
	for i, rq := range reqs {
		var m DecidedMessage
		if json.Unmarshal(rq.body, &m) != nil {
			t.Fatalf("request %d: %s", i, rq.body)
		}
		if err := schema.Validate(t, messages, rq.body); err != nil {
			t.Errorf("request %d fails the schema: %v\n%s", i, err, rq.body)
		}
		if rq.header.Get(notify.HeaderEvent) != DecidedEvent || rq.header.Get(notify.HeaderDelivery) != m.ID ||
			!notify.Verify(key, rq.header.Get(notify.HeaderTimestamp), rq.header.Get(notify.HeaderSignature), rq.body, c.t, time.Hour) {
			t.Errorf("request %d: headers %v", i, rq.header)
		}
		if rq.status == http.StatusOK {
			got = append(got, m.ID+" "+m.Decided.Change+" "+m.Decided.Event)
		}
	}
	want := []string{"ns/i/2/tracker decided applied", "ns/r/2/tracker decided applied", "ns/i/3/tracker undecided expired"}
	if !slices.Equal(got, want) || reqs[0].header.Get(notify.HeaderDelivery) != "ns/i/2/tracker" {
		t.Errorf("sent %v, want %v after a refused %s", got, want, reqs[0].header.Get(notify.HeaderDelivery))
	}
	var first DecidedMessage
	_ = json.Unmarshal(reqs[1].body, &first)
	if d := first.Decided; d.Issue == nil || d.Issue.Fingerprint != "66d7b2e35c94a0e1" || d.Rule != "" || d.Decision != "ns/d-i" ||
		d.DecidedBy != "alice" || d.ReviewBy == nil || !d.ReviewBy.Equal(review) || !d.At.Equal(at) {
		t.Errorf("the issue decision's message: %+v", d)
	}
}
