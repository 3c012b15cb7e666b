//go:build integration

package runner

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/cwacconfig"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

// TestMerge: the merge pod's outcomes over one sharded scan's results
// (each case on its own copy): failed shards and shards without results
// left out with their sites unscanned, a baseline compared, and every way
// the merge itself fails, as a runner error that says why.
func TestMerge(t *testing.T) {
	sites := shardSites(t)
	scanned := newShardedScan(t, sites, 3)
	split := scanned.scanShards(t)
	urlsOf := func(shards ...int) []string {
		var out []string
		for _, i := range shards {
			for _, s := range split[i] {
				out = append(out, s.URL)
			}
		}
		return out
	}
	dead := sites[3].URL

	tests := []struct {
		name   string
		change func(t *testing.T, s *shardedScan, c *Config)
		// A merge that succeeds: its outcome, message and unscanned sites.
		wantOutcome   scanpod.Outcome
		wantMessage   string
		wantUnscanned []string
		wantDiff      bool    // compared with shard 0 alone: its issues unchanged, the others' new
		wantDuration  float64 // when set, the merged summary's duration
		// A merge that fails: what its message says.
		wantErr []string
		// noConfig: the merged results hold no config.json.
		noConfig bool
	}{
		{
			name:          "a failed shard is left out",
			change:        func(_ *testing.T, _ *shardedScan, c *Config) { c.FailedShards = []int{1} },
			wantOutcome:   scanpod.OutcomePartial,
			wantMessage:   "merged 2 of 3 shards: scanned ",
			wantUnscanned: append(urlsOf(1), dead),
		},
		{
			name: "a shard that wrote no results: its sites are unscanned",
			change: func(t *testing.T, s *shardedScan, _ *Config) {
				must(t, os.RemoveAll(filepath.Join(s.base.ResultsDir, scanpod.ShardDir(2))))
			},
			wantOutcome:   scanpod.OutcomePartial,
			wantMessage:   "merged 2 of 3 shards: scanned ",
			wantUnscanned: append(urlsOf(2), dead),
		},
		{
			name:          "every shard failed: no pages",
			change:        func(_ *testing.T, _ *shardedScan, c *Config) { c.FailedShards = []int{0, 1, 2} },
			wantOutcome:   scanpod.OutcomeNoPages,
			wantMessage:   "merged 0 of 3 shards: no pages were scanned; base URLs that yielded no page: ",
			wantUnscanned: urlsOf(0, 1, 2),
			noConfig:      true, // no shard's results to take it from
		},
		{
			name: "compared with a baseline",
			change: func(t *testing.T, s *shardedScan, c *Config) {
				dir, err := shardResultsDir(openRootT(t, s.base.ResultsDir), 0, "runner-test")
				must(t, err)
				c.BaselineDir, c.BaselineName = filepath.Join(s.base.ResultsDir, dir), "shard-0-alone"
			},
			wantOutcome:   scanpod.OutcomePartial,
			wantMessage:   "merged 3 of 3 shards: scanned ",
			wantUnscanned: []string{dead},
			wantDiff:      true,
		},
		{
			name: "a shard's CSV with other columns",
			change: func(t *testing.T, s *shardedScan, _ *Config) {
				dir, err := shardResultsDir(openRootT(t, s.base.ResultsDir), 2, "runner-test")
				must(t, err)
				must(t, os.WriteFile(filepath.Join(s.base.ResultsDir, dir, "reflow_audit.csv"), []byte("\ufeffsomething,else\r\n1,2\r\n"), 0o644))
			},
			wantErr: []string{"runner: merging the shards' results: shards/2/", "reflow_audit.csv has the columns \"something,else\"", "cannot be joined"},
		},
		{
			name: "a shard's row the summary cannot read",
			change: func(t *testing.T, s *shardedScan, _ *Config) {
				dir, err := shardResultsDir(openRootT(t, s.base.ResultsDir), 1, "runner-test")
				must(t, err)
				path := filepath.Join(s.base.ResultsDir, dir, "reflow_audit.csv")
				data, err := os.ReadFile(path)
				must(t, err)
				header, _, _ := strings.Cut(string(data), "\r\n")
				must(t, os.WriteFile(path, []byte(header+"\r\nragged\r\n"), 0o644))
			},
			wantErr: []string{"runner: merging the shards' results: summarising the merged results: reflow_audit.csv: reading CSV: line "},
		},
		{
			name:    "no number of shards",
			change:  func(_ *testing.T, _ *shardedScan, c *Config) { c.Shards = 0 },
			wantErr: []string{"--merge needs the scan's number of shards (--shards), got 0"},
		},
		{
			name:    "a failed shard the scan does not have",
			change:  func(_ *testing.T, _ *shardedScan, c *Config) { c.FailedShards = []int{3} },
			wantErr: []string{"failed shard 3 is out of range: the scan's 6 sites in 3 shards make 3, indexes 0 to 2"},
		},
		{
			name: "a shard's summary.json gone or broken: the duration is the others'",
			change: func(t *testing.T, s *shardedScan, _ *Config) {
				setShardDuration(t, s, 0, `{"duration_seconds": 1234.5}`)
				setShardDuration(t, s, 1, "")
				setShardDuration(t, s, 2, "{")
			},
			wantOutcome:   scanpod.OutcomePartial,
			wantMessage:   "merged 3 of 3 shards: scanned ",
			wantUnscanned: []string{dead},
			wantDuration:  1234.5,
		},
		{
			name: "the longest shard's duration is the scan's",
			change: func(t *testing.T, s *shardedScan, _ *Config) {
				setShardDuration(t, s, 0, `{"duration_seconds": 10}`)
				setShardDuration(t, s, 1, `{"duration_seconds": 30}`)
				setShardDuration(t, s, 2, `{"duration_seconds": 20}`)
			},
			wantOutcome:   scanpod.OutcomePartial,
			wantMessage:   "merged 3 of 3 shards: scanned ",
			wantUnscanned: []string{dead},
			wantDuration:  30,
		},
		{
			name: "a shard's directory without results of the audit: its sites are unscanned",
			change: func(t *testing.T, s *shardedScan, _ *Config) {
				shardDir := filepath.Join(s.base.ResultsDir, scanpod.ShardDir(2))
				must(t, os.RemoveAll(shardDir))
				must(t, os.MkdirAll(filepath.Join(shardDir, "2026-01-01_00-00-00_another-audit"), 0o755))
				must(t, os.WriteFile(filepath.Join(shardDir, "2026-01-02_00-00-00_runner-test"), nil, 0o644))
			},
			wantOutcome:   scanpod.OutcomePartial,
			wantMessage:   "merged 2 of 3 shards: scanned ",
			wantUnscanned: append(urlsOf(2), dead),
		},
		{
			name: "the first shard's config.json is gone: the merged results have none, the merge goes on",
			change: func(t *testing.T, s *shardedScan, _ *Config) {
				dir, err := shardResultsDir(openRootT(t, s.base.ResultsDir), 0, "runner-test")
				must(t, err)
				must(t, os.Remove(filepath.Join(s.base.ResultsDir, dir, results.ConfigFile)))
			},
			wantOutcome:   scanpod.OutcomePartial,
			wantMessage:   "merged 3 of 3 shards: scanned ",
			wantUnscanned: []string{dead},
			noConfig:      true,
		},
		{
			name: "the first shard's config.json is larger than a config: not copied",
			change: func(t *testing.T, s *shardedScan, _ *Config) {
				dir, err := shardResultsDir(openRootT(t, s.base.ResultsDir), 0, "runner-test")
				must(t, err)
				big := `{"max_links_per_domain": 10, "padding": "` + strings.Repeat("x", maxShardConfigBytes) + `"}`
				must(t, os.WriteFile(filepath.Join(s.base.ResultsDir, dir, results.ConfigFile), []byte(big), 0o644))
			},
			wantOutcome:   scanpod.OutcomePartial,
			wantMessage:   "merged 3 of 3 shards: scanned ",
			wantUnscanned: []string{dead},
			noConfig:      true,
		},
		{
			name: "a shard's directory is a file",
			change: func(t *testing.T, s *shardedScan, _ *Config) {
				shardDir := filepath.Join(s.base.ResultsDir, scanpod.ShardDir(1))
				must(t, os.RemoveAll(shardDir))
				must(t, os.WriteFile(shardDir, nil, 0o644))
			},
			wantErr: []string{"runner: merging the shards' results: reading shard 1's directory: "},
		},
		{
			name:    "the scan's directory is gone",
			change:  func(t *testing.T, _ *shardedScan, c *Config) { c.ResultsDir = filepath.Join(t.TempDir(), "gone") },
			wantErr: []string{"runner: merging the shards' results: opening the scan's directory: "},
		},
		{
			name:    "a failed shard below 0",
			change:  func(_ *testing.T, _ *shardedScan, c *Config) { c.FailedShards = []int{-1} },
			wantErr: []string{"failed shard -1 is out of range: the scan's 6 sites in 3 shards make 3, indexes 0 to 2"},
		},
		{
			name:    "stopped by a termination signal",
			change:  func(_ *testing.T, s *shardedScan, _ *Config) { s.ctx = cancelled() },
			wantErr: []string{"runner: merging the shards' results: ", "context canceled (stopped by a termination signal: deadline or deletion)"},
		},
		{
			name:    "scan.json cannot be read",
			change:  func(t *testing.T, _ *shardedScan, c *Config) { replaceScanFile(t, c, scanpod.OverridesFile, "") },
			wantErr: []string{"runner: merging the shards' results: reading the scan's overrides: "},
		},
		{
			name:    "scan.json is not JSON",
			change:  func(t *testing.T, _ *shardedScan, c *Config) { replaceScanFile(t, c, scanpod.OverridesFile, "{") },
			wantErr: []string{"runner: merging the shards' results: scan.json: decoding CWAC config"},
		},
		{
			name:    "scan.json has no audit name",
			change:  func(t *testing.T, _ *shardedScan, c *Config) { replaceScanFile(t, c, scanpod.OverridesFile, "{}") },
			wantErr: []string{"runner: merging the shards' results: scan.json: invalid audit name"},
		},
		{
			name:    "urls.csv cannot be read",
			change:  func(t *testing.T, _ *shardedScan, c *Config) { replaceScanFile(t, c, scanpod.URLsFile, "") },
			wantErr: []string{"runner: merging the shards' results: reading the scan's URLs: "},
		},
		{
			name:    "urls.csv has another header",
			change:  func(t *testing.T, _ *shardedScan, c *Config) { replaceScanFile(t, c, scanpod.URLsFile, "a,b,c\n") },
			wantErr: []string{"runner: merging the shards' results: reading base URL CSV: header must be organisation,url,sector"},
		},
		{
			name: "urls.csv has no URL",
			change: func(t *testing.T, _ *shardedScan, c *Config) {
				replaceScanFile(t, c, scanpod.URLsFile, "organisation,url,sector\n")
			},
			wantErr: []string{"runner: merging the shards' results: urls.csv: at least one URL is required"},
		},
		{
			name:    "the scan's ConfigMap is gone",
			change:  func(t *testing.T, _ *shardedScan, c *Config) { c.ConfigMapDir = t.TempDir() },
			wantErr: []string{"the scan's ConfigMap is missing"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := *scanned
			s.tmp = t.TempDir()
			s.base.ResultsDir = filepath.Join(s.tmp, "results")
			must(t, os.CopyFS(s.base.ResultsDir, os.DirFS(scanned.base.ResultsDir)))
			code, msg, out := s.run(t, "merge", "unset", func(c *Config) {
				c.Merge = true
				tt.change(t, &s, c)
			})
			if tt.wantErr != nil {
				if code != scanpod.ExitRunnerError || msg.ExitCode != scanpod.ExitRunnerError || msg.Outcome != scanpod.OutcomeRunnerError {
					t.Fatalf("code %d, %s: %s; want a runner error\n%s", code, msg.Outcome, msg.Message, out)
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(msg.Message, w) {
						t.Errorf("message %q does not contain %q", msg.Message, w)
					}
				}
				if left := mergedDirs(t, s.base.ResultsDir); len(left) > 0 {
					t.Errorf("a failed merge left %v", left)
				}
				return
			}
			if code != 0 || msg.Outcome != tt.wantOutcome || !strings.HasPrefix(msg.Message, tt.wantMessage) {
				t.Fatalf("code %d, %s: %q; want %s: %q…\n%s", code, msg.Outcome, msg.Message, tt.wantOutcome, tt.wantMessage, out)
			}
			got := readSummary(t, filepath.Join(s.base.ResultsDir, msg.ResultsDir))
			slices.Sort(got.UnscannedBaseURLs)
			want := slices.Compact(slices.Sorted(slices.Values(tt.wantUnscanned))) // the dead site may be in a failed shard
			if !slices.Equal(got.UnscannedBaseURLs, want) || len(got.BaseURLs) != len(sites) {
				t.Errorf("unscanned %v of %d base URLs; want %v of %d", got.UnscannedBaseURLs, len(got.BaseURLs), want, len(sites))
			}
			// The merged results carry the shards' config (all ran one),
			// so a later reader judges sites by the page limit asked.
			merged := filepath.Join(s.base.ResultsDir, msg.ResultsDir)
			wantLimit := 10 // allPlugins' max_links_per_domain
			if tt.noConfig {
				wantLimit = 0
			}
			_, statErr := os.Stat(filepath.Join(merged, results.ConfigFile))
			if limit := results.MaxLinksOf(os.DirFS(merged)); limit != wantLimit || (statErr == nil) == tt.noConfig {
				t.Errorf("merged config.json: %v, page limit %d; want %d", statErr, limit, wantLimit)
			}
			if got.Completeness == nil || got.Completeness.MaxPagesPerSite != wantLimit {
				t.Errorf("summary's completeness %+v; want sites judged by a page limit of %d", got.Completeness, wantLimit)
			}
			if tt.wantDuration != 0 && got.DurationSeconds != tt.wantDuration {
				t.Errorf("duration %v, want %v", got.DurationSeconds, tt.wantDuration)
			}
			if tt.wantDiff {
				if msg.Baseline != nil || got.Diff == nil || got.Diff.Unchanged == 0 || got.Diff.New == 0 || got.Diff.Fixed != 0 {
					t.Errorf("baseline problem %+v, diff %+v; want shard 0's issues unchanged and the rest new", msg.Baseline, got.Diff)
				}
			} else if got.Diff != nil {
				t.Errorf("a diff without a baseline: %+v", got.Diff)
			}
		})
	}
}

// mergedDirs lists the CWAC results directories beside shards/.
func mergedDirs(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	must(t, err)
	var out []string
	for _, e := range entries {
		if e.Name() != scanpod.ShardsDir {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestShardIgnoresBaseline: a shard pod given the scan's baseline does not
// compare its part of the results with the whole baseline.
func TestShardIgnoresBaseline(t *testing.T) {
	s := newShardedScan(t, []cwacconfig.Site{{Organisation: "A", URL: testSite(t)}, {Organisation: "B", URL: testSite(t)}}, 2)
	baseline := t.TempDir()
	must(t, os.CopyFS(baseline, os.DirFS("../../testdata/cwac-results/2026-11-21_23-18-23_real-scan-1")))
	code, msg, out := s.run(t, "shard-0", "0", func(c *Config) { c.BaselineDir, c.BaselineName = baseline, "week-1" })
	if code != 0 || msg.Outcome != scanpod.OutcomeComplete || msg.Baseline != nil || msg.Summary == nil || msg.Summary.Diff != nil {
		t.Fatalf("code %d, %s: %s; baseline %+v\n%s", code, msg.Outcome, msg.Message, msg.Baseline, out)
	}
	if _, err := os.Stat(filepath.Join(s.base.ResultsDir, scanpod.ShardDir(0), msg.ResultsDir, "diff.json")); err == nil {
		t.Error("the shard wrote diff.json")
	}
}

// setShardDuration replaces the summary.json of shard index's results
// ("" removes it).
func setShardDuration(t *testing.T, s *shardedScan, index int, summary string) {
	t.Helper()
	dir, err := shardResultsDir(openRootT(t, s.base.ResultsDir), index, "runner-test")
	must(t, err)
	path := filepath.Join(s.base.ResultsDir, dir, results.SummaryFile)
	if summary == "" {
		must(t, os.Remove(path))
		return
	}
	must(t, os.WriteFile(path, []byte(summary), 0o644))
}

// replaceScanFile gives the merge a copy of the scan's ConfigMap whose
// file name holds data ("": a directory, which cannot be read).
func replaceScanFile(t *testing.T, c *Config, name, data string) {
	t.Helper()
	dir := t.TempDir()
	must(t, os.CopyFS(dir, os.DirFS(c.ConfigMapDir)))
	path := filepath.Join(dir, name)
	must(t, os.Remove(path))
	if data == "" {
		must(t, os.Mkdir(path, 0o755))
	} else {
		must(t, os.WriteFile(path, []byte(data), 0o644))
	}
	c.ConfigMapDir = dir
}

func cancelled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}
