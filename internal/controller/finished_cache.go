package controller

import (
	"context"
	"fmt"
	"unique"

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
// the rest of the summary. What is left is held as a finishedScan
// (finished_record.go), not a CwacScan: about 400 bytes a scan with the
// cache's index entries, where a CwacScan holding the same took 1.5 KiB
// (640 bytes of it the type's empty fields). The informer lists scans in
// pages, slimming each page before the next (pagedlist.go), so the first
// list never holds every scan whole. Managed fields are dropped from every scan. No
// status write is ever made from a slimmed scan: the scan controller
// writes no status once a scan has finished, and a status write is a merge
// patch of the fields a reconcile changed, never a whole status.

// slimFinishedScans is the cache transform of CwacScans: a finished scan
// becomes a finishedScan (finished_record.go), which the cache's readers
// return as the CwacScan holding the fields above; any other scan stays
// whole but for its managed fields. A finishedScan passes as it is (the
// paged first list, pagedlist.go, has made it already).
func slimFinishedScans(obj any) (any, error) {
	scan, ok := obj.(*cwacv1alpha1.CwacScan)
	if !ok {
		return obj, nil
	}
	scan.ManagedFields = nil
	if !scan.Status.Phase.Finished() {
		return scan, nil
	}
	if f := compactScan(scan); f != nil {
		return f, nil
	}
	return scan, nil // strings too long for a record: kept whole
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
