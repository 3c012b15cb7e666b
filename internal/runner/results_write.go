package runner

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/cireport"
	"github.com/a11y-dev/cwac-operator/internal/decision"
	"github.com/a11y-dev/cwac-operator/internal/diff"
	"github.com/a11y-dev/cwac-operator/internal/plainjson"
	"github.com/a11y-dev/cwac-operator/internal/report"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

// WriteResults reads CWAC's results in dir once (results.Walk feeding the
// summary, the row index the MCP server pages with, the report builder and
// the CI reports) and writes what is built beside them: summary.json, the
// row index, report.html, leaderboard.csv, results.sarif and junit.xml.
// Only a failure to read the results is an error; a file that cannot be
// written is logged, and the scan's results stand without it.
func WriteResults(ctx context.Context, dir string, opts results.Options, meta report.Meta, log *slog.Logger) (*results.Summary, error) {
	return writeResults(ctx, dir, opts, meta, log, baselineResults{}, nil, ciReportOptions(Config{}, meta.Title))
}

// WriteResultsDecided is WriteResults for a scan of the namespace judged
// by the decisions as of the instant at, as a scan pod given them writes
// its results (for tools and benchmarks: a scan pod reads its decisions
// from its ConfigMap).
func WriteResultsDecided(ctx context.Context, dir string, opts results.Options, meta report.Meta, log *slog.Logger,
	namespace string, decisions []decision.Decision, at time.Time) (*results.Summary, error) {
	cfg := Config{RunnerFlags: scanpod.RunnerFlags{ScanNamespace: namespace},
		decisions: scanDecisions{set: decision.NewSet(decisions), at: at, count: len(decisions)}}
	return writeResults(ctx, dir, opts, meta, log, baselineResults{}, nil, ciReportOptions(cfg, meta.Title))
}

// WriteResultsCompared is WriteResults for a scan compared with the
// baseline whose results are in baselineDir, as a scan pod with a baseline
// writes its results: the comparison (diff.json, the issue ids carried),
// then the walk (for tools and benchmarks). A baseline that cannot be
// compared is an error here.
func WriteResultsCompared(ctx context.Context, dir, baselineDir string, opts results.Options, meta report.Meta,
	log *slog.Logger) (*results.Summary, error) {
	cfg := Config{RunnerFlags: scanpod.RunnerFlags{BaselineName: filepath.Base(baselineDir), BaselineDir: baselineDir}, Log: log}
	base, err := compareForReports(ctx, cfg, dir)
	if err != nil {
		return nil, err
	}
	return writeResults(ctx, dir, opts, meta, log, base, nil, ciReportOptions(cfg, meta.Title))
}

// baselineResults is what a scan with a baseline brings to its results: the
// comparison (nil: none), what it gave the CI reports as it was made, and
// the baseline's results directory, whose trend.json the scan's trend
// continues.
type baselineResults struct {
	diff *diff.Result
	dir  string
	// forReports is the comparison's rows as the CI reports take them (nil:
	// they read diff.json back); its fixed rows are spooled to
	// forReportsSpool, a hidden file beside the results that close removes.
	forReports      *cireport.Comparison
	forReportsSpool *os.File
}

// compareForReports compares the scan's results in dir with the
// baseline's (cfg.BaselineDir, compareWithBaseline, the scan's decisions
// counted apart), giving the CI reports the comparison's rows as they are
// made: what the baseline brings to the scan's results. On error nothing
// is left behind, and only the baseline's directory is returned (the
// scan's trend still continues the baseline's).
func compareForReports(ctx context.Context, cfg Config, dir string) (baselineResults, error) {
	base := baselineResults{dir: cfg.BaselineDir}
	base.startForReports(dir, cfg.BaselineName, cfg.Log)
	res, err := compareWithBaseline(ctx, cfg.BaselineDir, dir, cfg.BaselineName, cfg.ScanNamespace, cfg.decisions.comparisonCover(),
		base.forReports)
	if err != nil {
		base.close()
		return base, err
	}
	base.diff = res
	return base, nil
}

// startForReports spools the comparison's fixed rows for the CI reports
// into a hidden file in dir, the results volume (a large scan's can be
// hundreds of megabytes); when it cannot be created (logged), the reports
// read diff.json back instead.
func (b *baselineResults) startForReports(dir, baselineName string, log *slog.Logger) {
	f, err := createHidden(filepath.Join(dir, cireport.SARIFFile+".fixed"))
	if err != nil {
		log.Info("the CI reports will read the comparison back from its file", "file", results.DiffFile, "err", err)
		return
	}
	b.forReports, b.forReportsSpool = cireport.NewComparison(baselineName, f), f
}

// close removes the spool of the comparison's fixed rows: the CI reports
// have been written, or will not be.
func (b *baselineResults) close() {
	if b.forReportsSpool != nil {
		discardHidden(b.forReportsSpool)
		b.forReports, b.forReportsSpool = nil, nil
	}
}

// writeResults is WriteResults with what the baseline brings (the
// comparison goes into the summary and the report, and the trend continues
// the baseline's), the egress proxy's refusals (into the summary) and what
// the CI reports say of the scan (ciReportOptions).
func writeResults(ctx context.Context, dir string, opts results.Options, meta report.Meta, log *slog.Logger,
	base baselineResults, blocked *results.BlockedConnections, ci cireport.Options) (*results.Summary, error) {
	fsys := os.DirFS(dir)
	if opts.MaxLinksPerDomain == 0 {
		opts.MaxLinksPerDomain = results.MaxLinksOf(fsys) // what the scan asked of each site
	}
	summary := results.NewSummaryBuilder(opts)
	index := results.NewIndexBuilder(results.DefaultIndexEvery)
	reports := report.NewBuilder()
	if spool := spoolReportElements(reports, dir, log); spool != nil {
		defer discardHidden(spool)
	}
	defer base.close()
	if base.diff == nil {
		ci.Baseline = "" // not compared (the baseline's results were unusable): the reports name no baseline
	} else {
		ci.Comparison = base.forReports
		if base.diff.IssueIDs != nil {
			ci.IssueIDs = base.diff.IssueIDs
			defer func() { _ = base.diff.IssueIDs.Close() }() // read: its file was removed when made
		}
	}
	ciOut := startCIReports(dir, ci, log)
	if err := results.Walk(ctx, fsys, append(ciOut.visitors(summary, reports), index)...); err != nil {
		ciOut.finish(ctx, false)
		return nil, err
	}
	s := summary.Summary()
	s.Signals = reports.SummarySignals()
	if s.DurationSeconds == 0 {
		s.DurationSeconds = results.ProgressOf(fsys).ElapsedSeconds
	}
	if base.diff != nil {
		s.Diff = &base.diff.Counts
		s.Diff.ScoreDrops = scoreDrops(base.dir, reports.RankedBoard(s), log)
	}
	s.BlockedByPolicy = blocked
	meta.Trend = trend(base.dir, reports.TrendPoint(meta, s), log)
	if data, err := report.EncodeTrend(meta.Trend); err != nil {
		log.Error("encoding the trend", "err", err)
	} else if err := writeFileAtomic(filepath.Join(dir, report.TrendFile), data); err != nil {
		log.Error("writing the trend", "err", err) // the report shows it anyway
	}
	if err := writeJSON(filepath.Join(dir, results.SummaryFile), s); err != nil {
		log.Error("writing summary.json", "err", err)
	}
	if data, err := index.Index().Marshal(); err != nil {
		log.Error("encoding the row index", "err", err)
	} else if err := writeFileAtomic(filepath.Join(dir, results.RowIndexFile), data); err != nil {
		log.Error("writing the row index", "err", err) // the MCP server reads without it, more slowly
	}
	if _, err := reports.WriteFiles(meta, s, func(name string, data []byte) error {
		return os.WriteFile(filepath.Join(dir, name), data, 0o644)
	}); err != nil {
		log.Error("writing reports", "err", err)
	}
	ciOut.finish(ctx, true)
	return s, nil
}

// spoolReportElements keeps the HTML report's elements of the pages read
// before in a hidden file beside the results while the walk runs (they
// grow with the scan: 16 MB at report.MaxTrackedElements, and their
// pages' runs) and returns it,
// for the caller to remove; nil, logged, where it cannot be made: they are
// then kept in memory.
func spoolReportElements(b *report.Builder, dir string, log *slog.Logger) *os.File {
	f, err := createHidden(filepath.Join(dir, report.HTMLFile+".elements"))
	if err != nil {
		log.Info("the report's elements are kept in memory while they are told apart", "err", err)
		return nil
	}
	if err := b.SpoolElements(f); err != nil {
		discardHidden(f)
		log.Error("spooling the report's elements", "err", err)
		return nil
	}
	return f
}

// writeFileAtomic writes a file that readers may open at any moment
// whole or not at all: into a temporary name, then renamed over.
func writeFileAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func writeJSON(path string, v any) error {
	data, err := plainjson.MarshalIndent(v)
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}
