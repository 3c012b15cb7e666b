package notify

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

// TestDetails: the lines Slack and Teams messages show, at each boundary
// of what they list ("and N more" only when something was left out).
func TestDetails(t *testing.T) {
	tests := []struct {
		name string
		p    Payload
		want []string
	}{
		{"nothing to say", Payload{}, nil},
		{"every organisation listed", Payload{NewIssues: &NewIssueFacts{Baseline: "b", Total: 3,
			ByImpact:       map[string]int64{"critical": 2, "minor": 1, "serious": 0},
			ByOrganisation: []OrgNew{{"A", 2, map[string]int64{"minor": 1, "critical": 1}}, {"B", 1, nil}}, Organisations: 2}},
			[]string{"New issues: 3 against b (critical 2, minor 1)", "• A: 2 new (critical 1, minor 1)", "• B: 1 new"}},
		{"one organisation more", Payload{NewIssues: &NewIssueFacts{Baseline: "b", Total: 3, ByOrganisation: []OrgNew{{"A", 2, nil}}, Organisations: 2}},
			[]string{"New issues: 3 against b", "• A: 2 new", "• and 1 more organisations"}},
		{"new issues of organisations not listed", Payload{NewIssues: &NewIssueFacts{Baseline: "b", Total: 9, ByOrganisation: []OrgNew{{"A", 2, nil}},
			Organisations: 1, NewNotListed: 7}},
			[]string{"New issues: 9 against b", "• A: 2 new", "• and 7 new issues in organisations not listed here (the report lists every one)"}},
		{"every unscanned site listed", Payload{Incomplete: &IncompleteFacts{UnscannedBaseURLs: []string{"https://a.example/"}, UnscannedBaseURLsTotal: 1}},
			[]string{"Unscanned: https://a.example/"}},
		{"one unscanned site more, blocked, shards", Payload{Incomplete: &IncompleteFacts{
			UnscannedBaseURLs: []string{"https://a.example/"}, UnscannedBaseURLsTotal: 2, Blocked: "3 connections", ShardsFailed: "shard 1"}},
			[]string{"Unscanned: https://a.example/", "and 1 more unscanned sites", "Blocked: 3 connections", "Shards failed: shard 1"}},
		{"summary", Payload{Summary: &SummaryFacts{TotalIssues: 4, IssuesByImpact: map[string]int64{"serious": 4}, PagesScanned: 2}},
			[]string{"Issues: 4 (serious 4) on 2 pages"}},
		{"the scan's score fell", Payload{Score: &ScoreFacts{Previous: new(90.0), Current: 80, Drop: 10, Threshold: 5}},
			[]string{"Score: 90.0 → 80.0 (fell 10.0; notified above 5)"}},
		{"organisations' scores fell, one more not listed", Payload{Score: &ScoreFacts{Previous: new(80.0), Current: 81, Threshold: 5,
			Organisations: []OrganisationDrop{{"A", 90, 80, 10}}, OrganisationsDropped: 2}},
			[]string{"Score: 80.0 → 81.0 (organisations notified when they fall more than 5)", "• A: 90.0 → 80.0 (fell 10.0)", "• and 1 more organisations"}},
		{"organisations' scores fell, the compared scan gone", Payload{Score: &ScoreFacts{Current: 81, Threshold: 5,
			Organisations: []OrganisationDrop{{"A", 90, 80, 10}}, OrganisationsDropped: 1}},
			[]string{"Score: 81.0 (the scan compared with is gone; organisations notified when they fall more than 5)", "• A: 90.0 → 80.0 (fell 10.0)"}},
		{"summary without impacts", Payload{Summary: &SummaryFacts{TotalIssues: 0, PagesScanned: 2}}, []string{"Issues: 0 on 2 pages"}},
		{"summary with decided issues", Payload{Summary: &SummaryFacts{TotalIssues: 3, DecidedIssues: 1, PagesScanned: 2}},
			[]string{"Issues: 3 on 2 pages", "Decided: 1 more a decision covers"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, details(&tt.p)); diff != "" {
				t.Errorf("details (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTeamsCard: the card names the compared scan only when there is one,
// and has a text block of figures only when there are figures.
func TestTeamsCard(t *testing.T) {
	body := func(p *Payload) []any {
		card := Teams(p)["attachments"].([]any)[0].(map[string]any)["content"].(map[string]any)
		return card["body"].([]any)
	}
	facts := func(b []any) []any { return b[1].(map[string]any)["facts"].([]any) }
	bare := &Payload{Title: "t", Scan: ScanRef{Namespace: "ns", Name: "s"}}
	if b := body(bare); len(b) != 2 || len(facts(b)) != 3 {
		t.Errorf("a payload without figures or comparison: %d blocks, %d facts; want 2 and 3", len(b), len(facts(b)))
	}
	full := &Payload{Title: "t", Scan: ScanRef{Namespace: "ns", Name: "s", ComparedWith: "prev"},
		Summary: &SummaryFacts{TotalIssues: 1, PagesScanned: 1}}
	b := body(full)
	if len(b) != 3 || len(facts(b)) != 4 || facts(b)[3].(map[string]any)["value"] != "prev" {
		t.Errorf("a payload with figures and a comparison: %d blocks, facts %v", len(b), facts(b))
	}
}

// TestSendStatusBoundaries: 2xx is delivered; 3xx is a redirect not
// followed; anything else is a failure saying its status.
func TestSendStatusBoundaries(t *testing.T) {
	open := NewSender(loopbackOpen(), true, 2*time.Second)
	for _, tt := range []struct {
		status int
		ok     bool
		says   string
	}{
		{200, true, ""}, {299, true, ""},
		{300, false, "HTTP 300 (redirects are not followed)"}, {399, false, "HTTP 399 (redirects are not followed)"},
		{400, false, "HTTP 400"}, {500, false, "HTTP 500"},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(tt.status) }))
		err := open.Send(context.Background(), srv.URL, []byte("{}"), nil)
		srv.Close()
		switch {
		case tt.ok && err != nil:
			t.Errorf("HTTP %d: %v, want delivered", tt.status, err)
		case !tt.ok && (err == nil || !strings.HasSuffix(err.Error(), tt.says)):
			t.Errorf("HTTP %d: %v, want an error ending %q", tt.status, err, tt.says)
		}
		if !tt.ok && tt.status >= 400 && err != nil && strings.Contains(err.Error(), "redirect") {
			t.Errorf("HTTP %d: %v calls it a redirect", tt.status, err)
		}
	}
	// The body cap is inclusive: MaxBody bytes are sent.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	defer srv.Close()
	if err := open.Send(context.Background(), srv.URL, make([]byte, MaxBody), nil); err != nil {
		t.Errorf("a body of exactly MaxBody bytes: %v, want sent", err)
	}
}

// TestVerifyAgeBoundaries: a timestamp exactly maxAge old, or ahead, is
// still accepted; a second more is not.
func TestVerifyAgeBoundaries(t *testing.T) {
	key, body := []byte("k"), []byte(`{"a":1}`)
	now := time.Unix(1_800_000_000, 0)
	for _, tt := range []struct {
		signedAt time.Time
		ok       bool
	}{
		{now.Add(-5 * time.Minute), true}, {now.Add(-5*time.Minute - time.Second), false},
		{now.Add(5 * time.Minute), true}, {now.Add(5*time.Minute + time.Second), false},
	} {
		ts, sig := Sign(key, tt.signedAt, body)
		if got := Verify(key, ts, sig, body, now, 5*time.Minute); got != tt.ok {
			t.Errorf("signed %s from now: Verify = %v, want %v", tt.signedAt.Sub(now), got, tt.ok)
		}
	}
}

// TestSenderTimeouts: the timeout is split as documented (half to connect,
// half to the TLS handshake, all of it for the answer), and a timeout of 0
// or less takes the default rather than none.
func TestSenderTimeouts(t *testing.T) {
	for _, tt := range []struct{ given, want time.Duration }{
		{0, DefaultTimeout}, {-time.Second, DefaultTimeout}, {4 * time.Second, 4 * time.Second},
	} {
		s := NewSender(loopbackOpen(), true, tt.given)
		tr := s.client.Transport.(*http.Transport)
		if s.client.Timeout != tt.want || s.dialer.Timeout != tt.want/2 || tr.TLSHandshakeTimeout != tt.want/2 ||
			tr.ResponseHeaderTimeout != tt.want || tr.IdleConnTimeout != 30*time.Second {
			t.Errorf("timeout %s: client %s, dial %s, TLS %s, answer %s, idle %s; want %s split as documented",
				tt.given, s.client.Timeout, s.dialer.Timeout, tr.TLSHandshakeTimeout, tr.ResponseHeaderTimeout, tr.IdleConnTimeout, tt.want)
		}
	}
}

// TestMarshalCap: a body of exactly MaxBody bytes is sent, one more is not.
func TestMarshalCap(t *testing.T) {
	// A JSON string of n bytes: its quotes plus n-2 letters.
	str := func(n int) string { return strings.Repeat("a", n-2) }
	if b, err := Marshal(str(MaxBody)); err != nil || len(b) != MaxBody {
		t.Errorf("a %d-byte body: %d bytes, %v; want it whole", MaxBody, len(b), err)
	}
	if _, err := Marshal(str(MaxBody + 1)); err == nil || !strings.Contains(err.Error(), "exceeds") {
		t.Errorf("a %d-byte body: %v, want refused", MaxBody+1, err)
	}
}

// TestOccurredAtAndSchedule: a payload's time is when the scan finished
// (its creation when it has no completion time), and its schedule the
// label's, else the owning schedule's.
func TestOccurredAtAndSchedule(t *testing.T) {
	created := metav1.NewTime(time.Date(2026, 11, 27, 2, 0, 0, 0, time.UTC))
	finished := metav1.NewTime(time.Date(2026, 11, 27, 2, 14, 9, 0, time.UTC))
	s := &cwacv1alpha1.CwacScan{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: created}}
	if got := occurredAt(s); got != "2026-11-27T02:00:00Z" {
		t.Errorf("without a completion time: %s, want the creation time", got)
	}
	s.Status.CompletionTime = &finished
	if got := occurredAt(s); got != "2026-11-27T02:14:09Z" {
		t.Errorf("finished: %s, want the completion time", got)
	}
	if got := scheduleOf(s); got != "" {
		t.Errorf("no schedule: %q", got)
	}
	s.OwnerReferences = []metav1.OwnerReference{{Kind: "CwacScanSchedule", Name: "owner"}}
	if got := scheduleOf(s); got != "owner" {
		t.Errorf("owned: %q, want owner", got)
	}
	s.Labels = map[string]string{cwacv1alpha1.LabelSchedule: "nightly"}
	if got := scheduleOf(s); got != "nightly" {
		t.Errorf("labelled: %q, want nightly", got)
	}
}

// TestScoreTitleAtTheThreshold: a scan whose score fell by exactly the
// threshold is not titled as a fall of its own; one point more is.
func TestScoreTitleAtTheThreshold(t *testing.T) {
	orgs := []OrganisationDrop{{"A", 90, 70, 20}}
	at := scoreTitle("ns/s", &ScoreFacts{Previous: new(90.0), Current: 85, Drop: 5, Threshold: 5, Organisations: orgs, OrganisationsDropped: 1})
	if want := "Scan ns/s: A's score fell 20.0 points (90.0 to 70.0)"; at != want {
		t.Errorf("at the threshold: %q, want %q", at, want)
	}
	over := scoreTitle("ns/s", &ScoreFacts{Previous: new(90.0), Current: 84, Drop: 6, Threshold: 5, Organisations: orgs, OrganisationsDropped: 1})
	if want := "Scan ns/s: score fell 6.0 points (90.0 to 84.0); A's score fell 20.0 points (90.0 to 70.0)"; over != want {
		t.Errorf("over the threshold: %q, want %q", over, want)
	}
}

// TestCheckURLLength: a receiver URL of exactly urlpolicy.MaxURLLength is taken, one
// byte more is refused, saying why.
func TestCheckURLLength(t *testing.T) {
	s := NewSender(loopbackOpen(), false, time.Second)
	base := "https://hooks.example.org/"
	exact := base + strings.Repeat("a", urlpolicy.MaxURLLength-len(base))
	if _, err := s.CheckURL(exact); err != nil {
		t.Errorf("a URL of exactly %d bytes: %v", urlpolicy.MaxURLLength, err)
	}
	_, err := s.CheckURL(exact + "a")
	if err == nil || !strings.Contains(err.Msg, "is longer than") || !err.Permanent {
		t.Errorf("a URL of %d bytes: %+v; want a permanent refusal saying it is too long", urlpolicy.MaxURLLength+1, err)
	}
}
