package runner

import (
	"context"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"sync"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/objectstore"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

// progressEvery is how often a scan pod that stores in a bucket sends
// CWAC's progress there while CWAC runs (a variable so that tests wait
// less). Readers (cwac_scan_status) otherwise see a running scan's pages
// only once it ends: the pod's own results volume is seen by no one else.
var progressEvery = 30 * time.Second

// maxProgressFiles bounds the progress files sent each time: a pod runs
// one CWAC, which writes one results directory.
const maxProgressFiles = 4

// progressPatterns find CWAC's progress.csv in a scan pod's results
// directory: its own run's, or a shard's (scanpod.ShardDir).
var progressPatterns = []string{
	path.Join("*", results.ProgressFile),
	path.Join(scanpod.ShardsDir, "*", "*", results.ProgressFile),
}

// relayProgress sends CWAC's progress under dir to the bucket with the
// grant every progressEvery until stop is called, each file again only
// once it has changed. A file that cannot be sent is logged and sent at
// the next turn: the results themselves are stored after the run, and
// checked then.
func relayProgress(ctx context.Context, g *objectstore.Grant, dir string, log *slog.Logger) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		sent := map[string]time.Time{}
		tick := time.NewTicker(progressEvery)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				sendProgress(ctx, g, dir, sent, log)
			}
		}
	}()
	return func() {
		cancel()
		wg.Wait()
	}
}

// sendProgress sends each progress file under dir changed since sent says.
func sendProgress(ctx context.Context, g *objectstore.Grant, dir string, sent map[string]time.Time, log *slog.Logger) {
	fsys := os.DirFS(dir)
	var names []string
	for _, p := range progressPatterns {
		m, _ := fs.Glob(fsys, p) // the patterns are well formed
		names = append(names, m...)
	}
	for _, name := range names[:min(len(names), maxProgressFiles)] {
		info, err := fs.Stat(fsys, name)
		if err != nil || !info.Mode().IsRegular() || info.ModTime().Equal(sent[name]) {
			continue
		}
		if err := objectstore.UploadGrantedFile(ctx, g, dir, name); err != nil {
			if ctx.Err() == nil {
				log.Warn("sending CWAC's progress to the bucket", "file", name, "err", err)
			}
			continue
		}
		sent[name] = info.ModTime()
	}
}
