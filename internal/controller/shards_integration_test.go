//go:build integration

package controller

import (
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
	"github.com/a11y-dev/cwac-operator/internal/scanspec"
	"github.com/a11y-dev/cwac-operator/internal/testutil/kubesim"
)

// shardedSpec has three organisations of one site each, so three shards.
func shardedSpec(policy cwacv1alpha1.ShardFailurePolicy) cwacv1alpha1.CwacScanSpec {
	return cwacv1alpha1.CwacScanSpec{
		Sites: []cwacv1alpha1.Site{
			{URL: "https://alpha.example.govt.nz/", Organisation: "Alpha"},
			{URL: "https://beta.example.govt.nz/", Organisation: "Beta"},
			{URL: "https://gamma.example.govt.nz/", Organisation: "Gamma"},
		},
		Shards:             3,
		ShardFailurePolicy: policy,
	}
}

func startShard(t *testing.T, job *batchv1.Job, index int, status corev1.PodStatus) *corev1.Pod {
	t.Helper()
	pod, err := kubesim.StartShardPod(ctxT(t), k8s, job, index, status)
	if err != nil {
		t.Fatalf("starting shard %d: %v", index, err)
	}
	return pod
}

func setShards(t *testing.T, job *batchv1.Job, active int32, completed, failed string, finished bool, reason string) {
	t.Helper()
	if err := kubesim.SetShards(ctxT(t), k8s, job, active, completed, failed, finished, reason); err != nil {
		t.Fatalf("setting the Job's shards: %v", err)
	}
}

func waitMergePod(t *testing.T, scan *cwacv1alpha1.CwacScan) *corev1.Pod {
	t.Helper()
	pod := &corev1.Pod{}
	waitFor(t, "the merge pod", func() (bool, error) {
		err := k8s.Get(ctxT(t), client.ObjectKey{Namespace: scan.Namespace, Name: scanspec.MergePodName(scan)}, pod)
		return err == nil, err
	})
	return pod
}

func waitShards(t *testing.T, ns, name string, want cwacv1alpha1.ShardStatus) {
	t.Helper()
	waitFor(t, "status.shards", func() (bool, error) {
		got := getScan(t, ns, name).Status.Shards
		if got == nil || *got != want {
			return false, nil
		}
		return true, nil
	})
}

// TestShardedScan follows a sharded scan through its Indexed Job, its merge
// pod and the way each policy ends it.
func TestShardedScan(t *testing.T) {
	startManager(t, 0)
	ns := newNamespace(t)

	t.Run("Partial merges the shards that succeeded and names the one that failed", func(t *testing.T) { partialShards(t, ns) })
	t.Run("Fail ends the scan with the first failed shard's reason and merges nothing", func(t *testing.T) { failedShard(t, ns) })
	t.Run("a merge that fails fails the scan and keeps the shards' results", func(t *testing.T) { failedMerge(t, ns) })
	t.Run("Fail waits for the failed shard's pod when the Job's failure comes first", func(t *testing.T) { failedShardPodLate(t, ns) })
}

// failedShardPodLate: the Indexed Job's failure reaches the operator before
// the failed shard pod's termination (separate watches); the scan waits
// for it and ends with that shard's reason, not the Job's.
func failedShardPodLate(t *testing.T, ns string) {
	createScan(t, ns, "fail-late", shardedSpec(""))
	job := waitJob(t, ns, "fail-late")
	startShard(t, job, 0, runningStatus())
	late := startShard(t, job, 1, runningStatus())
	waitPhase(t, ns, "fail-late", cwacv1alpha1.PhaseRunning)
	setShards(t, job, 0, "", "1", true, batchv1.JobReasonMaxFailedIndexesExceeded)
	time.Sleep(time.Second)
	if s := getScan(t, ns, "fail-late"); s.Status.Phase != cwacv1alpha1.PhaseRunning {
		t.Fatalf("ended before its failed shard's pod did: phase %s, %q", s.Status.Phase, s.Status.Message)
	}
	setPodStatus(t, late, terminatedStatus(scanpod.ExitRunnerError, "Error", report(scanpod.Report{
		Outcome: scanpod.OutcomeRunnerError, ExitCode: scanpod.ExitRunnerError, Message: "runner: the disk is full",
	})))
	failed := waitPhase(t, ns, "fail-late", cwacv1alpha1.PhaseFailed)
	if !strings.HasPrefix(failed.Status.Message, "shard 1: runner: the disk is full") {
		t.Errorf("message %q: want it to name shard 1 and its reason", failed.Status.Message)
	}
}

func partialShards(t *testing.T, ns string) {
	scan := createScan(t, ns, "partial", shardedSpec(cwacv1alpha1.ShardFailurePolicyPartial))
	job := waitJob(t, ns, "partial")
	if ptr.Deref(job.Spec.CompletionMode, "") != batchv1.IndexedCompletion || ptr.Deref(job.Spec.Completions, 0) != 3 {
		t.Fatalf("Job is not an Indexed Job of 3: mode %v completions %v", job.Spec.CompletionMode, job.Spec.Completions)
	}
	for i := range 3 {
		startShard(t, job, i, runningStatus())
	}
	setShards(t, job, 3, "", "", false, "")
	waitPhase(t, ns, "partial", cwacv1alpha1.PhaseRunning)
	waitShards(t, ns, "partial", cwacv1alpha1.ShardStatus{Total: 3, Running: 3})

	setShards(t, job, 0, "0,2", "1", true, batchv1.JobReasonFailedIndexes)
	merge := waitMergePod(t, scan)
	if !slices.Contains(merge.Spec.Containers[0].Args, "--failed-shards=1") || !slices.Contains(merge.Spec.Containers[0].Args, "--merge") {
		t.Errorf("merge pod args %v: want --merge and --failed-shards=1", merge.Spec.Containers[0].Args)
	}
	if !metav1.IsControlledBy(merge, getScan(t, ns, "partial")) {
		t.Error("the merge pod is not owned by the scan")
	}
	merging := waitPhase(t, ns, "partial", cwacv1alpha1.PhaseRunning)
	waitFor(t, "reason Merging", func() (bool, error) {
		merging = getScan(t, ns, "partial")
		return strings.HasPrefix(merging.Status.Message, "merging the results of 2 of 3 shards"), nil
	})

	summary := realSummary(t)
	summary.UnscannedBaseURLs = []string{"https://beta.example.govt.nz/"}
	setPodStatus(t, merge, kubesim.Merged(0, report(scanpod.Report{
		Outcome: scanpod.OutcomePartial, ResultsDir: realResultsDir, Summary: summary, Message: "merged 2 of 3 shards",
	})))
	done := waitPhase(t, ns, "partial", cwacv1alpha1.PhaseComplete)
	if done.Status.ResultsPath != scanspec.ScanDir(done)+"/"+realResultsDir {
		t.Errorf("resultsPath %q: want the merged directory", done.Status.ResultsPath)
	}
	if done.Status.Summary == nil || done.Status.Summary.TotalIssues != summary.TotalIssues {
		t.Errorf("summary %+v: want the merge's", done.Status.Summary)
	}
	if s := done.Status.Shards; s == nil || !s.Merged || s.Failed != 1 || s.Succeeded != 2 || s.FailedIndexes != "1" {
		t.Errorf("status.shards %+v: want 2 succeeded, shard 1 failed, merged", s)
	}
	c := meta.FindStatusCondition(done.Status.Conditions, cwacv1alpha1.ConditionShardsFailed)
	if c == nil || c.Status != metav1.ConditionTrue || c.Reason != cwacv1alpha1.ReasonShardsFailed ||
		!strings.Contains(c.Message, "shard 1 (https://beta.example.govt.nz/)") {
		t.Errorf("ShardsFailed = %+v: want True naming shard 1 and its site", c)
	}
	if meta.IsStatusConditionTrue(done.Status.Conditions, cwacv1alpha1.ConditionAllSitesScanned) {
		t.Error("AllSitesScanned is True though shard 1's site was not scanned")
	}
	waitEvents(t, done, "Warning/ShardsFailed")
}

func failedShard(t *testing.T, ns string) {
	scan := createScan(t, ns, "fail", shardedSpec(""))
	job := waitJob(t, ns, "fail")
	if ptr.Deref(job.Spec.MaxFailedIndexes, -1) != 0 {
		t.Fatalf("maxFailedIndexes %v: want 0 under the Fail policy", job.Spec.MaxFailedIndexes)
	}
	startShard(t, job, 0, runningStatus())
	startShard(t, job, 1, terminatedStatus(scanpod.ExitRunnerError, "Error", report(scanpod.Report{
		Outcome: scanpod.OutcomeRunnerError, ExitCode: scanpod.ExitRunnerError, Message: "runner: the disk is full",
	})))
	setShards(t, job, 0, "", "1", true, batchv1.JobReasonMaxFailedIndexesExceeded)
	failed := waitPhase(t, ns, "fail", cwacv1alpha1.PhaseFailed)
	if failed.Status.Failure == nil || failed.Status.Failure.Reason != cwacv1alpha1.ReasonRunnerError {
		t.Errorf("failure %+v: want RunnerError from shard 1", failed.Status.Failure)
	}
	if !strings.HasPrefix(failed.Status.Message, "shard 1: runner: the disk is full") {
		t.Errorf("message %q: want it to name shard 1 and its reason", failed.Status.Message)
	}
	if c := meta.FindStatusCondition(failed.Status.Conditions, cwacv1alpha1.ConditionShardsFailed); c == nil || c.Status != metav1.ConditionTrue {
		t.Errorf("ShardsFailed = %+v: want True", c)
	}
	err := k8s.Get(ctxT(t), client.ObjectKey{Namespace: ns, Name: scanspec.MergePodName(scan)}, &corev1.Pod{})
	if !apierrors.IsNotFound(err) {
		t.Errorf("a merge pod for a scan that failed: %v", err)
	}
}

func failedMerge(t *testing.T, ns string) {
	scan := createScan(t, ns, "badmerge", shardedSpec(""))
	job := waitJob(t, ns, "badmerge")
	setShards(t, job, 0, "0-2", "", true, "")
	merge := waitMergePod(t, scan)
	setPodStatus(t, merge, kubesim.Merged(scanpod.ExitRunnerError, report(scanpod.Report{
		Outcome: scanpod.OutcomeRunnerError, ExitCode: scanpod.ExitRunnerError,
		Message: "runner: shard 2's axe_core_audit.csv has another header than shard 0's",
	})))
	failed := waitPhase(t, ns, "badmerge", cwacv1alpha1.PhaseFailed)
	if failed.Status.Failure == nil || failed.Status.Failure.Reason != cwacv1alpha1.ReasonMergeFailed ||
		!strings.Contains(failed.Status.Message, "another header") || !strings.Contains(failed.Status.Message, "/shards") {
		t.Errorf("failure %+v, message %q: want MergeFailed with the merge's reason and where the shards' results are",
			failed.Status.Failure, failed.Status.Message)
	}
	if failed.Status.Summary != nil {
		t.Error("a failed merge left a summary")
	}
	if c := meta.FindStatusCondition(failed.Status.Conditions, cwacv1alpha1.ConditionShardsFailed); c == nil ||
		c.Status != metav1.ConditionFalse || c.Reason != cwacv1alpha1.ReasonAllShardsSucceeded {
		t.Errorf("ShardsFailed = %+v: want False/AllShardsSucceeded", c)
	}
}

// TestShardsCountAgainstTheCap: the concurrency cap counts pods, so a scan
// of two shards fills a cap of two, and the next scan starts when a shard
// ends.
func TestShardsCountAgainstTheCap(t *testing.T) {
	clearEarlierTests(t)
	startManagerWith(t, Options{JobOptions: testOpts, Policy: testPolicy(), MaxConcurrentScans: 2})
	ns := newNamespace(t)
	spec := shardedSpec("")
	spec.Shards = 2
	createScan(t, ns, "wide", spec)
	job := waitJob(t, ns, "wide")
	if got := ptr.Deref(job.Spec.Parallelism, 0); got != 2 {
		t.Fatalf("parallelism %d: want 2", got)
	}
	createScan(t, ns, "next", simpleSpec())
	waitPhase(t, ns, "next", cwacv1alpha1.PhaseQueued)

	setShards(t, job, 1, "0", "", false, "")
	waitJob(t, ns, "next")
}
