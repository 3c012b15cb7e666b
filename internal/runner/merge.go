package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"syscall"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/cwac"
	"github.com/a11y-dev/cwac-operator/internal/cwacconfig"
	"github.com/a11y-dev/cwac-operator/internal/report"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
	"github.com/a11y-dev/cwac-operator/internal/shard"
)

// maxShardSummaryBytes bounds the read of a shard's summary.json (a scan
// pod wrote it; the merge needs one number from it).
const maxShardSummaryBytes = 16 << 20

// merge is the runner's merge mode, run by the merge pod once a sharded
// scan's shards have ended, without CWAC: it joins the results of every
// shard that did not fail into one CWAC results directory in the scan's
// directory (results.MergeShards) and writes from it what a one-pod scan
// writes (summary.json, the report, the comparison with the baseline) and
// the same termination report. The shards' sites are split again as the
// scan pods split them; the sites of failed shards, and of shards that
// wrote no results, show as unscanned.
func merge(ctx context.Context, cfg Config) scanpod.Report {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := absPaths(&cfg.ConfigMapDir, &cfg.ResultsDir); err != nil {
		return runnerError(err)
	}
	msg, err := mergeShards(ctx, cfg)
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (stopped by a termination signal: deadline or deletion)", err)
		}
		return runnerError(fmt.Errorf("merging the shards' results: %w", err))
	}
	return msg
}

func mergeShards(ctx context.Context, cfg Config) (scanpod.Report, error) {
	if cfg.Shards < 1 {
		return scanpod.Report{}, fmt.Errorf("--merge needs the scan's number of shards (--shards), got %d", cfg.Shards)
	}
	in, err := readScanInput(cfg.ConfigMapDir, cfg.ScanNamespace)
	if err != nil {
		return scanpod.Report{}, err
	}
	cfg.decisions = in.decisions
	auditName, sites := in.auditName, in.sites
	split := shard.Split(sites, cfg.Shards)
	for _, i := range cfg.FailedShards {
		if i < 0 || i >= len(split) {
			return scanpod.Report{}, fmt.Errorf("failed shard %d is out of range: the scan's %d sites in %d shards make %d, indexes 0 to %d",
				i, len(sites), cfg.Shards, len(split), len(split)-1)
		}
	}
	root, err := os.OpenRoot(cfg.ResultsDir)
	if err != nil {
		return scanpod.Report{}, fmt.Errorf("opening the scan's directory: %w", err)
	}
	defer func() { _ = root.Close() }() // the merged files are closed one by one

	var dirs []string
	var duration float64
	var blocked results.BlockedConnections
	for i := range split {
		if slices.Contains(cfg.FailedShards, i) {
			cfg.Log.Info("leaving out a failed shard; its sites are unscanned", "shard", i, "sites", len(split[i]))
			continue
		}
		dir, err := shardResultsDir(root, i, auditName)
		if err != nil {
			return scanpod.Report{}, err
		}
		if dir == "" {
			cfg.Log.Info("the shard wrote no results; its sites are unscanned", "shard", i, "sites", len(split[i]))
			continue
		}
		dirs = append(dirs, dir)
		took, refused := shardSummary(root, dir, cfg)
		duration = max(duration, took)
		blocked.Merge(refused)
	}

	// The merged directory is made under a hidden name that is not
	// CWAC's, and takes its real name only once whole: a merge pod killed
	// half-way leaves nothing that reads as results.
	name := cwac.ResultsDirName(time.Now(), auditName)
	work := "." + name + ".merging"
	files, err := results.MergeShards(ctx, root, work, dirs)
	if err != nil {
		return scanpod.Report{}, err
	}
	cfg.Log.Info("merged the shards' results", "shards", len(dirs), "of", len(split), "files", files, "resultsDir", name)
	// The shards ran one config but for their sites: the merged results
	// carry the first shard's, so that whatever reads them later (a report
	// made again, the findings store, a comparison) judges each site by the
	// page limit (max_links_per_domain) the scan asked, as for one pod.
	if len(dirs) > 0 {
		if err := copyShardConfig(root, dirs[0], work); err != nil {
			cfg.Log.Info("the merged results have no config.json: their sites' page limit is unknown", "reason", err.Error())
		}
	}
	maxLinks := 0
	if sub, err := fs.Sub(root.FS(), work); err == nil {
		maxLinks = results.MaxLinksOf(sub)
	}
	msg, err := summariseMerged(ctx, cfg, filepath.Join(cfg.ResultsDir, work), name, auditName, sites, duration, maxLinks,
		blocked.Bounded(results.MaxBlockedHosts))
	if err == nil {
		err = root.Rename(work, name)
	}
	if err != nil {
		return scanpod.Report{}, errors.Join(err, root.RemoveAll(work))
	}
	msg.Message = fmt.Sprintf("merged %d of %d shards: %s", len(dirs), len(split), msg.Message)
	reportBlocked(&msg, cfg)
	return msg, nil
}

// maxShardConfigBytes bounds the copy of a shard's config.json (CWAC's is
// about 3 KiB; a larger one was not written by CWAC and is left behind).
const maxShardConfigBytes = 1 << 20

// copyShardConfig copies the config.json CWAC left in the shard's results
// directory, shardDir, into the merged one, dst, both relative to root, so
// neither a link nor a path leads outside the scan's directory. A file
// larger than maxShardConfigBytes is not copied.
func copyShardConfig(root *os.Root, shardDir, dst string) error {
	src, err := root.Open(path.Join(shardDir, results.ConfigFile))
	if err != nil {
		return err
	}
	defer func() { _ = src.Close() }() // read only
	data, err := io.ReadAll(io.LimitReader(src, maxShardConfigBytes+1))
	if err != nil {
		return err
	}
	if len(data) > maxShardConfigBytes {
		return fmt.Errorf("%s/%s is larger than %d bytes", shardDir, results.ConfigFile, maxShardConfigBytes)
	}
	return root.WriteFile(path.Join(dst, results.ConfigFile), data, 0o644)
}

// summariseMerged writes into dir, the merged results, what a one-pod scan
// writes beside CWAC's (summary.json, the report, the comparison with the
// baseline), expecting every site of the scan, and returns the report of
// the scan, whose results directory is name; blocked are the shards'
// egress proxies' refusals together.
func summariseMerged(ctx context.Context, cfg Config, dir, name, auditName string, sites []cwacconfig.Site, duration float64,
	maxLinks int, blocked *results.BlockedConnections) (scanpod.Report, error) {
	var err error
	expected := make([]string, 0, len(sites))
	for _, s := range sites {
		expected = append(expected, s.URL)
	}
	msg := scanpod.Report{ResultsDir: name, BlockedByPolicy: blocked}
	opts := results.Options{ExpectedBaseURLs: expected, Sites: expectedSites(sites), Duration: duration, MaxLinksPerDomain: maxLinks}
	meta := report.Meta{Title: auditName, ResultsDir: name, GeneratedAt: time.Now()}
	var base baselineResults
	if cfg.BaselineDir != "" {
		base, msg.Baseline = compareResults(ctx, cfg, dir)
	}
	cfg.decisions.keep(dir, cfg.Log)
	if msg.Summary, err = writeResults(ctx, dir, opts, meta, cfg.Log, base, blocked, ciReportOptions(cfg, auditName)); err != nil {
		return scanpod.Report{}, fmt.Errorf("summarising the merged results: %w", err)
	}
	settle(&msg, false, 0)
	return msg, nil
}

// shardResultsDir is shard index's CWAC results directory for the audit,
// relative to the scan's directory: the newest if CWAC made several, ""
// when the shard made none (or has no directory at all).
func shardResultsDir(root *os.Root, index int, auditName string) (string, error) {
	shardDir := scanpod.ShardDir(index)
	entries, err := fs.ReadDir(root.FS(), shardDir)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("reading shard %d's directory: %w", index, err)
	}
	var names []string
	for _, e := range entries {
		if _, audit, ok := cwac.ParseResultsDirName(e.Name()); ok && audit == auditName && e.IsDir() {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return "", nil
	}
	sort.Strings(names) // the timestamp comes first, so names sort by time
	return path.Join(shardDir, names[len(names)-1]), nil
}

// shardSummary is how long the shard's CWAC ran and what its egress proxy
// refused, from the summary.json its pod wrote (0 and nil when it cannot
// be read: the merged duration is then the other shards'). The refusals
// are kept as Bounded keeps them: a pod wrote them.
func shardSummary(root *os.Root, dir string, cfg Config) (float64, *results.BlockedConnections) {
	f, err := root.Open(path.Join(dir, results.SummaryFile))
	if err != nil {
		cfg.Log.Info("the shard's duration is unknown", "dir", dir, "err", err)
		return 0, nil
	}
	defer func() { _ = f.Close() }() // read only
	var s struct {
		DurationSeconds float64                     `json:"duration_seconds"`
		BlockedByPolicy *results.BlockedConnections `json:"blocked_by_policy"`
	}
	if err := json.NewDecoder(io.LimitReader(f, maxShardSummaryBytes)).Decode(&s); err != nil {
		cfg.Log.Info("the shard's duration is unknown", "dir", dir, "err", err)
		return 0, nil
	}
	return s.DurationSeconds, s.BlockedByPolicy.Bounded(results.MaxBlockedHosts)
}
