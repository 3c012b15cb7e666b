package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/a11y-dev/cwac-operator/internal/cwacconfig"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
	"github.com/a11y-dev/cwac-operator/internal/shard"
)

// takeShard narrows a sharded scan's pod to its shard: the index the Job
// controller gave it (scanpod.ShardIndexEnv), the sites shard.Split puts in
// that shard (the operator and the merge pod split the same way), and the
// shard's own results directory, scanpod.ShardDir(index) in the scan's. It
// returns the shard's sites and their base URL CSV for CWAC, and sets
// cfg.ResultsDir.
//
// A shard is not compared with the baseline: the comparison is of the
// whole scan's results, which the merge pod makes.
func takeShard(cfg *Config, sites []cwacconfig.Site) ([]cwacconfig.Site, []byte, error) {
	split := shard.Split(sites, cfg.Shards)
	index, err := shardIndex(os.LookupEnv(scanpod.ShardIndexEnv))
	if err == nil && index >= len(split) {
		err = fmt.Errorf("%s=%d is out of range: the scan's %d sites in %d shards make %d, indexes 0 to %d",
			scanpod.ShardIndexEnv, index, len(sites), cfg.Shards, len(split), len(split)-1)
	}
	if err != nil {
		return nil, nil, err
	}
	data, err := cwacconfig.WriteBaseURLCSV(split[index])
	if err != nil {
		return nil, nil, fmt.Errorf("shard %d's base URLs: %w", index, err)
	}
	cfg.ResultsDir = filepath.Join(cfg.ResultsDir, filepath.FromSlash(scanpod.ShardDir(index)))
	if cfg.BaselineDir != "" {
		cfg.Log.Info("the shard is not compared with the baseline: the merge compares the whole scan's results", "baseline", cfg.BaselineName)
		cfg.BaselineDir, cfg.BaselineName = "", ""
	}
	cfg.Log.Info("scanning one shard", "shard", index, "shards", len(split), "sites", len(split[index]), "resultsDir", cfg.ResultsDir)
	return split[index], data, nil
}

// shardIndex reads the pod's shard index from the value of
// scanpod.ShardIndexEnv (and whether it is set).
func shardIndex(value string, set bool) (int, error) {
	if !set || value == "" {
		return 0, fmt.Errorf("%s is not set: a sharded scan's pod takes its shard from it (the Job must be Indexed)", scanpod.ShardIndexEnv)
	}
	n, err := strconv.Atoi(value)
	if err != nil || n < 0 || n >= scanpod.MaxShards {
		return 0, fmt.Errorf("%s=%q is not a shard index: want a whole number from 0 to %d", scanpod.ShardIndexEnv, value, scanpod.MaxShards-1)
	}
	return n, nil
}
