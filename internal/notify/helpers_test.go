package notify

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// scan is a finished scan for tests; opts change it.
func scan(name string, phase cwacv1alpha1.Phase, opts ...func(*cwacv1alpha1.CwacScan)) *cwacv1alpha1.CwacScan {
	done := metav1.Unix(1_800_000_000, 0)
	s := &cwacv1alpha1.CwacScan{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: name, UID: types.UID("uid-" + name)},
		Status: cwacv1alpha1.CwacScanStatus{Phase: phase, CompletionTime: &done,
			ResultsPath: "team-a/" + name + "/2026-11-27_01-00-00_" + name},
	}
	if phase == cwacv1alpha1.PhaseComplete {
		s.Status.Summary = &cwacv1alpha1.ScanSummary{TotalIssues: 10, PagesScanned: 10, UrlsScanned: 10,
			IssuesByImpact: map[string]int64{"critical": 1, "serious": 2, "moderate": 3, "minor": 4}}
		within(s)
	} else {
		s.Status.Failure = &cwacv1alpha1.ScanFailure{Reason: cwacv1alpha1.ReasonCWACExitedNonZero, ExitCode: ptr.To[int32](1), Cause: "ValueError: boom"}
	}
	for _, o := range opts {
		o(s)
	}
	return s
}

func setCond(s *cwacv1alpha1.CwacScan, t string, st metav1.ConditionStatus, reason, msg string) {
	meta.SetStatusCondition(&s.Status.Conditions, metav1.Condition{Type: t, Status: st, Reason: reason, Message: msg})
}

func within(s *cwacv1alpha1.CwacScan) {
	setCond(s, cwacv1alpha1.ConditionThresholdsMet, metav1.ConditionTrue, cwacv1alpha1.ReasonWithinThresholds, "within")
}

// crossed gives the scan a critical threshold of 0 it crosses.
func crossed(s *cwacv1alpha1.CwacScan) {
	s.Spec.Thresholds = &cwacv1alpha1.Thresholds{MaxIssuesByImpact: map[string]int64{"critical": 0}}
	setCond(s, cwacv1alpha1.ConditionThresholdsMet, metav1.ConditionFalse, cwacv1alpha1.ReasonThresholdsCrossed, "critical issues 1 > 0")
}

func newIssues3(s *cwacv1alpha1.CwacScan) {
	s.Spec.Baseline = "base"
	s.Status.Summary.Diff = &cwacv1alpha1.ScanDiff{Baseline: "base", New: 3, NewByImpact: map[string]int64{"serious": 3},
		ByOrganisation: []cwacv1alpha1.OrganisationDiff{
			{Organisation: "Org A", New: 3, NewByImpact: map[string]int64{"serious": 3}}, {Organisation: "Org B", Fixed: 1}}}
}

func orgsIncomplete(names ...string) func(*cwacv1alpha1.CwacScan) {
	return func(s *cwacv1alpha1.CwacScan) {
		c := &cwacv1alpha1.ScanCompleteness{}
		for _, n := range names {
			c.Incomplete = append(c.Incomplete, cwacv1alpha1.OrganisationCompleteness{Organisation: n, Verdict: "blocked", Reason: "robots.txt refused " + n})
		}
		s.Status.Summary.Completeness = c
	}
}

func unscanned(urls ...string) func(*cwacv1alpha1.CwacScan) {
	return func(s *cwacv1alpha1.CwacScan) { s.Status.Summary.UnscannedBaseURLs = urls }
}

// issues sets the scan's critical issues (and total), for scores.
func issues(critical int64) func(*cwacv1alpha1.CwacScan) {
	return func(s *cwacv1alpha1.CwacScan) {
		s.Status.Summary.IssuesByImpact = map[string]int64{"critical": critical}
		s.Status.Summary.TotalIssues = critical
	}
}

func receiver(name string, typ cwacv1alpha1.ReceiverType, events ...cwacv1alpha1.NotificationEvent) cwacv1alpha1.NotificationReceiver {
	return cwacv1alpha1.NotificationReceiver{Name: name, Type: typ, Events: events,
		URLSecretRef: cwacv1alpha1.SecretKeyRef{Name: "hooks", Key: name}}
}

// orgDrops records score drops as the runner does (status.summary.diff.scoreDrops),
// each "name previous current".
func orgDrops(drops ...[3]string) func(*cwacv1alpha1.CwacScan) {
	return func(s *cwacv1alpha1.CwacScan) {
		if s.Status.Summary.Diff == nil {
			s.Status.Summary.Diff = &cwacv1alpha1.ScanDiff{Baseline: "b"}
		}
		for _, d := range drops {
			s.Status.Summary.Diff.ScoreDrops = append(s.Status.Summary.Diff.ScoreDrops,
				cwacv1alpha1.OrganisationScoreDrop{Organisation: d[0], PreviousScore: d[1], Score: d[2]})
		}
	}
}
