//go:build integration

package cluster

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/scanspec"
)

// threeOrganisations are three base URLs of the test site, each its own
// organisation, so a scan of them splits into three shards.
func threeOrganisations() []cwacv1alpha1.Site {
	return []cwacv1alpha1.Site{
		{URL: siteURL, Organisation: "Alpha", Sector: "Test Sector"},
		{URL: siteURL + "clean.html", Organisation: "Bravo", Sector: "Test Sector"},
		{URL: siteURL + "form.html", Organisation: "Charlie", Sector: "Test Sector"},
	}
}

// TestShardedScanMatchesOnePod runs the same sites as one pod and as three
// shards on the real kubelet (an Indexed Job, then the merge pod): the
// merged results read as one run, figure for figure.
func TestShardedScanMatchesOnePod(t *testing.T) {
	need(t)
	one := newScan(t, "unsharded", func(s *cwacv1alpha1.CwacScanSpec) { s.Sites = threeOrganisations() })
	three := newScan(t, "sharded", func(s *cwacv1alpha1.CwacScanSpec) {
		s.Sites = threeOrganisations()
		s.Shards = 3
	})
	single := waitPhase(t, one.Name, cwacv1alpha1.PhaseComplete, 4*time.Minute)
	merged := waitPhase(t, three.Name, cwacv1alpha1.PhaseComplete, 4*time.Minute)

	if s := merged.Status.Shards; s == nil || *s != (cwacv1alpha1.ShardStatus{Total: 3, Succeeded: 3, Merged: true}) {
		t.Errorf("status.shards = %+v: want 3 of 3 succeeded, merged", s)
	}
	a, b := *single.Status.Summary, *merged.Status.Summary
	if a.PagesScanned == 0 {
		t.Fatalf("the one-pod scan scanned nothing: %+v", single.Status)
	}
	a.DurationSeconds, b.DurationSeconds = 0, 0
	if !reflect.DeepEqual(a, b) {
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		t.Errorf("summaries differ:\none pod:  %s\n3 shards: %s", ja, jb)
	}

	// On the volume: each shard's own results, and one merged directory
	// that results.Summarize reads as the one pod's.
	scanDir := filepath.Join(resultsDir, scanspec.ScanDir(merged))
	for _, i := range []string{"0", "1", "2"} {
		if entries, err := os.ReadDir(filepath.Join(scanDir, "shards", i)); err != nil || len(entries) == 0 {
			t.Errorf("shard %s's directory: %v (%d entries)", i, err, len(entries))
		}
	}
	want, err := results.Summarize(filepath.Join(resultsDir, single.Status.ResultsPath), results.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := results.Summarize(filepath.Join(resultsDir, merged.Status.ResultsPath), results.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want.DurationSeconds, got.DurationSeconds = 0, 0
	if !reflect.DeepEqual(want, got) {
		ja, _ := json.Marshal(want)
		jb, _ := json.Marshal(got)
		t.Errorf("the merged directory summarises differently from the one pod's:\none pod:  %s\n3 shards: %s", ja, jb)
	}

	// The Job ran one pod per shard; the merge pod ran the runner alone,
	// hardened like a scan pod.
	job := &batchv1.Job{}
	if err := k8s.Get(ctx(), client.ObjectKey{Namespace: ns, Name: merged.Status.JobName}, job); err != nil {
		t.Fatal(err)
	}
	if n := len(scanPods(t, job.Name)); n != 3 {
		t.Errorf("%d shard pods, want 3", n)
	}
	pod := &corev1.Pod{}
	if err := k8s.Get(ctx(), client.ObjectKey{Namespace: ns, Name: scanspec.MergePodName(merged)}, pod); err != nil {
		t.Fatal(err)
	}
	c := pod.Spec.Containers[0]
	if pod.Status.Phase != corev1.PodSucceeded || *pod.Spec.AutomountServiceAccountToken || !*c.SecurityContext.ReadOnlyRootFilesystem ||
		!strings.Contains(strings.Join(c.Args, " "), "--merge") {
		t.Errorf("merge pod: phase %s, args %v", pod.Status.Phase, c.Args)
	}
}

// TestShardFailurePolicies fails one shard of three on the real Job
// controller (the stand-in exits 3 for the shard holding form.html): Partial
// merges the other two and completes naming the failed shard; Fail ends the
// scan with that shard's reason.
func TestShardFailurePolicies(t *testing.T) {
	need(t)
	failing := func(policy cwacv1alpha1.ShardFailurePolicy) func(*cwacv1alpha1.CwacScanSpec) {
		return func(s *cwacv1alpha1.CwacScanSpec) {
			s.Sites = threeOrganisations()
			s.Shards = 3
			s.ShardFailurePolicy = policy
			s.AuditName = "shards-standin-exitif-form"
		}
	}
	partial := newScan(t, "partial", failing(cwacv1alpha1.ShardFailurePolicyPartial))
	fail := newScan(t, "failfast", failing(cwacv1alpha1.ShardFailurePolicyFail))

	done := waitPhase(t, partial.Name, cwacv1alpha1.PhaseComplete, 4*time.Minute)
	if s := done.Status.Shards; s == nil || s.Succeeded != 2 || s.Failed != 1 || s.FailedIndexes != "2" || !s.Merged {
		t.Errorf("status.shards = %+v: want shard 2 failed, 2 merged", s)
	}
	c := meta.FindStatusCondition(done.Status.Conditions, cwacv1alpha1.ConditionShardsFailed)
	if c == nil || c.Status != metav1.ConditionTrue || !strings.Contains(c.Message, "shard 2 ("+siteURL+"form.html)") {
		t.Errorf("ShardsFailed = %+v: want True naming shard 2 and form.html", c)
	}
	if s := done.Status.Summary; s == nil || s.PagesScanned != 8 || !slices.Contains(s.UnscannedBaseURLs, siteURL+"form.html") {
		t.Errorf("summary = %+v: want the two good shards' 8 pages, form.html unscanned", s)
	}

	failed := waitPhase(t, fail.Name, cwacv1alpha1.PhaseFailed, 4*time.Minute)
	if failedReason(failed) != cwacv1alpha1.ReasonCWACExitedNonZero || !strings.HasPrefix(failed.Status.Message, "shard 2: CWAC exited with code 3") {
		t.Errorf("Failed %s: %q; want CWACExitedNonZero from shard 2", failedReason(failed), failed.Status.Message)
	}
	if err := k8s.Get(ctx(), client.ObjectKey{Namespace: ns, Name: scanspec.MergePodName(failed)}, &corev1.Pod{}); err == nil {
		t.Error("a merge pod for a scan whose policy is Fail and whose shard failed")
	}
}
