// Command cwac-runner launches CWAC inside a scan pod (one shard's, in a
// sharded scan), or merges a sharded scan's results in the merge pod: see
// internal/runner.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"

	"github.com/a11y-dev/cwac-operator/internal/gcpace"
	"github.com/a11y-dev/cwac-operator/internal/memlimit"
	"github.com/a11y-dev/cwac-operator/internal/runner"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

func main() {
	var cfg runner.Config
	var install string
	flag.StringVar(&install, "install", "", "copy this executable to the given path and exit (used by the scan pod's init container)")
	var deleteResults string
	flag.StringVar(&deleteResults, "delete-results", "", "empty this directory and exit (the cleanup pod of a scan whose resultsPolicy is Delete)")
	cfg.Bind(flag.CommandLine) // the scan pod's flags, scanpod.RunnerFlags
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "cwac-runner: unexpected arguments %q\n", flag.Args())
		os.Exit(scanpod.ExitRunnerError)
	}
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil)).With("component", "cwac-runner")
	if install != "" {
		if err := runner.Install(install); err != nil {
			log.Error("installing runner", "dst", install, "err", err)
			os.Exit(1)
		}
		return
	}
	if deleteResults != "" {
		n, err := runner.DeleteResults(deleteResults)
		if err != nil {
			log.Error("deleting results", "dir", deleteResults, "removed", n, "err", err)
			_ = os.WriteFile(cfg.TerminationLog, []byte(err.Error()), 0o644)
			os.Exit(1)
		}
		log.Info("deleted results", "dir", deleteResults, "removed", n)
		return
	}
	cfg.Log = log
	// The merge pod's container has the runner alone; a scan pod's shares
	// it with CWAC, whose browser is gone by the time the runner's reads
	// grow. A large comparison with a baseline is most of a merge pod's
	// 256Mi, so the collector is told of the limit before the kernel acts.
	memlimit.SetLogged(log.Info)
	// After CWAC exits, the runner reads its results once into tables
	// that are most of its memory (the report's, the issue namer's).
	gcpace.During()
	os.Exit(runner.Run(context.Background(), cfg))
}
