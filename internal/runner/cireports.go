package runner

import (
	"context"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/a11y-dev/cwac-operator/internal/cireport"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

// ciReportOptions is what the runner's CI reports say of the scan beyond
// its results, from what the Job builder told the runner: the CwacScan's
// name (CWAC's audit name when it was not told one), the baseline compared
// with, the scan's thresholds and the CWAC image as the tool's version.
func ciReportOptions(flags scanpod.RunnerFlags, auditName string) cireport.Options {
	scan := flags.ScanName
	if scan == "" {
		scan = auditName
	}
	return cireport.Options{Scan: scan, Baseline: flags.BaselineName, Thresholds: flags.Thresholds, ToolVersion: flags.CWACImage}
}

// writeCIReports writes results.sarif and junit.xml beside summary.json, for
// CI systems (see docs/ci.md). Each is streamed into a hidden file and
// renamed into place, so a reader never sees half a report; a report that
// cannot be written is logged, and the scan's results stand without it.
func writeCIReports(ctx context.Context, dir string, opts cireport.Options, log *slog.Logger) {
	fsys := os.DirFS(dir)
	for name, write := range map[string]func(context.Context, io.Writer, fs.FS, cireport.Options) error{
		cireport.SARIFFile: cireport.WriteSARIF,
		cireport.JUnitFile: cireport.WriteJUnit,
	} {
		if err := writeStreamed(filepath.Join(dir, name), func(w io.Writer) error { return write(ctx, w, fsys, opts) }); err != nil {
			log.Error("writing a CI report", "file", name, "err", err)
		}
	}
}

// writeStreamed writes path through write into path's hidden temporary file,
// renamed over path once whole; on error nothing is left behind.
func writeStreamed(path string, write func(io.Writer) error) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = f.Close()           // already failing
			_ = os.Remove(f.Name()) // nothing half-written stays
		}
	}()
	if err = write(f); err != nil {
		return err
	}
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
