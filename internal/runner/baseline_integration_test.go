//go:build integration

package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/report"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
	"github.com/a11y-dev/cwac-operator/internal/testutil/files"
)

// TestRunComparesWithBaseline: a scan run with a baseline writes diff.json
// and puts the counts in summary.json and the termination report; a
// baseline whose results are gone is reported, and the scan still completes.
func TestRunComparesWithBaseline(t *testing.T) {
	site := testSite(t)
	scan := scanFiles{
		overrides: allPlugins,
		urls:      "organisation,url,sector\nTest Org," + site + ",Test\n",
		defaults:  standinDefaults(t, ""),
	}
	code, first, cfg, out := runScan(context.Background(), t, scan, nil)
	if code != 0 || first.Outcome != scanpod.OutcomeComplete {
		t.Fatalf("first run: code %d, %+v\n%s", code, first, out)
	}
	// The baseline is the first run with one axe issue row less: that
	// issue is new in the second run, the rest unchanged.
	baseline := filepath.Join(t.TempDir(), first.ResultsDir)
	must(t, files.CopyDir(filepath.Join(cfg.ResultsDir, first.ResultsDir), baseline))
	axe := filepath.Join(baseline, "axe_core_audit.csv")
	data, err := os.ReadFile(axe)
	must(t, err)
	lines := bytes.SplitAfter(data, []byte("\n"))
	must(t, os.WriteFile(axe, bytes.Join(append(lines[:1:1], lines[2:]...), nil), 0o644))

	scan.baseline = baseline
	code, second, cfg2, out := runScan(context.Background(), t, scan, nil)
	if code != 0 || second.Outcome != scanpod.OutcomeComplete || second.Baseline != nil {
		t.Fatalf("second run: code %d, outcome %q, baseline problem %+v\n%s", code, second.Outcome, second.Baseline, out)
	}
	d := second.Summary.Diff
	if d == nil || d.Baseline != "week-1" || d.New != 1 || d.Fixed != 0 || d.Unchanged != second.Summary.TotalIssues-1 {
		t.Fatalf("diff in the report = %+v (total issues %d)", d, second.Summary.TotalIssues)
	}
	dir := filepath.Join(cfg2.ResultsDir, second.ResultsDir)
	var s results.Summary
	raw, err := os.ReadFile(filepath.Join(dir, results.SummaryFile))
	must(t, err)
	must(t, json.Unmarshal(raw, &s))
	if s.Diff == nil || s.Diff.New != 1 {
		t.Errorf("summary.json diff = %+v", s.Diff)
	}
	if info, err := os.Stat(filepath.Join(dir, results.DiffFile)); err != nil || info.Size() == 0 {
		t.Errorf("diff.json: %v", err)
	}
	// The trend continues the baseline's: the first run's point, then this one's.
	points, err := report.ReadTrend(os.DirFS(dir))
	if err != nil || len(points) != 2 || points[0].ResultsDir != first.ResultsDir || points[1].ResultsDir != second.ResultsDir ||
		points[1].TotalIssues != second.Summary.TotalIssues || len(points[1].Organisations) != 1 || points[1].Organisations[0].Organisation != "Test Org" {
		t.Errorf("trend.json = %+v, %v", points, err)
	}
	html, err := os.ReadFile(filepath.Join(dir, report.HTMLFile))
	must(t, err)
	if !bytes.Contains(html, []byte(`<h2 id="trend-h">Over time</h2>`)) {
		t.Error("the report has no trend section")
	}

	// A baseline mount with nothing in it: the results are gone.
	scan.baseline = t.TempDir()
	code, third, _, out := runScan(context.Background(), t, scan, nil)
	if code != 0 || third.Outcome != scanpod.OutcomeComplete || third.Summary.Diff != nil {
		t.Fatalf("third run: code %d, %+v\n%s", code, third, out)
	}
	if p := third.Baseline; p == nil || !p.ResultsMissing || !strings.Contains(p.Message, "week-1") {
		t.Errorf("baseline problem = %+v", p)
	}
}
