//go:build integration

package runner

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/a11y-dev/cwac-operator/internal/cwac"
	"github.com/a11y-dev/cwac-operator/internal/cwacconfig"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
	"github.com/a11y-dev/cwac-operator/internal/shard"
)

// shardedScan is one scan's ConfigMap and directory, shared by its pods.
type shardedScan struct {
	tmp   string
	base  Config // the flags every pod of the scan gets
	sites []cwacconfig.Site
	ctx   context.Context // the pods' (nil: context.Background())
}

// newShardedScan writes the scan's ConfigMap for sites and lays out the
// stand-in CWAC; its pods all use one results directory.
func newShardedScan(t *testing.T, sites []cwacconfig.Site, shards int) *shardedScan {
	t.Helper()
	tmp := t.TempDir()
	s := &shardedScan{tmp: tmp, sites: sites, base: Config{RunnerFlags: scanpod.RunnerFlags{
		CWACDir:      standinCWAC(t, withConfig),
		ConfigMapDir: filepath.Join(tmp, "scan"),
		ResultsDir:   filepath.Join(tmp, "volume", "ns", "scan-1234abcd"),
		Python:       "python3",
		Shards:       shards,
		Egress:       loopbackOpen,
	}}}
	urls, err := cwacconfig.WriteBaseURLCSV(sites)
	must(t, err)
	must(t, os.MkdirAll(s.base.ConfigMapDir, 0o755))
	must(t, os.WriteFile(filepath.Join(s.base.ConfigMapDir, scanpod.OverridesFile), []byte(allPlugins), 0o644))
	must(t, os.WriteFile(filepath.Join(s.base.ConfigMapDir, scanpod.URLsFile), urls, 0o644))
	return s
}

// run runs one pod of the scan (named for its work dir and termination
// log) with cfg's changes to the scan's flags, and JOB_COMPLETION_INDEX set
// to index unless it is "unset".
func (s *shardedScan) run(t *testing.T, pod string, index string, change func(*Config)) (int, scanpod.Report, string) {
	t.Helper()
	t.Setenv(scanpod.ShardIndexEnv, index)
	if index == "unset" {
		must(t, os.Unsetenv(scanpod.ShardIndexEnv))
	}
	cfg := s.base
	cfg.WorkDir = filepath.Join(s.tmp, "work-"+pod)
	cfg.TerminationLog = filepath.Join(s.tmp, "termination-log-"+pod)
	if change != nil {
		change(&cfg)
	}
	var out syncBuffer // CWAC's stdout and stderr are copied side by side
	cfg.Stdout, cfg.Stderr = &out, &out
	cfg.Log = slog.New(slog.NewTextHandler(&out, nil))
	ctx := s.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	code := Run(ctx, cfg)
	raw, err := os.ReadFile(cfg.TerminationLog)
	must(t, err)
	msg, ok := scanpod.Decode(string(raw))
	if !ok {
		t.Fatalf("termination message is not a report: %s", raw)
	}
	return code, msg, out.String()
}

// scanShards runs every shard's pod and checks what each reports.
func (s *shardedScan) scanShards(t *testing.T) [][]cwacconfig.Site {
	t.Helper()
	split := shard.Split(s.sites, s.base.Shards)
	for i, part := range split {
		code, msg, out := s.run(t, "shard-"+strconv.Itoa(i), strconv.Itoa(i), nil)
		if code != 0 || msg.Summary == nil {
			t.Fatalf("shard %d: code %d, %s: %s\n%s", i, code, msg.Outcome, msg.Message, out)
		}
		if prefix := "shard " + strconv.Itoa(i) + ": "; !strings.HasPrefix(msg.Message, prefix) {
			t.Errorf("shard %d's message %q does not start %q", i, msg.Message, prefix)
		}
		// Its results, relative to its own directory, hold its sites only.
		if msg.ResultsDir == "" {
			t.Fatalf("shard %d reports no results directory", i)
		}
		var got, want []string
		for _, b := range readSummary(t, filepath.Join(s.base.ResultsDir, scanpod.ShardDir(i), msg.ResultsDir)).BaseURLs {
			got = append(got, b.BaseURL)
		}
		for _, site := range part {
			want = append(want, site.URL)
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("shard %d scanned %v, want its sites %v", i, got, want)
		}
	}
	return split
}

// readSummary reads the summary.json a pod wrote.
func readSummary(t *testing.T, dir string) *results.Summary {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, results.SummaryFile))
	must(t, err)
	var s results.Summary
	must(t, json.Unmarshal(data, &s))
	return &s
}

// shardSites are sites of four organisations, one of them (A) larger than
// a share of 3 shards, and one unreachable.
func shardSites(t *testing.T) []cwacconfig.Site {
	return []cwacconfig.Site{
		{Organisation: "Org A", URL: testSite(t), Sector: "Central"},
		{Organisation: "Org B", URL: testSite(t), Sector: "Local"},
		{Organisation: "Org A", URL: testSite(t), Sector: "Central"},
		{Organisation: "Org C", URL: closedURL(t), Sector: "Local"},
		{Organisation: "Org A", URL: testSite(t), Sector: "Central"},
		{Organisation: "Org D, \"the\" office", URL: testSite(t), Sector: "Crown"},
	}
}

// TestShardsThenMergeEqualOneRun: a scan's sites scanned as 3 shards and
// merged give the summary.json, outcome and message of one pod scanning
// them all; the merge runs without CWAC.
func TestShardsThenMergeEqualOneRun(t *testing.T) {
	sites := shardSites(t)

	one := newShardedScan(t, sites, 0)
	code, whole, out := one.run(t, "whole", "unset", nil)
	if code != 0 || whole.Outcome != scanpod.OutcomePartial {
		t.Fatalf("one pod: code %d, %s: %s\n%s", code, whole.Outcome, whole.Message, out)
	}
	want := readSummary(t, filepath.Join(one.base.ResultsDir, whole.ResultsDir))

	sharded := newShardedScan(t, sites, 3)
	split := sharded.scanShards(t)
	if len(split) != 3 {
		t.Fatalf("%d shards, want 3", len(split))
	}
	var longest float64
	for i := range split {
		dir, err := shardResultsDir(openRootT(t, sharded.base.ResultsDir), i, "runner-test")
		must(t, err)
		longest = max(longest, readSummary(t, filepath.Join(sharded.base.ResultsDir, dir)).DurationSeconds)
	}
	code, merged, out := sharded.run(t, "merge", "unset", func(c *Config) {
		c.Merge = true
		c.CWACDir, c.Python = "/nonexistent/cwac", "/nonexistent/python" // the merge pod has neither
	})
	if code != 0 || merged.ExitCode != 0 || merged.Outcome != whole.Outcome {
		t.Fatalf("merge: code %d, %s: %s\n%s", code, merged.Outcome, merged.Message, out)
	}
	if wantMsg := "merged 3 of 3 shards: " + whole.Message; merged.Message != wantMsg {
		t.Errorf("merge message %q, want %q", merged.Message, wantMsg)
	}
	if _, err := os.Stat(filepath.Join(sharded.tmp, "work-merge")); err == nil {
		t.Error("the merge made a CWAC work dir")
	}
	dir := filepath.Join(sharded.base.ResultsDir, merged.ResultsDir)
	got := readSummary(t, dir)
	if got.DurationSeconds != longest {
		t.Errorf("merged duration %v, want the longest shard's %v", got.DurationSeconds, longest)
	}
	if merged.Summary == nil || merged.Summary.TotalIssues != got.TotalIssues || merged.Summary.PagesScanned != got.PagesScanned {
		t.Errorf("the report's summary %+v is not summary.json's", merged.Summary)
	}
	// Shards list base URLs in shard order (see results' merge test).
	for _, s := range []*results.Summary{want, got} {
		s.DurationSeconds = 0
		slices.SortFunc(s.BaseURLs, func(a, b results.BaseURLPages) int { return strings.Compare(a.BaseURL, b.BaseURL) })
		slices.Sort(s.UnscannedBaseURLs)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("merged summary.json differs from one pod's (-one pod +merged):\n%s", d)
	}
	if got.TotalIssues == 0 || got.PagesScanned != 20 || len(got.UnscannedBaseURLs) != 1 {
		t.Errorf("the merged results are not the sites' (%d pages, %d issues, unscanned %v)", got.PagesScanned, got.TotalIssues, got.UnscannedBaseURLs)
	}
	if _, audit, ok := cwac.ParseResultsDirName(merged.ResultsDir); !ok || audit != "runner-test" {
		t.Errorf("merged results directory %q is not named as CWAC names one", merged.ResultsDir)
	}
	for _, name := range []string{"report.html", "leaderboard.csv", results.RowIndexFile, "axe_core_audit.csv", results.ConfigFile} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("merged results: %v", err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, results.ProgressFile)); err == nil {
		t.Errorf("merged results hold a shard's %s (one run's log)", results.ProgressFile)
	}
}

// TestShardIndex: a shard pod without a usable JOB_COMPLETION_INDEX fails
// before CWAC starts, naming the variable and the range.
func TestShardIndex(t *testing.T) {
	sites := []cwacconfig.Site{{Organisation: "A", URL: closedURL(t)}, {Organisation: "B", URL: closedURL(t)}, {Organisation: "C", URL: closedURL(t)}}
	tests := []struct {
		index, want string
		shards      int
	}{
		{"unset", "JOB_COMPLETION_INDEX is not set", 3},
		{"", "JOB_COMPLETION_INDEX is not set", 3},
		{"x", `JOB_COMPLETION_INDEX="x" is not a shard index: want a whole number from 0 to 63`, 3},
		{"-1", `JOB_COMPLETION_INDEX="-1" is not a shard index`, 3},
		{"64", `JOB_COMPLETION_INDEX="64" is not a shard index`, 3},
		{"3", "JOB_COMPLETION_INDEX=3 is out of range: the scan's 3 sites in 3 shards make 3, indexes 0 to 2", 3},
		{"3", "JOB_COMPLETION_INDEX=3 is out of range: the scan's 3 sites in 5 shards make 3, indexes 0 to 2", 5},
	}
	for _, tt := range tests {
		t.Run(tt.index+" of "+strconv.Itoa(tt.shards), func(t *testing.T) {
			s := newShardedScan(t, sites, tt.shards)
			code, msg, out := s.run(t, "shard", tt.index, nil)
			if code != scanpod.ExitRunnerError || msg.Outcome != scanpod.OutcomeRunnerError || !strings.Contains(msg.Message, tt.want) {
				t.Errorf("code %d, %s: %q; want a runner error containing %q", code, msg.Outcome, msg.Message, tt.want)
			}
			if strings.Contains(out, "starting CWAC") {
				t.Error("CWAC was started")
			}
		})
	}
}

// TestShardFailureNamesShard: a shard whose CWAC fails says which shard it
// is, as the scan's failure message will.
func TestShardFailureNamesShard(t *testing.T) {
	s := newShardedScan(t, []cwacconfig.Site{{Organisation: "A", URL: testSite(t)}, {Organisation: "B", URL: testSite(t)}}, 2)
	t.Setenv("STANDIN_EXIT", "3")
	code, msg, out := s.run(t, "shard-1", "1", nil)
	want := "shard 1: CWAC exited with code 3: RuntimeError: stand-in asked to fail with exit code 3"
	if code != 3 || msg.Outcome != scanpod.OutcomeCWACFailed || msg.Message != want {
		t.Fatalf("code %d, %s: %q; want 3, %s: %q\n%s", code, msg.Outcome, msg.Message, scanpod.OutcomeCWACFailed, want, out)
	}
}
