//go:build integration

package cli

import (
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// TestShardedScanThroughCLI: `scan --shards` creates a sharded scan the API
// server accepts, `--wait` shows its shards done, `get` its SHARDS column;
// a refused --shards creates nothing.
func TestShardedScanThroughCLI(t *testing.T) {
	c := envtestCluster(t)
	ctx := t.Context()
	sites := []string{"--site", "https://a.example/,A,S", "--site", "https://a2.example/,A,S", "--site", "https://b.example/,B,S"}

	r := runCLI(ctx, &Options{}, c.adminKubeconfig, append([]string{"scan", "-n", "team-a", "--name", "too-many", "--shards", "4"}, sites...)...)
	if r.code != ExitError || !strings.Contains(r.stderr, "--shards 4: more shards than the 3 sites") {
		t.Fatalf("scan --shards 4 of 3 sites: %+v", r)
	}
	if err := c.admin.Get(ctx, client.ObjectKey{Namespace: "team-a", Name: "too-many"}, &cwacv1alpha1.CwacScan{}); !apierrors.IsNotFound(err) {
		t.Errorf("a refused scan was created: %v", err)
	}

	done := make(chan result, 1)
	stderr := &syncBuffer{}
	go func() {
		args := append([]string{"scan", "-n", "team-a", "--name", "sharded", "--shards", "3", "--shard-failure-policy", "Partial", "--wait", "-o", "name"}, sites...)
		done <- runCLIWith(t.Context(), &Options{}, stderr, c.adminKubeconfig, args...)
	}()
	// As in TestScanWait: the status changes once the command has read the
	// new scan, so that it sees the Running state too.
	stderr.waitFor(t, "team-a/sharded: Pending\n")
	got := &cwacv1alpha1.CwacScan{}
	if err := c.admin.Get(ctx, client.ObjectKey{Namespace: "team-a", Name: "sharded"}, got); err != nil {
		t.Fatal(err)
	}
	if got.Spec.Shards != 3 || got.Spec.ShardFailurePolicy != cwacv1alpha1.ShardFailurePolicyPartial {
		t.Errorf("created spec shards %d policy %q", got.Spec.Shards, got.Spec.ShardFailurePolicy)
	}
	c.setStatus(t, "team-a", "sharded", func(st *cwacv1alpha1.CwacScanStatus) {
		st.Phase = cwacv1alpha1.PhaseRunning
		st.Shards = &cwacv1alpha1.ShardStatus{Total: 3, Running: 2, Succeeded: 1}
	})
	c.setStatus(t, "team-a", "sharded", func(st *cwacv1alpha1.CwacScanStatus) {
		st.Phase = cwacv1alpha1.PhaseComplete
		st.Shards = &cwacv1alpha1.ShardStatus{Total: 3, Succeeded: 3, Merged: true}
		st.Summary = &cwacv1alpha1.ScanSummary{TotalIssues: 5, PagesScanned: 12, UrlsScanned: 3}
	})
	r = <-done
	if r.code != ExitOK {
		t.Fatalf("scan --wait: %+v", r)
	}
	for _, want := range []string{
		"team-a/sharded: Running, shards 1/3 done, 2 running, 0 failed\n",
		"team-a/sharded: Complete, shards 3/3 done, 0 running, 0 failed, merged, 12 pages, 5 issues\n",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("progress lacks %q:\n%s", want, r.stderr)
		}
	}
	r = runCLI(ctx, &Options{}, c.adminKubeconfig, "get", "sharded", "-n", "team-a")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != ExitOK || len(lines) != 2 || strings.Fields(lines[0])[2] != "SHARDS" || strings.Fields(lines[1])[2] != "3/3" {
		t.Errorf("get of a sharded scan: %+v", r)
	}
}
