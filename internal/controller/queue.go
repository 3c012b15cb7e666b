package controller

import (
	"context"
	"slices"
	"sync"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanjob"
	"github.com/a11y-dev/cwac-operator/internal/scanspec"
)

// Field indexes of the manager's cache: the queue reads only the objects it
// needs, so its work does not grow with the number of finished scans.
const (
	// indexJobActive holds "true" for scan Jobs that have not finished.
	indexJobActive = "cwac.a11y.dev/job-active"
	// indexScanWaiting holds "true" for admitted scans without a Job.
	indexScanWaiting = "cwac.a11y.dev/scan-waiting"
	// indexPodJob holds the name of the Job that owns a pod.
	indexPodJob = "cwac.a11y.dev/pod-job"
)

// indexTrue is the value the boolean indexes hold for true.
const indexTrue = "true"

// startedJobTTL is how long a Job this process created is counted as running
// while the cache does not show it yet (the cache normally shows it within
// milliseconds; the bound only guards against a lost event).
const startedJobTTL = 2 * time.Minute

func indexFields(ctx context.Context, mgr ctrl.Manager) error {
	idx := mgr.GetFieldIndexer()
	if err := idx.IndexField(ctx, &batchv1.Job{}, indexJobActive, func(o client.Object) []string {
		if _, finished := jobFinished(o.(*batchv1.Job)); finished {
			return []string{"false"}
		}
		return []string{indexTrue}
	}); err != nil {
		return err
	}
	if err := idx.IndexField(ctx, &cwacv1alpha1.CwacScan{}, indexScanWaiting, func(o client.Object) []string {
		if scan, ok := o.(*cwacv1alpha1.CwacScan); ok && waiting(scan) { // a finishedScan is not waiting
			return []string{indexTrue}
		}
		return nil
	}); err != nil {
		return err
	}
	return idx.IndexField(ctx, &corev1.Pod{}, indexPodJob, func(o client.Object) []string {
		if name := o.GetLabels()[batchv1.JobNameLabel]; name != "" {
			return []string{name}
		}
		return nil
	})
}

// waiting: admitted, not started, not finished, not being deleted.
func waiting(scan *cwacv1alpha1.CwacScan) bool {
	return scan.Status.JobName == "" && !scan.Status.Phase.Finished() && scan.DeletionTimestamp == nil &&
		meta.IsStatusConditionTrue(scan.Status.Conditions, cwacv1alpha1.ConditionAdmitted)
}

// queue decides, under the concurrency cap, which waiting scans may start:
// the oldest first. The cap counts scan pods: a sharded scan takes a slot
// per shard that can run at once (its Job's parallelism). Everything it
// reads comes from the cache; the only state of its own is the set of Jobs
// this process has just created, which the cache may not show yet (so two
// workers never both take the last slot).
type queue struct {
	reader client.Reader
	max    int // 0: no cap
	now    func() time.Time

	mu      sync.Mutex
	started map[types.NamespacedName]reservation
}

// reservation is a Job this process created that the cache may not show yet.
type reservation struct {
	at   time.Time
	pods int
}

func newQueue(reader client.Reader, maxRunning int, now func() time.Time) *queue {
	return &queue{reader: reader, max: maxRunning, now: now, started: map[types.NamespacedName]reservation{}}
}

// podsOf is how many slots a waiting scan needs: its Job's parallelism,
// one per shard but never more than the cap.
func (q *queue) podsOf(scan *cwacv1alpha1.CwacScan) int {
	return scanjob.Parallelism(scan, scanjob.Options{MaxPodsPerScan: q.max})
}

// jobPods is how many slots an unfinished Job holds: its parallelism, or
// fewer once fewer shards are left to run.
func jobPods(job *batchv1.Job) int {
	n := int(ptr.Deref(job.Spec.Parallelism, 1))
	left := int(ptr.Deref(job.Spec.Completions, 1) - job.Status.Succeeded - job.Status.Failed)
	return max(1, min(n, left))
}

// reserve takes a slot for scan's Job when the cap allows it and no older
// scan is waiting for one. It returns false when the scan must wait; release
// gives the slot back when the Job could not be created.
func (q *queue) reserve(ctx context.Context, scan *cwacv1alpha1.CwacScan) (bool, error) {
	key := types.NamespacedName{Namespace: scan.Namespace, Name: scanspec.JobName(scan)}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.max <= 0 {
		// No cap to count against, but the Job is pending all the same: a
		// reconcile that finds it missing from the cache waits for its
		// event rather than asking the API server (findJob).
		q.forgetExpired()
		q.started[key] = reservation{at: q.now(), pods: q.podsOf(scan)}
		return true, nil
	}
	if _, held := q.started[key]; held {
		return true, nil // reserved by an earlier pass whose status patch was lost
	}
	running, err := q.running(ctx)
	if err != nil {
		return false, err
	}
	pods := q.podsOf(scan)
	free := q.max - running
	if free < pods {
		return false, nil
	}
	older, err := q.olderWaiting(ctx, scan, free-pods+1)
	if err != nil {
		return false, err
	}
	if older > free-pods {
		return false, nil
	}
	q.started[key] = reservation{at: q.now(), pods: pods}
	return true, nil
}

// forgetExpired drops the reservations of Jobs the cache never showed
// within startedJobTTL (their events were lost). The caller holds q.mu.
func (q *queue) forgetExpired() {
	now := q.now()
	for key, r := range q.started {
		if now.Sub(r.at) >= startedJobTTL {
			delete(q.started, key)
		}
	}
}

// release forgets a reservation whose Job was not created.
func (q *queue) release(scan *cwacv1alpha1.CwacScan) {
	q.mu.Lock()
	defer q.mu.Unlock()
	delete(q.started, types.NamespacedName{Namespace: scan.Namespace, Name: scanspec.JobName(scan)})
}

// pending reports whether this process created the Job moments ago and the
// cache may not show it yet.
func (q *queue) pending(key types.NamespacedName) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	r, ok := q.started[key]
	return ok && q.now().Sub(r.at) < startedJobTTL
}

// observed is called for every scan Job event: once the cache has a Job, it
// is counted from the cache.
func (q *queue) observed(key types.NamespacedName) {
	q.mu.Lock()
	defer q.mu.Unlock()
	delete(q.started, key)
}

// running counts the pods of unfinished scan Jobs in the cache plus those
// of Jobs created that the cache does not show yet. The caller holds q.mu.
func (q *queue) running(ctx context.Context) (int, error) {
	jobs := &batchv1.JobList{}
	if err := q.reader.List(ctx, jobs, client.MatchingFields{indexJobActive: indexTrue}, client.UnsafeDisableDeepCopy); err != nil {
		return 0, err
	}
	seen := make(map[types.NamespacedName]bool, len(jobs.Items))
	for i := range jobs.Items {
		seen[types.NamespacedName{Namespace: jobs.Items[i].Namespace, Name: jobs.Items[i].Name}] = true
	}
	n := 0
	for i := range jobs.Items {
		n += jobPods(&jobs.Items[i])
	}
	q.forgetExpired()
	for key, r := range q.started {
		if !seen[key] {
			n += r.pods
		}
	}
	return n, nil
}

// olderWaiting counts the slots that waiting scans older than scan, holding
// none yet, need, stopping at limit (only whether they need that many matters).
func (q *queue) olderWaiting(ctx context.Context, scan *cwacv1alpha1.CwacScan, limit int) (int, error) {
	scans := &cwacv1alpha1.CwacScanList{}
	if err := q.reader.List(ctx, scans, client.MatchingFields{indexScanWaiting: indexTrue}, client.UnsafeDisableDeepCopy); err != nil {
		return 0, err
	}
	n := 0
	for i := range scans.Items {
		s := &scans.Items[i]
		if s.UID == scan.UID || !olderFirst(s, scan) {
			continue
		}
		if _, holds := q.started[types.NamespacedName{Namespace: s.Namespace, Name: scanspec.JobName(s)}]; holds {
			continue
		}
		if n += q.podsOf(s); n >= limit {
			break
		}
	}
	return n, nil
}

// next returns the oldest waiting scans that the free slots can take, in
// order, stopping at the first that needs more than is left (it is next in
// line, so nothing younger overtakes it): a finished or deleted Job, a
// finished shard, or a deleted waiting scan, wakes exactly those.
func (q *queue) next(ctx context.Context) []reconcile.Request {
	if q.max <= 0 {
		return nil
	}
	q.mu.Lock()
	running, err := q.running(ctx)
	q.mu.Unlock()
	if err != nil {
		logf.FromContext(ctx).Error(err, "counting running scans")
		return nil
	}
	free := q.max - running
	if free <= 0 {
		return nil
	}
	scans := &cwacv1alpha1.CwacScanList{}
	if err := q.reader.List(ctx, scans, client.MatchingFields{indexScanWaiting: indexTrue}, client.UnsafeDisableDeepCopy); err != nil {
		logf.FromContext(ctx).Error(err, "listing waiting scans")
		return nil
	}
	oldest := make([]*cwacv1alpha1.CwacScan, 0, free+1)
	for i := range scans.Items {
		s := &scans.Items[i]
		at, _ := slices.BinarySearchFunc(oldest, s, func(a, b *cwacv1alpha1.CwacScan) int {
			if olderFirst(a, b) {
				return -1
			}
			return 1
		})
		if at < free {
			oldest = slices.Insert(oldest, at, s)
			if len(oldest) > free {
				oldest = oldest[:free]
			}
		}
	}
	reqs := make([]reconcile.Request, 0, len(oldest))
	for _, s := range oldest {
		if free -= q.podsOf(s); free < 0 {
			break
		}
		reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: s.Namespace, Name: s.Name}})
	}
	return reqs
}

// olderFirst orders waiting scans: by creation time, then namespace and name.
func olderFirst(a, b *cwacv1alpha1.CwacScan) bool {
	if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return a.CreationTimestamp.Before(&b.CreationTimestamp)
	}
	if a.Namespace != b.Namespace {
		return a.Namespace < b.Namespace
	}
	return a.Name < b.Name
}
