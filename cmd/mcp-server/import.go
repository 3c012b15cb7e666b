package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/historywriter"
	"github.com/a11y-dev/cwac-operator/internal/memlimit"
	"github.com/a11y-dev/cwac-operator/internal/store"
)

const importUsage = `usage: mcp-server import --store DSN --namespace NAMESPACE [--schedule NAME] [--cwac-image IMAGE] [--time-zone ZONE] DIR...

Records hand-run CWAC results directories in the issue history, oldest first
by the time in their names (<YYYY-MM-DD_HH-MM-SS>_<audit name>). Each DIR is
such a directory or a directory holding some. A directory already in the
store adds nothing; one older than a scan already recorded for one of its
organisations is refused (history is written oldest first).

`

// runImport is "mcp-server import": it returns the exit code (0: every
// directory recorded or already there; 1: some failed; 2: bad usage).
func runImport(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	memlimit.Set()
	return importMain(ctx, args, os.Stdout, os.Stderr, os.Getenv)
}

func importMain(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	fs := flag.NewFlagSet("mcp-server import", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { _, _ = fmt.Fprint(stderr, importUsage); fs.PrintDefaults() }
	var (
		sf   storeFlags
		opts historywriter.ImportOptions
		zone string
	)
	sf.bind(fs)
	fs.StringVar(&opts.Namespace, "namespace", "", "the namespace to record the scans in: whoever may get CwacScans there reads them (required)")
	fs.StringVar(&opts.Schedule, "schedule", "", "the schedule to group them under, as a CwacScanSchedule's scans are (optional)")
	fs.StringVar(&opts.Image, "cwac-image", "", "the CWAC image that produced them, recorded as their engine (optional)")
	fs.StringVar(&zone, "time-zone", "UTC", "the IANA time zone of the times in the directories' names (CWAC writes its machine's local time)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	usage := func(msg string) int {
		_, _ = fmt.Fprintf(stderr, "mcp-server import: %s\n", msg)
		return 2
	}
	dsn, err := sf.resolve(getenv)
	switch {
	case err != nil:
		return usage(err.Error())
	case dsn == "":
		return usage("--store (or --store-file, or $" + storeDSNVariable + ") is required")
	case opts.Namespace == "":
		return usage("--namespace is required")
	case fs.NArg() == 0:
		return usage("name at least one results directory")
	}
	loc, err := time.LoadLocation(zone)
	if err != nil {
		return usage(fmt.Sprintf("--time-zone %q: %v", zone, err))
	}
	dirs, err := historywriter.FindResultsDirs(fs.Args(), loc)
	if err != nil {
		return usage(err.Error())
	}
	st, err := store.Open(ctx, dsn)
	if err != nil {
		_, _ = fmt.Fprintf(stderr, "mcp-server import: %v\n", err)
		return 1
	}
	defer func() { _ = st.Close() }() // every directory was its own transaction
	opts.Holder = "import@" + podName()
	failed, err := historywriter.Import(ctx, st, dirs, opts, func(i historywriter.Imported) { _, _ = fmt.Fprintln(stdout, importLine(i)) })
	if err != nil {
		_, _ = fmt.Fprintf(stderr, "mcp-server import: %v\n", err)
		return 1
	}
	_, _ = fmt.Fprintf(stdout, "%d directories: %d recorded or already in the store, %d failed\n", len(dirs), len(dirs)-failed, failed)
	if failed > 0 {
		return 1
	}
	return 0
}

// importLine is what the import says of one directory.
func importLine(i historywriter.Imported) string {
	r := i.Result
	switch {
	case errors.Is(i.Err, store.ErrOutOfOrder):
		return fmt.Sprintf("%s: refused, out of order: %v", i.Dir.Path, i.Err)
	case i.Err != nil:
		return fmt.Sprintf("%s: failed: %v", i.Dir.Path, i.Err)
	case r.AlreadyStored:
		return fmt.Sprintf("%s: already in the store", i.Dir.Path)
	}
	return fmt.Sprintf("%s: recorded: %d organisations, %d issue rows, %d new, %d fixed (%d more on pages not scanned), %d reopened",
		i.Dir.Path, r.Organisations, r.IssueRows, r.New, r.Fixed, r.FixedPageNotScanned, r.Reopened)
}
