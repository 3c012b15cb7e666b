package metrics

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func at(minutes int) *metav1.Time {
	t := metav1.NewTime(t0.Add(time.Duration(minutes) * time.Minute))
	return &t
}

func cond(condType, reason string, minutes int) metav1.Condition {
	return metav1.Condition{Type: condType, Status: metav1.ConditionTrue, Reason: reason, LastTransitionTime: *at(minutes)}
}

// scan builds a scan in ns with a phase and the conditions given.
func scan(ns, name string, phase cwacv1alpha1.Phase, conds ...metav1.Condition) cwacv1alpha1.CwacScan {
	return cwacv1alpha1.CwacScan{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, CreationTimestamp: *at(0)},
		Status:     cwacv1alpha1.CwacScanStatus{Phase: phase, Conditions: conds},
	}
}

func nightly(s cwacv1alpha1.CwacScan) cwacv1alpha1.CwacScan {
	s.OwnerReferences = []metav1.OwnerReference{{
		APIVersion: cwacv1alpha1.GroupVersion.String(), Kind: "CwacScanSchedule", Name: "nightly", UID: "u", Controller: ptr.To(true),
	}}
	return s
}

func complete(s cwacv1alpha1.CwacScan, finishedAt int, sum *cwacv1alpha1.ScanSummary) cwacv1alpha1.CwacScan {
	s.Status.Phase = cwacv1alpha1.PhaseComplete
	s.Status.StartTime, s.Status.CompletionTime = at(1), at(finishedAt)
	s.Status.Conditions = append(s.Status.Conditions, cond(cwacv1alpha1.ConditionFinished, cwacv1alpha1.ReasonSucceeded, finishedAt))
	s.Status.Summary = sum
	return s
}

// pointers lists scans as a cache does: pointers to its own objects.
func pointers(scans []cwacv1alpha1.CwacScan) []*cwacv1alpha1.CwacScan {
	out := make([]*cwacv1alpha1.CwacScan, len(scans))
	for i := range scans {
		out[i] = &scans[i]
	}
	return out
}

func collector(scans []cwacv1alpha1.CwacScan, err error) *ScanCollector {
	return &ScanCollector{
		List: func(context.Context) ([]*cwacv1alpha1.CwacScan, error) { return pointers(scans), err },
		Now:  func() time.Time { return t0.Add(10 * time.Minute) },
	}
}

func TestReason(t *testing.T) {
	tests := []struct {
		name string
		scan cwacv1alpha1.CwacScan
		want string
	}{
		{"no status yet", scan("a", "s", ""), cwacv1alpha1.ReasonPending},
		{"admitted", scan("a", "s", cwacv1alpha1.PhasePending, cond(cwacv1alpha1.ConditionAdmitted, cwacv1alpha1.ReasonURLsAllowed, 0)),
			cwacv1alpha1.ReasonPending},
		{"job created", scan("a", "s", cwacv1alpha1.PhasePending, cond(cwacv1alpha1.ConditionStarted, cwacv1alpha1.ReasonJobCreated, 0)),
			cwacv1alpha1.ReasonJobCreated},
		{"queued", scan("a", "s", cwacv1alpha1.PhaseQueued), cwacv1alpha1.ReasonQueued},
		{"running", scan("a", "s", cwacv1alpha1.PhaseRunning), cwacv1alpha1.ReasonRunning},
		{"stuck pulling", scan("a", "s", cwacv1alpha1.PhasePending,
			cond(cwacv1alpha1.ConditionStarted, cwacv1alpha1.ReasonJobCreated, 0), cond(cwacv1alpha1.ConditionDegraded, cwacv1alpha1.ReasonImagePullBackOff, 0)),
			cwacv1alpha1.ReasonImagePullBackOff},
		{"failed", scan("a", "s", cwacv1alpha1.PhaseFailed, cond(cwacv1alpha1.ConditionFinished, cwacv1alpha1.ReasonOOMKilled, 0)),
			cwacv1alpha1.ReasonOOMKilled},
		{"failed, only status.failure", func() cwacv1alpha1.CwacScan {
			s := scan("a", "s", cwacv1alpha1.PhaseFailed)
			s.Status.Failure = &cwacv1alpha1.ScanFailure{Reason: cwacv1alpha1.ReasonCancelled}
			return s
		}(), cwacv1alpha1.ReasonCancelled},
		{"complete without Finished condition", scan("a", "s", cwacv1alpha1.PhaseComplete), cwacv1alpha1.ReasonSucceeded},
		{"reason outside the API's set", scan("a", "s", cwacv1alpha1.PhaseFailed, cond(cwacv1alpha1.ConditionFinished, "SomethingNew", 0)),
			OtherReason},
		{"a Degraded reason outside the set", scan("a", "s", cwacv1alpha1.PhasePending, cond(cwacv1alpha1.ConditionDegraded, "CrashLoopBackOff", 0)),
			OtherReason},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Reason(&tt.scan); got != tt.want {
				t.Errorf("Reason = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSchedule(t *testing.T) {
	byLabelOnly := scan("a", "s", cwacv1alpha1.PhaseComplete)
	byLabelOnly.Labels = map[string]string{cwacv1alpha1.LabelSchedule: "nightly"}
	notController := nightly(scan("a", "s", cwacv1alpha1.PhaseComplete))
	notController.OwnerReferences[0].Controller = nil
	otherGroup := nightly(scan("a", "s", cwacv1alpha1.PhaseComplete))
	otherGroup.OwnerReferences[0].APIVersion = "example.com/v1"
	tests := []struct {
		name string
		scan cwacv1alpha1.CwacScan
		want string
	}{
		{"made by a schedule", nightly(scan("a", "s", cwacv1alpha1.PhaseComplete)), "nightly"},
		{"a label is not an owner", byLabelOnly, NoSchedule},
		{"an owner that is not the controller", notController, NoSchedule},
		{"a CwacScanSchedule of another group", otherGroup, NoSchedule},
		{"no owner", scan("a", "s", cwacv1alpha1.PhaseComplete), NoSchedule},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Schedule(&tt.scan); got != tt.want {
				t.Errorf("Schedule = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestScanCollector(t *testing.T) {
	summary := func(total int64, pages int32, impacts map[string]int64) *cwacv1alpha1.ScanSummary {
		return &cwacv1alpha1.ScanSummary{TotalIssues: total, PagesScanned: pages, IssuesByImpact: impacts}
	}
	withDiff := summary(9, 3, map[string]int64{"critical": 2, "serious": 7})
	withDiff.DecidedIssues = 2
	withDiff.Diff = &cwacv1alpha1.ScanDiff{New: 4, Fixed: 1, ByOrganisation: []cwacv1alpha1.OrganisationDiff{
		{Organisation: "Ministry B", New: 1}, {Organisation: "Ministry A", New: 3},
	}}
	tests := []struct {
		name    string
		scans   []cwacv1alpha1.CwacScan
		err     error
		metrics []string
		want    string
	}{
		{
			name: "phases, reasons and the queue",
			scans: []cwacv1alpha1.CwacScan{
				scan("a", "q1", cwacv1alpha1.PhaseQueued, cond(cwacv1alpha1.ConditionAdmitted, cwacv1alpha1.ReasonURLsAllowed, 4)),
				scan("a", "q2", cwacv1alpha1.PhaseQueued, cond(cwacv1alpha1.ConditionAdmitted, cwacv1alpha1.ReasonURLsAllowed, 7)),
				scan("b", "q3", cwacv1alpha1.PhaseQueued), // not admitted: waits since its creation
				scan("a", "r", cwacv1alpha1.PhaseRunning),
				scan("b", "f", cwacv1alpha1.PhaseFailed, cond(cwacv1alpha1.ConditionFinished, cwacv1alpha1.ReasonDeadlineExceeded, 5)),
			},
			metrics: []string{"cwac_scans", "cwac_scan_queue_length", "cwac_scan_queue_oldest_wait_seconds", "cwac_scan_collector_up"},
			want: `
# HELP cwac_scans CwacScans that exist now, by namespace, phase and reason.
# TYPE cwac_scans gauge
cwac_scans{namespace="a",phase="Queued",reason="Queued"} 2
cwac_scans{namespace="a",phase="Running",reason="Running"} 1
cwac_scans{namespace="b",phase="Failed",reason="DeadlineExceeded"} 1
cwac_scans{namespace="b",phase="Queued",reason="Queued"} 1
# HELP cwac_scan_queue_length Scans waiting in phase Queued for a slot under the concurrency cap.
# TYPE cwac_scan_queue_length gauge
cwac_scan_queue_length 3
# HELP cwac_scan_queue_oldest_wait_seconds How long the longest-waiting Queued scan has waited since it was admitted (0 when none waits).
# TYPE cwac_scan_queue_oldest_wait_seconds gauge
cwac_scan_queue_oldest_wait_seconds 600
# HELP cwac_scan_collector_up 1 when the CwacScan gauges were computed from the operator's cache at this scrape, 0 when the cache could not be read.
# TYPE cwac_scan_collector_up gauge
cwac_scan_collector_up 1
`,
		},
		{
			name: "the latest Complete scan of each schedule, and of each namespace's unscheduled scans",
			scans: []cwacv1alpha1.CwacScan{
				complete(nightly(scan("a", "nightly-1", "")), 5, summary(100, 10, map[string]int64{"critical": 100})),
				complete(nightly(scan("a", "nightly-2", "")), 9, withDiff),
				// A later failure does not replace the latest Complete scan's figures.
				nightly(scan("a", "nightly-3", cwacv1alpha1.PhaseFailed, cond(cwacv1alpha1.ConditionFinished, cwacv1alpha1.ReasonOOMKilled, 9))),
				complete(scan("a", "adhoc", ""), 3, summary(1, 1, map[string]int64{"minor": 1, "": 5})),
			},
			metrics: []string{"cwac_latest_scan_issues", "cwac_latest_scan_total_issues", "cwac_latest_scan_decided_issues", "cwac_latest_scan_pages_scanned",
				"cwac_latest_scan_new_issues", "cwac_latest_scan_fixed_issues", "cwac_latest_scan_new_issues_by_organisation",
				"cwac_latest_scan_completion_timestamp_seconds"},
			want: `
# HELP cwac_latest_scan_issues Issues of the latest Complete scan of each schedule (schedule="(none)": the namespace's unscheduled scans), by axe impact.
# TYPE cwac_latest_scan_issues gauge
cwac_latest_scan_issues{impact="critical",namespace="a",schedule="(none)"} 0
cwac_latest_scan_issues{impact="minor",namespace="a",schedule="(none)"} 1
cwac_latest_scan_issues{impact="moderate",namespace="a",schedule="(none)"} 0
cwac_latest_scan_issues{impact="other",namespace="a",schedule="(none)"} 5
cwac_latest_scan_issues{impact="serious",namespace="a",schedule="(none)"} 0
cwac_latest_scan_issues{impact="critical",namespace="a",schedule="nightly"} 2
cwac_latest_scan_issues{impact="minor",namespace="a",schedule="nightly"} 0
cwac_latest_scan_issues{impact="moderate",namespace="a",schedule="nightly"} 0
cwac_latest_scan_issues{impact="serious",namespace="a",schedule="nightly"} 7
# HELP cwac_latest_scan_total_issues All issues (every audit) of the latest Complete scan of each schedule, but those a decision covers.
# TYPE cwac_latest_scan_total_issues gauge
cwac_latest_scan_total_issues{namespace="a",schedule="(none)"} 1
cwac_latest_scan_total_issues{namespace="a",schedule="nightly"} 9
# HELP cwac_latest_scan_decided_issues Issues of the latest Complete scan of each schedule that a decision covers, not in its total.
# TYPE cwac_latest_scan_decided_issues gauge
cwac_latest_scan_decided_issues{namespace="a",schedule="(none)"} 0
cwac_latest_scan_decided_issues{namespace="a",schedule="nightly"} 2
# HELP cwac_latest_scan_pages_scanned Pages scanned by the latest Complete scan of each schedule.
# TYPE cwac_latest_scan_pages_scanned gauge
cwac_latest_scan_pages_scanned{namespace="a",schedule="(none)"} 1
cwac_latest_scan_pages_scanned{namespace="a",schedule="nightly"} 3
# HELP cwac_latest_scan_new_issues Issues the latest Complete scan of each schedule has that its baseline did not (only when it was compared).
# TYPE cwac_latest_scan_new_issues gauge
cwac_latest_scan_new_issues{namespace="a",schedule="nightly"} 4
# HELP cwac_latest_scan_fixed_issues Issues of the baseline the latest Complete scan of each schedule no longer has (only when it was compared).
# TYPE cwac_latest_scan_fixed_issues gauge
cwac_latest_scan_fixed_issues{namespace="a",schedule="nightly"} 1
# HELP cwac_latest_scan_new_issues_by_organisation New issues of the latest Complete scan of each schedule, for its 10 organisations with the most new issues.
# TYPE cwac_latest_scan_new_issues_by_organisation gauge
cwac_latest_scan_new_issues_by_organisation{namespace="a",organisation="Ministry A",schedule="nightly"} 3
cwac_latest_scan_new_issues_by_organisation{namespace="a",organisation="Ministry B",schedule="nightly"} 1
# HELP cwac_latest_scan_completion_timestamp_seconds When the latest Complete scan of each schedule finished, in Unix seconds.
# TYPE cwac_latest_scan_completion_timestamp_seconds gauge
cwac_latest_scan_completion_timestamp_seconds{namespace="a",schedule="(none)"} 1.79534178e+09
cwac_latest_scan_completion_timestamp_seconds{namespace="a",schedule="nightly"} 1.79534214e+09
`,
		},
		{
			name:    "a cache that cannot be read reports only that",
			scans:   []cwacv1alpha1.CwacScan{scan("a", "r", cwacv1alpha1.PhaseRunning)},
			err:     errors.New("cache not synced"),
			metrics: []string{"cwac_scans", "cwac_scan_queue_length", "cwac_scan_collector_up"},
			want: `
# HELP cwac_scan_collector_up 1 when the CwacScan gauges were computed from the operator's cache at this scrape, 0 when the cache could not be read.
# TYPE cwac_scan_collector_up gauge
cwac_scan_collector_up 0
`,
		},
		{
			name:    "no scans: an empty queue",
			metrics: []string{"cwac_scans", "cwac_scan_queue_length", "cwac_scan_queue_oldest_wait_seconds", "cwac_latest_scan_issues"},
			want: `
# HELP cwac_scan_queue_length Scans waiting in phase Queued for a slot under the concurrency cap.
# TYPE cwac_scan_queue_length gauge
cwac_scan_queue_length 0
# HELP cwac_scan_queue_oldest_wait_seconds How long the longest-waiting Queued scan has waited since it was admitted (0 when none waits).
# TYPE cwac_scan_queue_oldest_wait_seconds gauge
cwac_scan_queue_oldest_wait_seconds 0
`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := collector(tt.scans, tt.err)
			if err := testutil.CollectAndCompare(c, strings.NewReader(tt.want), tt.metrics...); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestScanCollectorReportsNothingWhenNotActive(t *testing.T) {
	c := collector([]cwacv1alpha1.CwacScan{scan("a", "r", cwacv1alpha1.PhaseRunning)}, nil)
	c.Active = func() bool { return false }
	if n := testutil.CollectAndCount(c); n != 0 {
		t.Errorf("a standby replica reported %d series, want 0", n)
	}
	c.Active = func() bool { return true }
	if n := testutil.CollectAndCount(c); n == 0 {
		t.Error("the leader reported nothing")
	}
}

// TestOrganisationsAreBounded: at most TopOrganisations series per
// schedule, the ones with the most new issues, names cut to a bounded length.
func TestOrganisationsAreBounded(t *testing.T) {
	sum := &cwacv1alpha1.ScanSummary{Diff: &cwacv1alpha1.ScanDiff{}}
	for i := range 50 {
		sum.Diff.ByOrganisation = append(sum.Diff.ByOrganisation, cwacv1alpha1.OrganisationDiff{
			Organisation: strings.Repeat("é", 80) + string(rune('A'+i%26)) + string(rune('a'+i/26)), New: int64(i),
		})
	}
	c := collector([]cwacv1alpha1.CwacScan{complete(scan("a", "s", ""), 2, sum)}, nil)
	if n := testutil.CollectAndCount(c, "cwac_latest_scan_new_issues_by_organisation"); n != 1 {
		// Every name shares its first 100 bytes: they collapse to one label, the one with the most new issues.
		t.Errorf("%d series for 50 organisations whose labels are equal once cut, want 1", n)
	}
	for i := range sum.Diff.ByOrganisation {
		sum.Diff.ByOrganisation[i].Organisation = string(rune('A'+i%26)) + string(rune('a'+i/26))
	}
	if n := testutil.CollectAndCount(c, "cwac_latest_scan_new_issues_by_organisation"); n != TopOrganisations {
		t.Errorf("%d series for 50 organisations, want %d", n, TopOrganisations)
	}
	if got := organisationLabel(strings.Repeat("é", 80)); len(got) != 100 || !strings.HasPrefix(got, "éé") {
		t.Errorf("label cut to %d bytes, want 100 on a character boundary", len(got))
	}
}
