package controller

import (
	"context"
	"fmt"
	"unique"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// The manager's cache keeps every CwacScan of the namespaces it watches,
// finished ones included: their TTL, their Job's removal, the metrics,
// schedules' history and new scans' baselines need them. Kept whole, a
// finished scan costs tens of KiB (its spec's sites, its summary's top
// violations, its diff by organisation, managed fields), and the operator
// would grow with history until it is killed. So the cache keeps of a
// finished scan only what the operator reads from the cache; what it reads
// rarely (the whole summary for the metrics of a stream's latest scan and a
// schedule's lastResult, the message of a baseline without results) it
// reads from the API server (finishedScanDetails).
//
// What the operator reads from a finished scan in the cache, and so keeps:
//   - metadata: name, namespace, uid and resourceVersion (names made from
//     the scan, ownership, the optimistic lock of a finalizer patch),
//     generation, creationTimestamp (queue order, a scan's tick), deletion
//     timestamp and finalizers (resultsPolicy Delete), owner references (the
//     schedule that made it), and the annotations the operator sets or
//     reads: cwacv1alpha1.AnnotationScheduledTime and AnnotationCancel.
//   - spec: ttlSecondsAfterFinished (deletion after the TTL), resultsPolicy
//     (the finalizer), shards (the Job's and merge pod's names).
//   - status: phase, observedGeneration, jobName, startTime and
//     completionTime (TTLs, finished-Job removal, metrics), resultsPath (a
//     new scan's baseline), failure's reason (the metrics' reason label of
//     a Failed scan; a Complete one's is Succeeded), and
//     summary.pagesScanned (the pages counter, fed by the update that
//     finishes the scan).
//
// Everything else of a finished scan is dropped: its spec's sites and
// settings, status.message, exitCode, shards, its conditions (the Finished
// condition's reason is failure's; a scan that starts and finishes in one
// update has its queue wait counted from its creation, not its admission),
// the rest of the summary. What is left is about 1 KiB a scan, most of it
// the CwacScan type itself. Managed fields are dropped from every scan. No
// status write is ever made from a slimmed scan: the scan controller
// writes no status once a scan has finished, and a status write is a merge
// patch of the fields a reconcile changed, never a whole status.

// slimFinishedScans is the cache transform of CwacScans.
func slimFinishedScans(obj any) (any, error) {
	scan, ok := obj.(*cwacv1alpha1.CwacScan)
	if !ok {
		return obj, nil
	}
	scan.ManagedFields = nil
	if !scan.Status.Phase.Finished() {
		return scan, nil
	}
	return slimScan(scan), nil
}

// slimScan is a new scan holding what the cache keeps of a finished scan.
// Strings that many scans share (namespace, phase, reasons, owners) are
// interned.
func slimScan(s *cwacv1alpha1.CwacScan) *cwacv1alpha1.CwacScan {
	out := &cwacv1alpha1.CwacScan{
		TypeMeta: s.TypeMeta,
		ObjectMeta: metav1.ObjectMeta{
			Name: s.Name, Namespace: intern(s.Namespace), UID: s.UID, ResourceVersion: s.ResourceVersion,
			Generation: s.Generation, CreationTimestamp: s.CreationTimestamp,
			DeletionTimestamp: s.DeletionTimestamp, DeletionGracePeriodSeconds: s.DeletionGracePeriodSeconds,
		},
		Spec: cwacv1alpha1.CwacScanSpec{
			TTLSecondsAfterFinished: s.Spec.TTLSecondsAfterFinished,
			ResultsPolicy:           cwacv1alpha1.ResultsPolicy(intern(string(s.Spec.ResultsPolicy))),
			Shards:                  s.Spec.Shards,
		},
		Status: cwacv1alpha1.CwacScanStatus{
			Phase:              cwacv1alpha1.Phase(intern(string(s.Status.Phase))),
			ObservedGeneration: s.Status.ObservedGeneration,
			JobName:            s.Status.JobName,
			StartTime:          s.Status.StartTime,
			CompletionTime:     s.Status.CompletionTime,
			ResultsPath:        s.Status.ResultsPath,
		},
	}
	for _, ref := range s.OwnerReferences {
		ref.APIVersion, ref.Kind, ref.Name = intern(ref.APIVersion), intern(ref.Kind), intern(ref.Name)
		out.OwnerReferences = append(out.OwnerReferences, ref)
	}
	for _, key := range []string{cwacv1alpha1.AnnotationScheduledTime, cwacv1alpha1.AnnotationCancel} {
		if v, ok := s.Annotations[key]; ok {
			if out.Annotations == nil {
				out.Annotations = make(map[string]string, 1)
			}
			out.Annotations[key] = v
		}
	}
	if f := s.Status.Failure; f != nil {
		out.Status.Failure = &cwacv1alpha1.ScanFailure{Reason: intern(f.Reason)}
	}
	for _, f := range s.Finalizers {
		out.Finalizers = append(out.Finalizers, intern(f))
	}
	if sum := s.Status.Summary; sum != nil {
		out.Status.Summary = &cwacv1alpha1.ScanSummary{PagesScanned: sum.PagesScanned}
	}
	// The notification controller picks the scans whose notifications are
	// not settled; once they are, the cache keeps none of them.
	if s.NotificationsPending() {
		out.Spec.Notifications, out.Status.Notifications = s.Spec.Notifications, s.Status.Notifications
	}
	return out
}

// finishedScanDetails reads a finished scan whole from the API server, for
// the fields the cache does not keep; an error when it is gone or has been
// replaced by another scan of its name.
func finishedScanDetails(ctx context.Context, reader client.Reader, scan *cwacv1alpha1.CwacScan) (*cwacv1alpha1.CwacScan, error) {
	whole := &cwacv1alpha1.CwacScan{}
	if err := reader.Get(ctx, client.ObjectKeyFromObject(scan), whole); err != nil {
		return nil, fmt.Errorf("reading scan %s/%s: %w", scan.Namespace, scan.Name, err)
	}
	if whole.UID != scan.UID {
		return nil, fmt.Errorf("reading scan %s/%s: it was deleted and made again", scan.Namespace, scan.Name)
	}
	return whole, nil
}

// intern returns the one copy of s that all slimmed scans share.
func intern(s string) string { return unique.Make(s).Value() }
