package notify

import (
	"fmt"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

type ev = cwacv1alpha1.NotificationEvent

const (
	complete = cwacv1alpha1.PhaseComplete
	failed   = cwacv1alpha1.PhaseFailed
)

func TestDecide(t *testing.T) {
	tests := []struct {
		name         string
		in           Input
		want         []ev
		comparedWith string
	}{
		{name: "first scan fails: it became failing",
			in: Input{Scan: scan("s", failed)}, want: []ev{cwacv1alpha1.EventScanFailed}},
		{name: "fails after a complete scan",
			in:   Input{Scan: scan("s", failed), Previous: scan("p", complete)},
			want: []ev{cwacv1alpha1.EventScanFailed}, comparedWith: "p"},
		{name: "fails again: no news",
			in: Input{Scan: scan("s", failed), Previous: scan("p", failed)}, want: nil, comparedWith: "p"},
		{name: "completes after a failure: recovered",
			in:   Input{Scan: scan("s", complete), Previous: scan("p", failed)},
			want: []ev{cwacv1alpha1.EventScanRecovered}, comparedWith: "p"},
		{name: "first complete scan within thresholds: nothing",
			in: Input{Scan: scan("s", complete)}, want: nil},
		{name: "crosses with nothing before: became crossing",
			in: Input{Scan: scan("s", complete, crossed)}, want: []ev{cwacv1alpha1.EventThresholdsCrossed}},
		{name: "crosses after being within",
			in:   Input{Scan: scan("s", complete, crossed), Previous: scan("b", complete), Compared: scan("b", complete)},
			want: []ev{cwacv1alpha1.EventThresholdsCrossed}, comparedWith: "b"},
		{name: "crosses again: no news",
			in:   Input{Scan: scan("s", complete, crossed), Previous: scan("b", complete, crossed), Compared: scan("b", complete, crossed)},
			want: nil, comparedWith: "b"},
		{name: "crossed, failed, crossed: judged against the baseline, no news",
			in:   Input{Scan: scan("s", complete, crossed), Previous: scan("f", failed), Compared: scan("b", complete, crossed)},
			want: []ev{cwacv1alpha1.EventScanRecovered}, comparedWith: "f"},
		{name: "back within thresholds",
			in:   Input{Scan: scan("s", complete), Previous: scan("b", complete, crossed), Compared: scan("b", complete, crossed)},
			want: []ev{cwacv1alpha1.EventThresholdsRecovered}, comparedWith: "b"},
		{name: "within after an unknown verdict: no recovery",
			in: Input{Scan: scan("s", complete), Previous: scan("f", failed)}, want: []ev{cwacv1alpha1.EventScanRecovered}, comparedWith: "f"},
		{name: "new issues against the baseline",
			in:   Input{Scan: scan("s", complete, newIssues3), Compared: scan("base", complete)},
			want: []ev{cwacv1alpha1.EventNewIssues}, comparedWith: "base"},
		{name: "score fell",
			in:   Input{Scan: scan("s", complete, issues(30)), Compared: scan("b", complete, issues(10))},
			want: []ev{cwacv1alpha1.EventScoreDropped}, comparedWith: "b"},
		{name: "an organisation's score fell, the scan's did not",
			in:   Input{Scan: scan("s", complete, issues(1), orgDrops([3]string{"Org A", "80.0", "79.9"})), Compared: scan("b", complete, issues(10))},
			want: []ev{cwacv1alpha1.EventScoreDropped}, comparedWith: "b"},
		{name: "a recorded drop that is none is not news",
			in: Input{Scan: scan("s", complete, issues(1), orgDrops([3]string{"Org A", "80.0", "80.0"}, [3]string{"Org B", "x", "1.0"})),
				Compared: scan("b", complete, issues(10))},
			want: nil, comparedWith: "b"},
		{name: "score rose: nothing",
			in: Input{Scan: scan("s", complete, issues(10)), Compared: scan("b", complete, issues(30))}, want: nil, comparedWith: "b"},
		{name: "a site newly unscanned",
			in: Input{Scan: scan("s", complete, unscanned("https://a.example/", "https://b.example/")),
				Previous: scan("p", complete, unscanned("https://a.example/"))},
			want: []ev{cwacv1alpha1.EventScanIncomplete}, comparedWith: "p"},
		{name: "the same sites unscanned again: no news",
			in: Input{Scan: scan("s", complete, unscanned("https://a.example/")),
				Previous: scan("p", complete, unscanned("https://a.example/"))}, want: nil, comparedWith: "p"},
		{name: "connections newly blocked",
			in: Input{Scan: scan("s", complete, func(s *cwacv1alpha1.CwacScan) {
				setCond(s, cwacv1alpha1.ConditionConnectionsBlocked, metav1.ConditionTrue, cwacv1alpha1.ReasonBlockedByPolicy, "10.0.0.1 refused")
			})},
			want: []ev{cwacv1alpha1.EventScanIncomplete}},
		{name: "a diff with no new issue: nothing",
			in: Input{Scan: scan("s", complete, func(s *cwacv1alpha1.CwacScan) {
				s.Status.Summary.Diff = &cwacv1alpha1.ScanDiff{Baseline: "base", New: 0, Fixed: 2}
			}), Compared: scan("base", complete)},
			want: nil, comparedWith: "base"},
		{name: "connections blocked again: no news",
			in: Input{Scan: scan("s", complete, blockedConns), Previous: scan("p", complete, blockedConns)}, comparedWith: "p"},
		{name: "connections blocked after a failed scan: news",
			in:   Input{Scan: scan("s", complete, blockedConns), Previous: scan("p", failed, blockedConns)},
			want: []ev{cwacv1alpha1.EventScanRecovered, cwacv1alpha1.EventScanIncomplete}, comparedWith: "p"},
		{name: "shards failed again: no news",
			in: Input{Scan: scan("s", complete, shardsFailed), Previous: scan("p", complete, shardsFailed)}, comparedWith: "p"},
		{name: "shards newly failed",
			in:   Input{Scan: scan("s", complete, shardsFailed), Previous: scan("p", complete)},
			want: []ev{cwacv1alpha1.EventScanIncomplete}, comparedWith: "p"},
		{name: "an organisation newly not complete",
			in:   Input{Scan: scan("s", complete, orgsIncomplete("A", "B")), Previous: scan("p", complete, orgsIncomplete("A"))},
			want: []ev{cwacv1alpha1.EventScanIncomplete}, comparedWith: "p"},
		{name: "the same organisations not complete again: no news",
			in: Input{Scan: scan("s", complete, orgsIncomplete("A")), Previous: scan("p", complete, orgsIncomplete("A"))}, comparedWith: "p"},
		{name: "everything at once, in order",
			in: Input{Scan: scan("s", complete, crossed, newIssues3, issues(50), unscanned("https://c.example/")),
				Previous: scan("b", complete), Compared: scan("b", complete)},
			want:         []ev{cwacv1alpha1.EventThresholdsCrossed, cwacv1alpha1.EventNewIssues, cwacv1alpha1.EventScoreDropped, cwacv1alpha1.EventScanIncomplete},
			comparedWith: "b"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := Decide(tc.in)
			if !slices.Equal(d.Events, tc.want) {
				t.Errorf("events %v, want %v", d.Events, tc.want)
			}
			if d.ComparedWith != tc.comparedWith {
				t.Errorf("comparedWith %q, want %q", d.ComparedWith, tc.comparedWith)
			}
		})
	}
}

func TestScoreAndDrop(t *testing.T) {
	// 10 pages; 1 critical (10) + 2 serious (10) + 3 moderate (6) + 4 minor (4) = 30 weighted: 3 per page.
	if s := Score(scan("s", complete).Status.Summary); s == nil || *s != 97 {
		t.Fatalf("score %v, want 97", s)
	}
	// Issues without an impact weigh as "other" (3).
	sum := &cwacv1alpha1.ScanSummary{TotalIssues: 10, PagesScanned: 10}
	if s := Score(sum); s == nil || *s != 97 {
		t.Errorf("other-only score %v, want 97", s)
	}
	// An impact axe does not name (not one of the four) weighs as "other"
	// too, counted once.
	odd := &cwacv1alpha1.ScanSummary{TotalIssues: 10, PagesScanned: 10, IssuesByImpact: map[string]int64{"unexpected": 10}}
	if s := Score(odd); s == nil || *s != 97 {
		t.Errorf("unknown-impact score %v, want 97", s)
	}
	if s := Score(&cwacv1alpha1.ScanSummary{}); s != nil {
		t.Errorf("no pages: score %v, want none", *s)
	}
	if s := Score(nil); s != nil {
		t.Errorf("no summary: score %v", *s)
	}
	for _, tc := range []struct {
		prev, cur *float64
		want      float64
	}{
		{ptr.To(90.0), ptr.To(80.0), 10}, {ptr.To(80.0), ptr.To(90.0), 0}, {nil, ptr.To(1.0), 0},
		{ptr.To(1.0), nil, 0}, {ptr.To(90.3), ptr.To(90.1), 0.2}, {ptr.To(50.0), ptr.To(50.0), 0},
	} {
		if got := (Facts{Score: tc.cur, PreviousScore: tc.prev}).ScoreDrop(); got != tc.want {
			t.Errorf("drop %v→%v = %v, want %v", tc.prev, tc.cur, got, tc.want)
		}
	}
}

func TestPlan(t *testing.T) {
	d := Decide(Input{Scan: scan("s", complete, crossed, issues(8)), Compared: scan("b", complete, issues(1))})
	// 8 critical on 10 pages: 92; 1 critical: 99; a 7-point fall.
	if drop := d.Facts.ScoreDrop(); drop != 7 {
		t.Fatalf("drop %v, want 7", drop)
	}
	ops := receiver("ops", cwacv1alpha1.ReceiverWebhook, cwacv1alpha1.EventScoreDropped, cwacv1alpha1.EventThresholdsCrossed)
	strict := receiver("strict", cwacv1alpha1.ReceiverSlack, cwacv1alpha1.EventScoreDropped)
	strict.ScoreDrop = ptr.To[int32](7) // must fall by more than 7
	loose := receiver("loose", cwacv1alpha1.ReceiverTeams, cwacv1alpha1.EventScoreDropped, cwacv1alpha1.EventScanFailed)
	loose.ScoreDrop = ptr.To[int32](2)
	got := Plan(d, []cwacv1alpha1.NotificationReceiver{ops, strict, loose})
	names := make([]string, 0, len(got))
	for _, p := range got {
		if p.State != cwacv1alpha1.DeliveryPending {
			t.Errorf("%s/%s state %s", p.Receiver, p.Event, p.State)
		}
		names = append(names, p.Receiver+"/"+string(p.Event))
	}
	want := []string{"ops/ThresholdsCrossed", "ops/ScoreDropped", "loose/ScoreDropped"}
	if !slices.Equal(names, want) {
		t.Errorf("plan %v, want %v", names, want)
	}
	if p := Plan(Decision{}, []cwacv1alpha1.NotificationReceiver{ops}); len(p) != 0 {
		t.Errorf("nothing raised, plan %v", p)
	}
}

// TestPlanOrganisationDrops: a receiver is sent ScoreDropped when any
// organisation's score fell by more than its scoreDrop, even when the
// whole scan's did not.
func TestPlanOrganisationDrops(t *testing.T) {
	s := scan("s", complete, issues(1), orgDrops([3]string{"Org A", "90.0", "84.0"}, [3]string{"Org B", "70.0", "68.0"}))
	d := Decide(Input{Scan: s, Compared: scan("b", complete, issues(1))})
	if d.Facts.ScoreDrop() != 0 {
		t.Fatalf("the whole scan's score fell %v", d.Facts.ScoreDrop())
	}
	want := []OrganisationDrop{{"Org A", 90, 84, 6}, {"Org B", 70, 68, 2}}
	if !slices.Equal(d.Facts.OrganisationDrops, want) {
		t.Errorf("organisation drops %+v, want %+v", d.Facts.OrganisationDrops, want)
	}
	thresholds := []int32{1, 2, 5, 6}
	receivers := make([]cwacv1alpha1.NotificationReceiver, 0, len(thresholds))
	for _, threshold := range thresholds {
		r := receiver(fmt.Sprint("over-", threshold), cwacv1alpha1.ReceiverWebhook, cwacv1alpha1.EventScoreDropped)
		r.ScoreDrop = ptr.To(threshold)
		receivers = append(receivers, r)
	}
	plan := Plan(d, receivers)
	names := make([]string, 0, len(plan))
	for _, p := range plan {
		names = append(names, p.Receiver)
	}
	if want := []string{"over-1", "over-2", "over-5"}; !slices.Equal(names, want) {
		t.Errorf("sent to %v, want %v", names, want)
	}
	for threshold, want := range map[int32]int{1: 2, 2: 1, 5: 1, 6: 0} {
		if got := len(d.Facts.OrganisationsDroppedOver(threshold)); got != want {
			t.Errorf("over %d: %d organisations, want %d", threshold, got, want)
		}
	}
}

func TestNotificationsPending(t *testing.T) {
	s := scan("s", complete)
	if s.NotificationsPending() {
		t.Error("no receivers: pending")
	}
	s.Spec.Notifications = &cwacv1alpha1.Notifications{Receivers: []cwacv1alpha1.NotificationReceiver{
		receiver("a", cwacv1alpha1.ReceiverWebhook, cwacv1alpha1.EventNewIssues)}}
	if !s.NotificationsPending() {
		t.Error("undecided: not pending")
	}
	s.Status.Notifications = &cwacv1alpha1.NotificationStatus{}
	if s.NotificationsPending() {
		t.Error("decided, nothing to send: pending")
	}
	s.Status.Notifications.Deliveries = []cwacv1alpha1.NotificationDelivery{{State: cwacv1alpha1.DeliverySent}, {State: cwacv1alpha1.DeliveryPending}}
	if !s.NotificationsPending() {
		t.Error("one pending: not pending")
	}
	s.Status.Notifications.Deliveries[1].State = cwacv1alpha1.DeliveryFailed
	if s.NotificationsPending() {
		t.Error("all settled: pending")
	}
}

func blockedConns(s *cwacv1alpha1.CwacScan) {
	setCond(s, cwacv1alpha1.ConditionConnectionsBlocked, metav1.ConditionTrue, cwacv1alpha1.ReasonBlockedByPolicy, "10.0.0.1 refused")
}

func shardsFailed(s *cwacv1alpha1.CwacScan) {
	setCond(s, cwacv1alpha1.ConditionShardsFailed, metav1.ConditionTrue, "ShardsFailed", "shard 1 failed")
}
