package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/objectstore"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

// bucketCheckTimeout bounds the look at the bucket before CWAC starts.
const bucketCheckTimeout = time.Minute

// uploadRetry is how the runner retries a result file's upload
// (objectstore.UploadRetry; a variable so that tests wait less).
var uploadRetry = objectstore.UploadRetry

// withBucket runs one scan (or merge) whose results are kept in a bucket
// (cfg.Bucket): it checks the bucket before anything runs, so that a
// bucket that cannot be used fails the scan in seconds rather than after
// it; fetches what the run reads (the baseline's results, or for a merge
// the shards'); runs; and uploads the scan's directory, confirming each
// file, whatever the run's outcome (a failed scan's logs are results too).
// Any failure of the bucket's makes the outcome OutcomeResultsNotStored,
// its message naming the cause: no scan ends complete without its results.
func withBucket(ctx context.Context, cfg Config, runScan func(context.Context, Config) scanpod.Report) scanpod.Report {
	st, err := openBucket(ctx, cfg)
	if err != nil {
		return notStored(err, "")
	}
	if err := fetchInputs(ctx, st, &cfg); err != nil {
		return notStored(err, "")
	}
	msg := runScan(ctx, cfg)
	var skip []string
	if cfg.Merge {
		skip = append(skip, scanpod.ShardsDir) // the shards uploaded their own
	}
	up, err := st.Upload(ctx, cfg.ResultsDir, cfg.ResultsKey, uploadRetry, skip...)
	if err != nil {
		out := notStored(err, msg.ResultsDir)
		out.Message = join(out.Message, "the run: "+msg.Message)
		out.StderrTail, out.BlockedByPolicy = msg.StderrTail, msg.BlockedByPolicy
		return out
	}
	cfg.Log.Info("results uploaded", "bucket", st.Bucket(), "key", cfg.ResultsKey, "files", up.Files, "bytes", up.Bytes)
	return msg
}

// openBucket opens and checks the bucket, and refuses a scan without its key.
func openBucket(ctx context.Context, cfg Config) (*objectstore.Store, error) {
	if cfg.ResultsKey == "" {
		return nil, fmt.Errorf("--results-key is not set: the bucket's directory for this scan is unknown")
	}
	st, err := objectstore.Open(cfg.Bucket)
	if err != nil {
		return nil, err
	}
	checkCtx, cancel := context.WithTimeout(ctx, bucketCheckTimeout)
	defer cancel()
	if err := st.Check(checkCtx); err != nil {
		return nil, err
	}
	return st, nil
}

// fetchInputs downloads what the run reads from the bucket into the pod:
// the shards' results for a merge, the baseline's for a scan that compares
// (a shard does not: the merge compares the whole scan's results). A
// baseline with nothing left in the bucket fetches nothing, and the
// comparison says its results are gone.
func fetchInputs(ctx context.Context, st *objectstore.Store, cfg *Config) error {
	if cfg.Merge {
		dir := filepath.Join(cfg.ResultsDir, scanpod.ShardsDir)
		got, err := st.Download(ctx, cfg.ResultsKey+"/"+scanpod.ShardsDir, dir)
		if err != nil {
			return fmt.Errorf("fetching the shards' results: %w", err)
		}
		cfg.Log.Info("fetched the shards' results", "files", got.Files, "bytes", got.Bytes)
	}
	if cfg.BaselineKey != "" && cfg.BaselineDir != "" && (cfg.Merge || cfg.Shards <= 1) {
		got, err := st.Download(ctx, cfg.BaselineKey, cfg.BaselineDir)
		if err != nil {
			return fmt.Errorf("fetching the baseline's results: %w", err)
		}
		cfg.Log.Info("fetched the baseline's results", "baseline", cfg.BaselineName, "files", got.Files, "bytes", got.Bytes)
	}
	return os.MkdirAll(cfg.ResultsDir, 0o750)
}

// notStored is the report of a scan whose results the bucket did not take.
func notStored(err error, resultsDir string) scanpod.Report {
	return scanpod.Report{
		Outcome: scanpod.OutcomeResultsNotStored, ExitCode: scanpod.ExitRunnerError, ResultsDir: resultsDir,
		Message: "results not stored: " + err.Error(),
	}
}
