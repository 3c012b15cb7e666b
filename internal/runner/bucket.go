package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/objectstore"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

// bucketCheckTimeout bounds the look at the bucket before anything runs.
const bucketCheckTimeout = time.Minute

// uploadRetry is how the runner retries a result file's upload
// (objectstore.UploadRetry; a variable so that tests wait less).
var uploadRetry = objectstore.UploadRetry

// checkFile is what a scan pod stores first, to learn that the bucket
// takes its files before CWAC runs for hours (it holds the time it did).
const checkFile = ".upload-check"

// bucketWay is how a pod reaches the results bucket: a scan pod with its
// grant, the merge pod with credentials.
type bucketWay interface {
	// check makes sure the bucket takes the pod's files.
	check(ctx context.Context, cfg Config) error
	// fetch downloads what the run reads into the pod.
	fetch(ctx context.Context, cfg Config) error
	// upload stores dir, but the directories named in skip.
	upload(ctx context.Context, dir string, skip ...string) (objectstore.Uploaded, error)
}

// withBucket runs one scan (or merge) whose results are kept in a bucket:
// it makes sure the bucket takes files before anything runs, so that a
// bucket that cannot be used fails the scan in seconds rather than after
// it; fetches what the run reads (the baseline's results, or for a merge
// the shards'); runs, a scan pod sending CWAC's progress meanwhile
// (relayProgress); and uploads the scan's directory whatever the run's
// outcome (a failed scan's logs are results too). Any failure of the
// bucket's makes the outcome OutcomeResultsNotStored, its message naming
// the cause: no scan ends complete without its results.
func withBucket(ctx context.Context, cfg Config, runScan func(context.Context, Config) scanpod.Report) scanpod.Report {
	way, err := bucketWayOf(cfg)
	if err != nil {
		return runnerError(err)
	}
	checkCtx, cancel := context.WithTimeout(ctx, bucketCheckTimeout)
	err = way.check(checkCtx, cfg)
	cancel()
	if err != nil {
		return notStored(err, "")
	}
	if err := way.fetch(ctx, cfg); err != nil {
		return notStored(err, "")
	}
	stopRelay := func() {}
	if g, ok := way.(grantWay); ok {
		stopRelay = relayProgress(ctx, g.g, cfg.ResultsDir, cfg.Log)
	}
	msg := runScan(ctx, cfg)
	stopRelay()
	var skip []string
	if cfg.Merge {
		skip = append(skip, scanpod.ShardsDir) // the shards stored their own
	}
	up, err := way.upload(ctx, cfg.ResultsDir, skip...)
	if err != nil {
		out := notStored(err, msg.ResultsDir)
		out.Message = join(out.Message, "the run: "+msg.Message)
		out.StderrTail, out.BlockedByPolicy = msg.StderrTail, msg.BlockedByPolicy
		return out
	}
	cfg.Log.Info("results uploaded", "files", up.Files, "bytes", up.Bytes)
	return msg
}

// bucketWayOf picks the pod's way in, refusing credentials in a pod that
// runs CWAC: its browser visits sites nobody vetted, and may read what the
// pod can.
func bucketWayOf(cfg Config) (bucketWay, error) {
	switch {
	case cfg.ResultsGrant != "" && cfg.Bucket.Enabled():
		return nil, errors.New("both a results grant and bucket credentials given: a scan pod takes the grant, the merge pod the credentials")
	case cfg.ResultsGrant != "":
		g, err := objectstore.ReadGrant(cfg.ResultsGrant, scanpod.MaxGrantBytes)
		if err != nil {
			return nil, err
		}
		return grantWay{g: g}, nil
	case !cfg.Merge:
		return nil, errors.New("bucket credentials are for the merge pod: a pod that runs CWAC takes a results grant (--results-grant)")
	case cfg.ResultsKey == "":
		return nil, errors.New("--results-key is not set: the bucket's directory for this scan is unknown")
	}
	st, err := objectstore.Open(cfg.Bucket)
	if err != nil {
		return nil, err
	}
	return keyWay{st: st, cfg: cfg}, nil
}

// grantWay is a scan pod's: its grant, no credentials.
type grantWay struct{ g *objectstore.Grant }

func (w grantWay) check(ctx context.Context, _ Config) error {
	if time.Until(w.g.Expires) < time.Minute {
		return fmt.Errorf("the results grant expired at %s", w.g.Expires.Format(time.RFC3339))
	}
	dir, err := os.MkdirTemp("", "upload-check-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	if err := os.WriteFile(filepath.Join(dir, checkFile), []byte(time.Now().UTC().Format(time.RFC3339)+"\n"), 0o600); err != nil {
		return err
	}
	_, err = objectstore.UploadGranted(ctx, w.g, dir, uploadRetry)
	return err
}

func (w grantWay) fetch(ctx context.Context, cfg Config) error {
	if len(w.g.Baseline) == 0 || cfg.BaselineDir == "" || cfg.Shards > 1 {
		return os.MkdirAll(cfg.ResultsDir, 0o750)
	}
	got, err := objectstore.FetchGranted(ctx, w.g, cfg.BaselineDir)
	if err != nil {
		return fmt.Errorf("fetching the baseline's results: %w", err)
	}
	cfg.Log.Info("fetched the baseline's results", "baseline", cfg.BaselineName, "files", got.Files, "bytes", got.Bytes)
	return os.MkdirAll(cfg.ResultsDir, 0o750)
}

func (w grantWay) upload(ctx context.Context, dir string, skip ...string) (objectstore.Uploaded, error) {
	return objectstore.UploadGranted(ctx, w.g, dir, uploadRetry, skip...)
}

// keyWay is the merge pod's: credentials.
type keyWay struct {
	st  *objectstore.Store
	cfg Config
}

func (w keyWay) check(ctx context.Context, _ Config) error { return w.st.Check(ctx) }

// fetch downloads the shards' results, and the baseline's.
func (w keyWay) fetch(ctx context.Context, cfg Config) error {
	got, err := w.st.Download(ctx, cfg.ResultsKey+"/"+scanpod.ShardsDir, filepath.Join(cfg.ResultsDir, scanpod.ShardsDir))
	if err != nil {
		return fmt.Errorf("fetching the shards' results: %w", err)
	}
	cfg.Log.Info("fetched the shards' results", "files", got.Files, "bytes", got.Bytes)
	if cfg.BaselineKey != "" && cfg.BaselineDir != "" {
		got, err := w.st.Download(ctx, cfg.BaselineKey, cfg.BaselineDir)
		if err != nil {
			return fmt.Errorf("fetching the baseline's results: %w", err)
		}
		cfg.Log.Info("fetched the baseline's results", "baseline", cfg.BaselineName, "files", got.Files, "bytes", got.Bytes)
	}
	return nil
}

func (w keyWay) upload(ctx context.Context, dir string, skip ...string) (objectstore.Uploaded, error) {
	return w.st.Upload(ctx, dir, w.cfg.ResultsKey, uploadRetry, skip...)
}

// notStored is the report of a scan whose results the bucket did not take.
func notStored(err error, resultsDir string) scanpod.Report {
	return scanpod.Report{
		Outcome: scanpod.OutcomeResultsNotStored, ExitCode: scanpod.ExitRunnerError, ResultsDir: resultsDir,
		Message: "results not stored: " + err.Error(),
	}
}
