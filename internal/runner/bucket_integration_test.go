//go:build integration

package runner

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/a11y-dev/cwac-operator/internal/backoff"
	"github.com/a11y-dev/cwac-operator/internal/objectstore"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
	"github.com/a11y-dev/cwac-operator/internal/testutil/freeport"
	"github.com/a11y-dev/cwac-operator/internal/testutil/seaweedfs"
)

const testBucket = "cwac-results"

// bucketConfig is the results bucket of srv, signed in as a.
func bucketConfig(t *testing.T, srv *seaweedfs.Server, a seaweedfs.Account) objectstore.Config {
	t.Helper()
	creds := t.TempDir()
	must(t, os.WriteFile(filepath.Join(creds, objectstore.AccessKeyFile), []byte(a.AccessKey), 0o600))
	must(t, os.WriteFile(filepath.Join(creds, objectstore.SecretKeyFile), []byte(a.SecretKey), 0o600))
	return objectstore.Config{Endpoint: srv.Endpoint, Bucket: testBucket, Prefix: "results", PathStyle: true, CredentialsDir: creds}
}

// downloadTree fetches rel from the bucket into a new directory.
func downloadTree(t *testing.T, cfg objectstore.Config, rel string) string {
	t.Helper()
	st, err := objectstore.Open(cfg)
	must(t, err)
	dir := t.TempDir()
	_, err = st.Download(context.Background(), rel, dir)
	must(t, err)
	return dir
}

// sameTree fails unless a and b hold the same files with the same bytes.
func sameTree(t *testing.T, a, b string) {
	t.Helper()
	files := func(root string) map[string][]byte {
		out := map[string][]byte{}
		must(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			data, err := os.ReadFile(p)
			out[rel] = data
			return err
		}))
		return out
	}
	fa, fb := files(a), files(b)
	if len(fa) == 0 {
		t.Fatalf("%s holds no files: the comparison proves nothing", a)
	}
	for name, data := range fa {
		if got, ok := fb[name]; !ok || !bytes.Equal(got, data) {
			t.Errorf("%s: in the bucket %v with %d bytes, want %d", name, ok, len(got), len(data))
		}
	}
	for name := range fb {
		if _, ok := fa[name]; !ok {
			t.Errorf("%s is in the bucket, not in the pod", name)
		}
	}
}

// TestRunWithBucket: with a results bucket, the scan pod's results (a
// scan's, then one compared with it as its baseline, then a sharded scan's
// shards and merge) end up in the bucket as they are in the pod; a bucket
// that cannot be used fails the scan before CWAC runs, or, when it takes
// no writes, after, with the cause — never complete.
func TestRunWithBucket(t *testing.T) {
	srv := seaweedfs.Start(t, false)
	srv.MakeBucket(t, testBucket)
	old := uploadRetry
	uploadRetry = backoff.Doubling{First: 50 * time.Millisecond, Max: 50 * time.Millisecond, Attempts: 2}
	t.Cleanup(func() { uploadRetry = old })
	admin := bucketConfig(t, srv, srv.Admin)
	site := testSite(t)
	urls := "organisation,url,sector\nOrg," + site + ",Local\n"

	// A scan, then a scan with it as its baseline.
	var first scanpod.Report
	t.Run("scan", func(t *testing.T) {
		code, msg, cfg, out := runScanWith(context.Background(), t, scanFiles{overrides: allPlugins, urls: urls, defaults: standinDefaults(t, "")}, func(c *Config) {
			c.Bucket, c.ResultsKey = admin, "ns/week-1"
		})
		if code != 0 || msg.Outcome != scanpod.OutcomeComplete {
			t.Fatalf("code %d, %s: %s\n%s", code, msg.Outcome, msg.Message, out)
		}
		sameTree(t, cfg.ResultsDir, downloadTree(t, admin, "ns/week-1"))
		first = msg
	})
	t.Run("baseline from the bucket", func(t *testing.T) {
		if first.ResultsDir == "" {
			t.Skip("the first scan failed")
		}
		code, msg, cfg, out := runScanWith(context.Background(), t, scanFiles{overrides: allPlugins, urls: urls, defaults: standinDefaults(t, "")}, func(c *Config) {
			c.Bucket, c.ResultsKey = admin, "ns/week-2"
			c.BaselineKey, c.BaselineDir, c.BaselineName = "ns/week-1/"+first.ResultsDir, filepath.Join(t.TempDir(), "baseline"), "week-1"
		})
		if code != 0 || msg.Outcome != scanpod.OutcomeComplete || msg.Baseline != nil {
			t.Fatalf("code %d, %s: %s (baseline %+v)\n%s", code, msg.Outcome, msg.Message, msg.Baseline, out)
		}
		sameTree(t, downloadTree(t, admin, "ns/week-1/"+first.ResultsDir), cfg.BaselineDir)
		got := downloadTree(t, admin, "ns/week-2")
		sameTree(t, cfg.ResultsDir, got)
		d, err := os.ReadFile(filepath.Join(got, msg.ResultsDir, results.DiffFile))
		if err != nil || !bytes.Contains(d, []byte(`"baseline":"week-1"`)) {
			t.Errorf("the comparison in the bucket: %v\n%s", err, d)
		}
	})
	t.Run("unreachable: fails before CWAC", func(t *testing.T) {
		gone := admin
		gone.Endpoint = "http://" + freeport.Refused(t)
		code, msg, cfg, out := runScanWith(context.Background(), t, scanFiles{overrides: allPlugins, urls: urls, defaults: standinDefaults(t, "")}, func(c *Config) {
			c.Bucket, c.ResultsKey = gone, "ns/never"
		})
		if code != scanpod.ExitRunnerError || msg.Outcome != scanpod.OutcomeResultsNotStored || !strings.Contains(msg.Message, string(objectstore.CauseUnreachable)) {
			t.Fatalf("code %d, %s: %s\n%s", code, msg.Outcome, msg.Message, out)
		}
		if _, err := os.Stat(cfg.WorkDir); err == nil {
			t.Error("CWAC's work tree was made: the scan ran against a bucket that could not take its results")
		}
	})
	t.Run("read-only: said after the scan", func(t *testing.T) {
		code, msg, cfg, out := runScanWith(context.Background(), t, scanFiles{overrides: allPlugins, urls: urls, defaults: standinDefaults(t, "")}, func(c *Config) {
			c.Bucket, c.ResultsKey = bucketConfig(t, srv, srv.Reader), "ns/read-only"
		})
		if code != scanpod.ExitRunnerError || msg.Outcome != scanpod.OutcomeResultsNotStored || msg.Summary != nil ||
			!strings.Contains(msg.Message, string(objectstore.CauseDenied)) || !strings.Contains(msg.Message, "the run: scanned 4 pages") {
			t.Fatalf("code %d, %s: %s\n%s", code, msg.Outcome, msg.Message, out)
		}
		if _, err := os.Stat(filepath.Join(cfg.ResultsDir, msg.ResultsDir, results.SummaryFile)); err != nil {
			t.Errorf("the pod's results are gone: %v", err)
		}
	})
	t.Run("wrong secret: before CWAC", func(t *testing.T) {
		code, msg, _, out := runScanWith(context.Background(), t, scanFiles{overrides: allPlugins, urls: urls, defaults: standinDefaults(t, "")}, func(c *Config) {
			c.Bucket, c.ResultsKey = bucketConfig(t, srv, seaweedfs.Account{AccessKey: srv.Admin.AccessKey, SecretKey: "wrong"}), "ns/x"
		})
		if code != scanpod.ExitRunnerError || !strings.Contains(msg.Message, string(objectstore.CauseCredentials)) {
			t.Fatalf("code %d, %s: %s\n%s", code, msg.Outcome, msg.Message, out)
		}
	})
	t.Run("no results key", func(t *testing.T) {
		code, msg, _, _ := runScanWith(context.Background(), t, scanFiles{overrides: allPlugins, urls: urls, defaults: standinDefaults(t, "")}, func(c *Config) {
			c.Bucket = admin
		})
		if code != scanpod.ExitRunnerError || !strings.Contains(msg.Message, "--results-key is not set") {
			t.Fatalf("code %d, %s: %s", code, msg.Outcome, msg.Message)
		}
	})
	t.Run("shards and merge through the bucket", func(t *testing.T) { shardsThroughBucket(t, admin) })
}

// shardsThroughBucket: three shard pods and the merge pod, each with a
// directory of its own (no shared volume), give the summary the same
// sharded scan gives on a shared volume.
func shardsThroughBucket(t *testing.T, bucket objectstore.Config) {
	sites := shardSites(t)
	onVolume := newShardedScan(t, sites, 3)
	onVolume.scanShards(t)
	code, want, out := onVolume.run(t, "merge", "unset", func(c *Config) { c.Merge = true })
	if code != 0 {
		t.Fatalf("merge on a volume: %d %s\n%s", code, want.Message, out)
	}
	inBucket := newShardedScan(t, sites, 3)
	podDir := func(pod string) func(*Config) {
		return func(c *Config) {
			c.Bucket, c.ResultsKey = bucket, "ns/sharded"
			c.ResultsDir = filepath.Join(inBucket.tmp, "pod-"+pod, "results")
		}
	}
	for i := range 3 {
		code, msg, out := inBucket.run(t, "shard-"+strconv.Itoa(i), strconv.Itoa(i), podDir("shard-"+strconv.Itoa(i)))
		if code != 0 || msg.Summary == nil {
			t.Fatalf("shard %d: %d %s: %s\n%s", i, code, msg.Outcome, msg.Message, out)
		}
	}
	mergeCfg := podDir("merge")
	code, got, out := inBucket.run(t, "merge", "unset", func(c *Config) { mergeCfg(c); c.Merge = true })
	if code != 0 || got.Outcome != want.Outcome {
		t.Fatalf("merge from the bucket: %d %s: %s\n%s", code, got.Outcome, got.Message, out)
	}
	tree := downloadTree(t, bucket, "ns/sharded")
	a := readSummary(t, filepath.Join(onVolume.base.ResultsDir, want.ResultsDir))
	b := readSummary(t, filepath.Join(tree, got.ResultsDir))
	for _, s := range []*results.Summary{a, b} {
		s.DurationSeconds = 0
		slices.SortFunc(s.BaseURLs, func(x, y results.BaseURLPages) int { return strings.Compare(x.BaseURL, y.BaseURL) })
		slices.Sort(s.UnscannedBaseURLs)
	}
	if d := cmp.Diff(a, b); d != "" {
		t.Errorf("the merge from the bucket differs from the one on a volume (-volume +bucket):\n%s", d)
	}
	entries, err := os.ReadDir(filepath.Join(tree, scanpod.ShardsDir))
	if err != nil || len(entries) != 3 {
		t.Errorf("the bucket's shards: %v (%v), want 3", entries, err)
	}
}
