package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/a11y-dev/cwac-operator/hack/bench/benchbucket"
	"github.com/a11y-dev/cwac-operator/internal/testutil/seaweedfs"
)

// bucketFigures stores the big results directory in a bucket of a real S3
// server (SeaweedFS, $SEAWEEDFS, on loopback) and fetches it back, through
// the results bucket's store and through a bare minio-go client copying
// the same files: each in its own process on one core, its wall time and
// peak memory beside the bare client's, as ratios. Each case runs twice,
// forward then backward, and keeps its lesser wall time: one round swung
// 3× with the order the server grew its volumes in (up to 64 of 64 MiB,
// room for the four copies of a 1,000,000-row directory).
func bucketFigures(d *dataset) error {
	readcase := filepath.Join(d.root, "readcase")
	if err := buildTool(readcase, "./bench/readcase"); err != nil {
		return fmt.Errorf("building readcase: %w", err)
	}
	return withServers(filepath.Join(d.root, "bucket-server"), func(t *serverTB) error {
		srv := seaweedfs.Start(t, false)
		srv.MakeBucket(t, "bench")
		undo, err := benchbucket.Give(srv.Config(t, srv.Admin, "bench", ""))
		if err != nil {
			return err
		}
		defer undo()
		// Each case beside the bare client doing the same, which goes first.
		const bareUpload, bareDownload = "bare-upload", "bare-download"
		cases := []struct{ name, bare, label string }{
			{bareUpload, bareUpload, "upload, bare minio-go FPutObject per file (baseline)"},
			{"bucket-upload", bareUpload, "upload, the results store (objectstore.Upload)"},
			{bareDownload, bareDownload, "download, bare minio-go FGetObject per key (baseline)"},
			{"bucket-download", bareDownload, "download, the results store (objectstore.Download)"},
		}
		figures := map[string]processFigure{}
		for _, c := range cases {
			if figures[c.name], err = runCase(readcase, c.name, d.bigDir); err != nil {
				return err
			}
		}
		for _, c := range slices.Backward(cases) {
			again, err := runCase(readcase, c.name, d.bigDir)
			if err != nil {
				return err
			}
			figures[c.name] = minWall(figures[c.name], again)
		}
		tab := newTable(fmt.Sprintf("The %d-row results directory to and from a bucket (SeaweedFS on loopback; own process, GOMAXPROCS=1)", d.rows),
			"case", "wall", "CPU", "peak RSS", "wall ÷ bare client", "peak RSS ÷ bare client", "MiB/s", "answer")
		size := dirMiB(d.bigDir)
		for _, c := range cases {
			f, bare := figures[c.name], figures[c.bare]
			tab.row(c.label, ms(f.wall), ms(f.cpu), fmt.Sprintf("%.1f MiB", f.rssMiB), ratio(f.wall, bare.wall),
				fmt.Sprintf("%.2f×", f.rssMiB/max(bare.rssMiB, 1)), fmt.Sprintf("%.0f", size/f.wall.Seconds()), f.answer)
		}
		tab.flush()
		return nil
	})
}

// dirMiB is the size of the files under dir, in MiB.
func dirMiB(dir string) float64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, e os.DirEntry, err error) error {
		if err == nil && e.Type().IsRegular() {
			if info, err := e.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return float64(n) / (1 << 20)
}

// minWall is the run of the lesser wall time, with the larger peak memory.
func minWall(a, b processFigure) processFigure {
	m := a
	if b.wall < a.wall {
		m = b
	}
	m.rssMiB = max(a.rssMiB, b.rssMiB)
	return m
}
