package controller

import (
	"reflect"
	"testing"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/metrics"
)

// wholeScan is a scan as the API server serves it, in phase: Complete, or
// (any other phase) with a failure's fields.
func wholeScan(phase cwacv1alpha1.Phase) *cwacv1alpha1.CwacScan {
	s := failedScan(phase)
	if phase == cwacv1alpha1.PhaseComplete {
		s.Status.Failure, s.Status.ExitCode = nil, nil
		s.Status.Conditions[2].Reason = cwacv1alpha1.ReasonSucceeded
		s.Status.Conditions[3].Reason = cwacv1alpha1.ReasonWithinThresholds
	}
	return s
}

func failedScan(phase cwacv1alpha1.Phase) *cwacv1alpha1.CwacScan {
	created := metav1.Unix(1_700_000_000, 0)
	start, done := metav1.Unix(1_700_000_100, 0), metav1.Unix(1_700_000_900, 0)
	deleted := metav1.Unix(1_700_001_000, 0)
	cond := func(t, reason string) metav1.Condition {
		return metav1.Condition{Type: t, Status: metav1.ConditionTrue, Reason: reason, Message: "a message", ObservedGeneration: 1, LastTransitionTime: start}
	}
	return &cwacv1alpha1.CwacScan{
		TypeMeta: metav1.TypeMeta{APIVersion: cwacv1alpha1.GroupVersion.String(), Kind: "CwacScan"},
		ObjectMeta: metav1.ObjectMeta{
			Name: "nightly-1", Namespace: "team-a", UID: "0123abcd-uid", ResourceVersion: "42", Generation: 1,
			CreationTimestamp: created, DeletionTimestamp: &deleted, DeletionGracePeriodSeconds: ptr.To[int64](0),
			Labels: map[string]string{cwacv1alpha1.LabelSchedule: "nightly", "team": "a"},
			Annotations: map[string]string{
				cwacv1alpha1.AnnotationScheduledTime:               "2026-11-21T23:00:00Z",
				cwacv1alpha1.AnnotationCancel:                      "true",
				"kubectl.kubernetes.io/last-applied-configuration": `{"spec":{"urls":["https://a.example/"]}}`,
			},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: cwacv1alpha1.GroupVersion.String(), Kind: "CwacScanSchedule",
				Name: "nightly", UID: "sched-uid", Controller: ptr.To(true)}},
			Finalizers:    []string{FinalizerDeleteResults},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationUpdate}},
		},
		Spec: cwacv1alpha1.CwacScanSpec{
			URLs: []string{"https://a.example/"}, Sites: []cwacv1alpha1.Site{{URL: "https://b.example/", Organisation: "B"}},
			Baseline: "nightly-0", TTLSecondsAfterFinished: ptr.To[int32](3600), ResultsPolicy: cwacv1alpha1.ResultsDelete, Shards: 3,
			ShardFailurePolicy: cwacv1alpha1.ShardFailurePolicyPartial, Image: "cwac:1", Timeout: "1h",
			ConfigOverrides: map[string]apiextensionsv1.JSON{"only_allow_https": {Raw: []byte("false")}},
			Resources:       &corev1.ResourceRequirements{},
		},
		Status: cwacv1alpha1.CwacScanStatus{
			Phase: phase, ObservedGeneration: 1, JobName: "nightly-1-0123abcd", StartTime: &start, CompletionTime: &done,
			ExitCode: ptr.To[int32](1), Message: "CWAC exited 1",
			Failure:     &cwacv1alpha1.ScanFailure{Reason: cwacv1alpha1.ReasonCWACExitedNonZero, ExitCode: ptr.To[int32](1), Cause: "Boom", LogTail: "Traceback"},
			ResultsPath: "team-a/nightly-1-0123abcd/2026-11-21_23-00-00_nightly-1",
			Conditions: []metav1.Condition{
				cond(cwacv1alpha1.ConditionAdmitted, cwacv1alpha1.ReasonURLsAllowed),
				cond(cwacv1alpha1.ConditionStarted, cwacv1alpha1.ReasonJobCreated),
				cond(cwacv1alpha1.ConditionFinished, cwacv1alpha1.ReasonCWACExitedNonZero),
				cond(cwacv1alpha1.ConditionThresholdsMet, cwacv1alpha1.ReasonScanFailed),
			},
			Summary: &cwacv1alpha1.ScanSummary{TotalIssues: 9, PagesScanned: 4, UrlsScanned: 4, IssuesByImpact: map[string]int64{"critical": 9},
				TopViolations: []cwacv1alpha1.Violation{{ID: "image-alt", Count: 9}},
				Diff:          &cwacv1alpha1.ScanDiff{Baseline: "nightly-0", New: 1, ByOrganisation: []cwacv1alpha1.OrganisationDiff{{Organisation: "B", New: 1}}}},
			Shards: &cwacv1alpha1.ShardStatus{Total: 3, Succeeded: 3, Merged: true},
		},
	}
}

// TestSlimFinishedScans: a finished scan keeps exactly what the operator
// reads of it from the cache (finished_cache.go lists it); an unfinished
// one stays whole but for its managed fields; other objects pass as they are.
func TestSlimFinishedScans(t *testing.T) {
	for _, phase := range []cwacv1alpha1.Phase{cwacv1alpha1.PhaseComplete, cwacv1alpha1.PhaseFailed} {
		whole := wholeScan(phase)
		cached, err := slimFinishedScans(whole.DeepCopy())
		if err != nil {
			t.Fatal(err)
		}
		got, ok := scanOf(cached)
		if _, record := cached.(*finishedScan); !ok || !record {
			t.Fatalf("%s: cached as %T", phase, cached)
		}
		w := wholeScan(phase)
		want := &cwacv1alpha1.CwacScan{
			TypeMeta: w.TypeMeta,
			ObjectMeta: metav1.ObjectMeta{
				Name: w.Name, Namespace: w.Namespace, UID: w.UID, ResourceVersion: w.ResourceVersion, Generation: w.Generation,
				CreationTimestamp: w.CreationTimestamp, DeletionTimestamp: w.DeletionTimestamp, DeletionGracePeriodSeconds: w.DeletionGracePeriodSeconds,
				Annotations: map[string]string{
					cwacv1alpha1.AnnotationScheduledTime: "2026-11-21T23:00:00Z",
					cwacv1alpha1.AnnotationCancel:        "true",
				},
				OwnerReferences: w.OwnerReferences, Finalizers: w.Finalizers,
			},
			Spec: cwacv1alpha1.CwacScanSpec{TTLSecondsAfterFinished: w.Spec.TTLSecondsAfterFinished, ResultsPolicy: w.Spec.ResultsPolicy, Shards: 3},
			Status: cwacv1alpha1.CwacScanStatus{
				Phase: phase, ObservedGeneration: 1, JobName: w.Status.JobName, StartTime: w.Status.StartTime, CompletionTime: w.Status.CompletionTime,
				ResultsPath: w.Status.ResultsPath, Summary: &cwacv1alpha1.ScanSummary{PagesScanned: 4},
			},
		}
		if phase == cwacv1alpha1.PhaseFailed {
			want.Status.Failure = &cwacv1alpha1.ScanFailure{Reason: cwacv1alpha1.ReasonCWACExitedNonZero}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: slimmed to\n%+v\nwant\n%+v", phase, got, want)
		}
		// The metrics label a slimmed scan as they label the whole one.
		if r, wr := metrics.Reason(got), metrics.Reason(whole); r != wr || metrics.Phase(got) != string(phase) {
			t.Errorf("%s: metrics reason %q, want %q", phase, r, wr)
		}
	}

	for _, phase := range []cwacv1alpha1.Phase{"", cwacv1alpha1.PhasePending, cwacv1alpha1.PhaseQueued, cwacv1alpha1.PhaseRunning} {
		got, err := slimFinishedScans(wholeScan(phase))
		if err != nil {
			t.Fatal(err)
		}
		want := wholeScan(phase)
		want.ManagedFields = nil
		if !reflect.DeepEqual(got, want) {
			t.Errorf("phase %q: an unfinished scan changed beyond its managed fields:\n%+v", phase, got)
		}
	}

	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "x"}}}}
	if got, _ := slimFinishedScans(pod); got != pod || len(pod.ManagedFields) != 1 {
		t.Errorf("a pod was changed: %+v", got)
	}
}

// TestSlimScansShareStrings: the strings many finished scans repeat (their
// namespace, phase, reasons, schedule) are one copy, not one per scan.
func TestSlimScansShareStrings(t *testing.T) {
	slim := func() *cwacv1alpha1.CwacScan {
		s := wholeScan(cwacv1alpha1.PhaseFailed)
		// As decoded from JSON: each scan's own copies.
		s.Namespace = string([]byte("team-a"))
		s.Status.Phase = cwacv1alpha1.Phase([]byte("Complete"))
		s.OwnerReferences[0].Name = string([]byte("nightly"))
		s.Status.Failure.Reason = string([]byte(cwacv1alpha1.ReasonCWACExitedNonZero))
		s.Finalizers = []string{string([]byte(FinalizerDeleteResults))}
		cached, _ := slimFinishedScans(s)
		got, _ := scanOf(cached)
		return got
	}
	a, b := slim(), slim()
	same := func(what, x, y string) {
		if unsafe.StringData(x) != unsafe.StringData(y) {
			t.Errorf("%s: two copies", what)
		}
	}
	same("namespace", a.Namespace, b.Namespace)
	same("phase", string(a.Status.Phase), string(b.Status.Phase))
	same("schedule", a.OwnerReferences[0].Name, b.OwnerReferences[0].Name)
	same("reason", a.Status.Failure.Reason, b.Status.Failure.Reason)
	same("finalizer", a.Finalizers[0], b.Finalizers[0])
}
