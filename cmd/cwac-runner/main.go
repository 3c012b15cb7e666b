// Command cwac-runner launches CWAC inside a scan pod: see internal/runner.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"

	"github.com/a11y-dev/cwac-operator/internal/runner"
)

func main() {
	var cfg runner.Config
	var install string
	flag.StringVar(&install, "install", "", "copy this executable to the given path and exit (used by the scan pod's init container)")
	flag.StringVar(&cfg.CWACDir, "cwac-dir", "/cwac", "CWAC's installed tree (read-only is fine)")
	flag.StringVar(&cfg.ScanDir, "scan-dir", "/scan", "directory holding the scan's "+runner.OverridesFile+" and "+runner.URLsFile+" (the mounted ConfigMap)")
	flag.StringVar(&cfg.ResultsDir, "results-dir", "/results", "this scan's directory on the results volume; CWAC's results directory is created inside it")
	flag.StringVar(&cfg.WorkDir, "work-dir", "/tmp/cwac-work", "where to build CWAC's writable working tree (emptied first)")
	flag.StringVar(&cfg.TerminationLog, "termination-log", "/dev/termination-log", "where to write the JSON report the operator reads")
	flag.StringVar(&cfg.Python, "python", "", "Python interpreter (default: <cwac-dir>/.venv/bin/python if present, else python3)")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "cwac-runner: unexpected arguments %q\n", flag.Args())
		os.Exit(runner.ExitRunnerError)
	}
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil)).With("component", "cwac-runner")
	if install != "" {
		if err := runner.Install(install); err != nil {
			log.Error("installing runner", "dst", install, "err", err)
			os.Exit(1)
		}
		return
	}
	cfg.Log = log
	os.Exit(runner.Run(context.Background(), cfg))
}
