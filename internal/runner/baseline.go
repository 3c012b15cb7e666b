package runner

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/a11y-dev/cwac-operator/internal/report"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

// compareResults compares the scan's results in dir with the baseline's
// (cfg.BaselineDir, the baseline scan's results directory mounted
// read-only). It returns what the baseline brings to the scan's results
// (the comparison: its counts for summary.json and status, its issue ids
// and its rows as they were made for the CI reports), or why no
// comparison was made, for the termination report: the baseline's results
// are gone (its mount is empty: the kubelet creates a missing directory),
// or the comparison failed. Either way the scan's own results stand, and
// its trend continues the baseline's. The caller closes what it returns.
func compareResults(ctx context.Context, cfg Config, dir string) (baselineResults, *scanpod.BaselineProblem) {
	if !hasResultCSV(cfg.BaselineDir) {
		return baselineResults{dir: cfg.BaselineDir}, &scanpod.BaselineProblem{ResultsMissing: true, Message: fmt.Sprintf(
			"baseline %s: its results directory is empty or gone from the results volume", cfg.BaselineName)}
	}
	base, err := compareForReports(ctx, cfg, dir)
	if err != nil {
		cfg.Log.Error("comparing with the baseline", "baseline", cfg.BaselineName, "err", err)
		return base, &scanpod.BaselineProblem{Message: err.Error()}
	}
	res := base.diff
	if res.IssueIDsProblem != "" {
		cfg.Log.Error("carrying the baseline's issue ids forward", "baseline", cfg.BaselineName, "problem", res.IssueIDsProblem)
	}
	c := res.Counts
	cfg.Log.Info("compared with the baseline", "baseline", cfg.BaselineName, "new", c.New, "fixed", c.Fixed, "unchanged", c.Unchanged,
		"newDecided", res.Totals.NewDecided)
	return base, nil
}

// hasResultCSV reports whether dir holds at least one regular CSV file.
func hasResultCSV(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".csv") && e.Type().IsRegular() {
			return true
		}
	}
	return false
}

// trend is the baseline's trend (when it has one that can be read) with
// this scan's point appended.
func trend(baselineDir string, point report.TrendPoint, log *slog.Logger) []report.TrendPoint {
	var history []report.TrendPoint
	if baselineDir != "" {
		// Through an os.Root: a link planted in the baseline's results
		// cannot lead the read elsewhere.
		root, err := os.OpenRoot(baselineDir)
		if err == nil {
			history, err = report.ReadTrend(root.FS())
			_ = root.Close() // read only
		}
		if err != nil {
			log.Error("the baseline's trend cannot be read; the trend starts again here", "err", err)
			history = nil
		}
	}
	return report.AppendTrend(history, point)
}
