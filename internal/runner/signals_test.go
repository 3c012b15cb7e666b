package runner

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/report"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/testutil/files"
)

// summary.json carries the signals, each list cut to
// results.SummarySignalItems, read in the same walk as the rest.
func TestWriteResultsWritesSignals(t *testing.T) {
	dir := t.TempDir()
	must(t, files.CopyDir("../results/testdata/signals-scan", dir))
	log, _ := captureLog()
	s, err := WriteResults(context.Background(), dir, results.Options{}, report.Meta{Title: "signals"}, log)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, results.SummaryFile))
	must(t, err)
	saved, err := results.ReadSummary(data)
	must(t, err)
	for _, sum := range []*results.Summary{s, saved} {
		sig := sum.Signals
		if sig == nil || sig.Templates.TemplateIssues != 4 || len(sig.Templates.Issues) != 4 || sig.Titles.MissingOrEmpty != 1 ||
			sig.Titles.DuplicateTitles != 1 || sig.Responses.Responses != 4 || len(sig.Responses.ByOrganisation) != 3 || sig.Readability.Pages != 4 {
			t.Fatalf("signals = %+v", sig)
		}
	}
}
