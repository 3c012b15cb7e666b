//go:build integration

package runner

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/minio/minio-go/v7"

	"github.com/a11y-dev/cwac-operator/internal/backoff"
	"github.com/a11y-dev/cwac-operator/internal/objectstore"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
	"github.com/a11y-dev/cwac-operator/internal/testutil/freeport"
	"github.com/a11y-dev/cwac-operator/internal/testutil/seaweedfs"
	waitfor "github.com/a11y-dev/cwac-operator/internal/testutil/wait"
)

const testBucket = "cwac-results"

// bucketConfig is the results bucket of srv, signed in as a.
func bucketConfig(t *testing.T, srv *seaweedfs.Server, a seaweedfs.Account) objectstore.Config {
	t.Helper()
	return srv.Config(t, a, testBucket, "results")
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

// treeFiles reads every regular file under root, by its slash-separated
// name under root.
func treeFiles(t *testing.T, root string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	must(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		data, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = data
		return err
	}))
	return out
}

// sameTree fails unless a and b hold the same files with the same bytes.
func sameTree(t *testing.T, a, b string) {
	t.Helper()
	fa, fb := treeFiles(t, a), treeFiles(t, b)
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

// grantFor signs a grant to rel (and its baseline) with the bucket's credentials.
func grantFor(t *testing.T, cfg objectstore.Config, rel, baseline string) string {
	t.Helper()
	st, err := objectstore.Open(cfg)
	must(t, err)
	g, err := st.Grant(context.Background(), rel, baseline, time.Hour)
	must(t, err)
	return writeGrantFile(t, g)
}

// smallGrant is a grant whose policy takes files of at most 64 bytes: the
// pod's check passes, its results do not fit (the service answers as it
// does a file larger than a bucket or a quota allows).
func smallGrant(t *testing.T, srv *seaweedfs.Server, rel string) string {
	t.Helper()
	p := minio.NewPostPolicy()
	expires := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
	prefix := "results/" + rel + "/"
	must(t, p.SetBucket(testBucket))
	must(t, p.SetKeyStartsWith(prefix))
	must(t, p.SetExpires(expires))
	must(t, p.SetContentLengthRange(0, 64))
	must(t, p.SetSuccessStatusAction("201"))
	u, fields, err := srv.Client(t, srv.Admin).PresignedPostPolicy(context.Background(), p)
	must(t, err)
	return writeGrantFile(t, &objectstore.Grant{Upload: objectstore.GrantForm{URL: u.String(), Fields: fields}, KeyPrefix: prefix, Expires: expires})
}

// TestRunWithBucket: with a results bucket, the scan pod's results (a
// scan's, then one compared with it as its baseline, then a sharded scan's
// shards and merge) end up in the bucket as they are in the pod, stored
// with a grant by the pods that run CWAC and with credentials by the merge
// pod alone; a bucket that cannot be used fails the scan before CWAC runs,
// or, when it takes no results, after, with the cause — never complete.
func TestRunWithBucket(t *testing.T) {
	srv := seaweedfs.Start(t, false)
	srv.MakeBucket(t, testBucket)
	old := uploadRetry
	uploadRetry = backoff.Doubling{First: 50 * time.Millisecond, Max: 50 * time.Millisecond, Attempts: 2}
	t.Cleanup(func() { uploadRetry = old })
	admin := bucketConfig(t, srv, srv.Admin)
	site := testSite(t)
	files := scanFiles{overrides: allPlugins, urls: "organisation,url,sector\nOrg," + site + ",Local\n", defaults: standinDefaults(t, "")}

	var first scanpod.Report
	t.Run("scan", func(t *testing.T) {
		grant := grantFor(t, admin, "ns/week-1", "")
		code, msg, cfg, out := runScanWith(context.Background(), t, files, func(c *Config) { c.ResultsGrant = grant })
		if code != 0 || msg.Outcome != scanpod.OutcomeComplete {
			t.Fatalf("code %d, %s: %s\n%s", code, msg.Outcome, msg.Message, out)
		}
		tree := downloadTree(t, admin, "ns/week-1")
		if _, err := os.Stat(filepath.Join(tree, checkFile)); err != nil {
			t.Errorf("the pod's first upload, before CWAC: %v", err)
		}
		must(t, os.Remove(filepath.Join(tree, checkFile)))
		sameTree(t, cfg.ResultsDir, tree)
		first = msg
	})
	t.Run("baseline from the bucket", func(t *testing.T) {
		if first.ResultsDir == "" {
			t.Skip("the first scan failed")
		}
		grant := grantFor(t, admin, "ns/week-2", "ns/week-1/"+first.ResultsDir)
		code, msg, cfg, out := runScanWith(context.Background(), t, files, func(c *Config) {
			c.ResultsGrant, c.BaselineDir, c.BaselineName = grant, filepath.Join(t.TempDir(), "baseline"), "week-1"
		})
		if code != 0 || msg.Outcome != scanpod.OutcomeComplete || msg.Baseline != nil {
			t.Fatalf("code %d, %s: %s (baseline %+v)\n%s", code, msg.Outcome, msg.Message, msg.Baseline, out)
		}
		base := downloadTree(t, admin, "ns/week-1/"+first.ResultsDir)
		must(t, os.RemoveAll(filepath.Join(base, "screenshots"))) // not read by the comparison, not fetched
		sameTree(t, base, cfg.BaselineDir)
		got := downloadTree(t, admin, "ns/week-2")
		d, err := os.ReadFile(filepath.Join(got, msg.ResultsDir, results.DiffFile))
		if err != nil || !bytes.Contains(d, []byte(`"baseline":"week-1"`)) {
			t.Errorf("the comparison in the bucket: %v\n%s", err, d)
		}
	})
	t.Run("progress reaches the bucket while CWAC runs", func(t *testing.T) { progressWhileRunning(t, admin, site) })
	before := func(name string, grant func(t *testing.T) string, want objectstore.Cause) {
		t.Run(name+": fails before CWAC", func(t *testing.T) {
			g := grant(t)
			code, msg, cfg, out := runScanWith(context.Background(), t, files, func(c *Config) { c.ResultsGrant = g })
			if code != scanpod.ExitRunnerError || msg.Outcome != scanpod.OutcomeResultsNotStored || !strings.Contains(msg.Message, string(want)) {
				t.Fatalf("code %d, %s: %s\n%s", code, msg.Outcome, msg.Message, out)
			}
			if _, err := os.Stat(cfg.WorkDir); err == nil {
				t.Error("CWAC's work tree was made: the scan ran against a bucket that could not take its results")
			}
		})
	}
	before("unreachable", func(t *testing.T) string {
		st, err := objectstore.Open(admin)
		must(t, err)
		g, err := st.Grant(context.Background(), "ns/never", "", time.Hour)
		must(t, err)
		g.Upload.URL = "http://" + freeport.Refused(t) + "/" + testBucket
		return writeGrantFile(t, g)
	}, objectstore.CauseUnreachable)
	before("signed by a reader", func(t *testing.T) string {
		return grantFor(t, bucketConfig(t, srv, srv.Reader), "ns/read-only", "")
	}, objectstore.CauseDenied)
	before("signed with a wrong secret", func(t *testing.T) string {
		return grantFor(t, bucketConfig(t, srv, seaweedfs.Account{AccessKey: srv.Admin.AccessKey, SecretKey: "wrong"}), "ns/x", "")
	}, objectstore.CauseCredentials)
	t.Run("a full bucket: fails before CWAC, saying it may be full", func(t *testing.T) {
		srv.MakeBucket(t, "full")
		srv.Fill(t, "full")
		g := grantFor(t, srv.Config(t, srv.Admin, "full", "results"), "ns/full", "")
		code, msg, cfg, out := runScanWith(context.Background(), t, files, func(c *Config) { c.ResultsGrant = g })
		if code != scanpod.ExitRunnerError || msg.Outcome != scanpod.OutcomeResultsNotStored ||
			!strings.Contains(msg.Message, string(objectstore.CauseDenied)) || !strings.Contains(msg.Message, "over its quota") {
			t.Fatalf("code %d, %s: %s\n%s", code, msg.Outcome, msg.Message, out)
		}
		if _, err := os.Stat(cfg.WorkDir); err == nil {
			t.Error("CWAC's work tree was made: the scan ran against a bucket that could not take its results")
		}
	})
	t.Run("a file larger than the bucket takes: said after the scan", func(t *testing.T) {
		g := smallGrant(t, srv, "ns/full")
		code, msg, cfg, out := runScanWith(context.Background(), t, files, func(c *Config) { c.ResultsGrant = g })
		if code != scanpod.ExitRunnerError || msg.Outcome != scanpod.OutcomeResultsNotStored || msg.Summary != nil ||
			!strings.Contains(msg.Message, string(objectstore.CauseFull)) || !strings.Contains(msg.Message, "the run: scanned 4 pages") {
			t.Fatalf("code %d, %s: %s\n%s", code, msg.Outcome, msg.Message, out)
		}
		if _, err := os.Stat(filepath.Join(cfg.ResultsDir, msg.ResultsDir, results.SummaryFile)); err != nil {
			t.Errorf("the pod's results are gone: %v", err)
		}
	})
	t.Run("credentials in a pod that runs CWAC: refused", func(t *testing.T) {
		code, msg, _, _ := runScanWith(context.Background(), t, files, func(c *Config) { c.Bucket, c.ResultsKey = admin, "ns/x" })
		if code != scanpod.ExitRunnerError || msg.Outcome != scanpod.OutcomeRunnerError || !strings.Contains(msg.Message, "for the merge pod") {
			t.Fatalf("code %d, %s: %s", code, msg.Outcome, msg.Message)
		}
	})
	t.Run("a grant that is not one: refused", func(t *testing.T) {
		bad := filepath.Join(t.TempDir(), "grant.json")
		must(t, os.WriteFile(bad, []byte(`{"upload":{"url":"http://x","fields":{"a":"b"}},"keyPrefix":"../escape/"}`), 0o400))
		code, msg, _, _ := runScanWith(context.Background(), t, files, func(c *Config) { c.ResultsGrant = bad })
		if code != scanpod.ExitRunnerError || !strings.Contains(msg.Message, "is not a directory's") {
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
	grant := grantFor(t, bucket, "ns/sharded", "")
	podDir := func(pod string) func(*Config) {
		return func(c *Config) {
			c.ResultsGrant = grant
			c.ResultsDir = filepath.Join(inBucket.tmp, "pod-"+pod, "results")
		}
	}
	for i := range 3 {
		code, msg, out := inBucket.run(t, "shard-"+strconv.Itoa(i), strconv.Itoa(i), podDir("shard-"+strconv.Itoa(i)))
		if code != 0 || msg.Summary == nil {
			t.Fatalf("shard %d: %d %s: %s\n%s", i, code, msg.Outcome, msg.Message, out)
		}
	}
	code, got, out := inBucket.run(t, "merge", "unset", func(c *Config) {
		c.Bucket, c.ResultsKey, c.Merge = bucket, "ns/sharded", true
		c.ResultsDir = filepath.Join(inBucket.tmp, "pod-merge", "results")
	})
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

// progressWhileRunning: a scan pod sends CWAC's progress.csv to the bucket
// as CWAC writes it, so that a running scan's pages can be read where its
// results will be; the last one is the run's own.
func progressWhileRunning(t *testing.T, admin objectstore.Config, site string) {
	old := progressEvery
	progressEvery = 50 * time.Millisecond
	t.Cleanup(func() { progressEvery = old })
	// Two sites, two seconds each: the first is done while the second runs.
	files := scanFiles{
		overrides: strings.Replace(allPlugins, `"runner-test"`, `"runner-test-standin-pace-2"`, 1),
		urls:      "organisation,url,sector\nOrg," + site + ",Local\nOrg 2," + site + "index.html,Local\n",
		defaults:  standinDefaults(t, ""),
	}
	grant := grantFor(t, admin, "ns/progress", "")
	type ran struct {
		code int
		msg  scanpod.Report
		out  string
	}
	done := make(chan ran, 1)
	go func() {
		code, msg, _, out := runScanWith(context.Background(), t, files, func(c *Config) { c.ResultsGrant = grant })
		done <- ran{code, msg, out}
	}()
	var midway *results.Progress
	waitfor.For(t, "CWAC's progress in the bucket while it runs", time.Minute, func() (bool, string) {
		tree := downloadTree(t, admin, "ns/progress")
		if found, _ := fs.Glob(os.DirFS(tree), path.Join("*", results.ProgressFile)); len(found) > 0 {
			// The first copy sent may be from before any page was done
			// (or CWAC's file half written): wait for one midway.
			p := results.ProgressOf(os.DirFS(filepath.Join(tree, path.Dir(found[0]))))
			if p.PagesDone > 0 && p.PagesDone < p.PagesEstimated {
				midway = &p
				return true, ""
			}
		}
		select {
		case r := <-done:
			done <- r
			return true, "the run ended first"
		default:
			return false, "no progress.csv with some pages of more yet"
		}
	})
	r := <-done
	if r.code != 0 || r.msg.Outcome != scanpod.OutcomeComplete {
		t.Fatalf("code %d, %s: %s\n%s", r.code, r.msg.Outcome, r.msg.Message, r.out)
	}
	if midway == nil || midway.PagesDone == 0 || midway.PagesDone >= midway.PagesEstimated {
		t.Fatalf("progress in the bucket while CWAC ran: %+v, want some pages of more", midway)
	}
	final := downloadTree(t, admin, "ns/progress/"+r.msg.ResultsDir)
	if p := results.ProgressOf(os.DirFS(final)); p.PagesDone != p.PagesEstimated || p.PagesDone <= midway.PagesDone {
		t.Errorf("the stored progress after the run: %+v (midway %+v)", p, midway)
	}
}

// TestSendProgress: each progress file is sent when it has changed since
// it was last sent, and only then; one that cannot be sent is logged, and
// sent at the next turn.
func TestSendProgress(t *testing.T) {
	srv := seaweedfs.Start(t, false)
	srv.MakeBucket(t, testBucket)
	st, err := objectstore.Open(bucketConfig(t, srv, srv.Admin))
	must(t, err)
	g, err := st.Grant(context.Background(), "ns/relay", "", time.Hour)
	must(t, err)
	broken := *g
	broken.Upload.URL = "http://" + freeport.Refused(t) + "/" + testBucket

	dir := t.TempDir()
	own := filepath.Join(dir, "2026-11-22_01-00-00_life", results.ProgressFile)
	shard := filepath.Join(dir, scanpod.ShardDir(1), "2026-11-22_01-00-00_life", results.ProgressFile)
	for _, f := range []string{own, shard} {
		must(t, os.MkdirAll(filepath.Dir(f), 0o755))
		must(t, os.WriteFile(f, []byte("first"), 0o644))
	}
	must(t, os.WriteFile(filepath.Join(dir, "2026-11-22_01-00-00_life", "axe_core_audit.csv"), []byte("not progress"), 0o644))
	stored := func() map[string]string {
		got := map[string]string{}
		for name, data := range treeFiles(t, downloadTree(t, bucketConfig(t, srv, srv.Admin), "ns/relay")) {
			got[name] = string(data)
		}
		return got
	}
	sent := map[string]time.Time{}
	log, logged := captureLog()
	sendProgress(context.Background(), g, dir, sent, log)
	want := map[string]string{
		"2026-11-22_01-00-00_life/progress.csv":                        "first",
		scanpod.ShardDir(1) + "/2026-11-22_01-00-00_life/progress.csv": "first",
	}
	if diff := cmp.Diff(want, stored()); diff != "" || logged.Len() != 0 {
		t.Fatalf("first send (-want +bucket):\n%s\nlog: %s", diff, logged)
	}
	// Unchanged: not sent again (a grant that cannot send says nothing).
	sendProgress(context.Background(), &broken, dir, sent, log)
	if logged.Len() != 0 {
		t.Errorf("unchanged files were sent again: %s", logged)
	}
	// Changed, and the send fails: logged, and sent at the next turn.
	must(t, os.WriteFile(own, []byte("second"), 0o644))
	must(t, os.Chtimes(own, time.Now().Add(time.Second), time.Now().Add(time.Second)))
	sendProgress(context.Background(), &broken, dir, sent, log)
	if !strings.Contains(logged.String(), "sending CWAC's progress to the bucket") || strings.Count(logged.String(), "level=WARN") != 1 {
		t.Errorf("a failed send of the one changed file: log %s", logged)
	}
	sendProgress(context.Background(), g, dir, sent, log)
	want["2026-11-22_01-00-00_life/progress.csv"] = "second"
	if diff := cmp.Diff(want, stored()); diff != "" {
		t.Errorf("after the failed send (-want +bucket):\n%s", diff)
	}
}
