package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/cireport"
	"github.com/a11y-dev/cwac-operator/internal/diff"
	"github.com/a11y-dev/cwac-operator/internal/report"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
	"github.com/a11y-dev/cwac-operator/internal/testutil/files"
)

// TestWriteResultsWritesCIReports: results.sarif and junit.xml are written
// beside summary.json, whole, with no temporary file left; one that cannot
// be written is logged and the rest stand.
func TestWriteResultsWritesCIReports(t *testing.T) {
	dir := t.TempDir()
	must(t, files.CopyDir(realScanDir, dir))
	log, buf := captureLog()
	if _, err := WriteResults(context.Background(), dir, results.Options{}, report.Meta{Title: "real-scan-1"}, log); err != nil {
		t.Fatal(err)
	}
	sarif, err := os.ReadFile(filepath.Join(dir, cireport.SARIFFile))
	must(t, err)
	junit, err := os.ReadFile(filepath.Join(dir, cireport.JUnitFile))
	must(t, err)
	if !strings.Contains(string(sarif), `"version": "2.1.0"`) || !strings.Contains(string(sarif), `"scan": "real-scan-1"`) ||
		!strings.Contains(string(junit), `<testsuites name="cwac real-scan-1" tests="7" failures="6"`) {
		t.Errorf("CI reports:\n%.300s\n%.300s", sarif, junit)
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if len(leftovers) != 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
	if strings.Contains(buf.String(), "CI report") {
		t.Errorf("logged: %s", buf)
	}
	// Built in the runner's one read of the results, the reports are the
	// ones cireport writes reading the audit on its own.
	for name, write := range map[string]func(context.Context, io.Writer, fs.FS, cireport.Options) error{
		cireport.SARIFFile: cireport.WriteSARIF, cireport.JUnitFile: cireport.WriteJUnit,
	} {
		var alone bytes.Buffer
		must(t, write(context.Background(), &alone, os.DirFS(dir), ciReportOptions(Config{}, "real-scan-1")))
		got, err := os.ReadFile(filepath.Join(dir, name))
		must(t, err)
		if !bytes.Equal(got, alone.Bytes()) {
			t.Errorf("%s from the runner's read differs from cireport's own (%d and %d bytes)", name, len(got), alone.Len())
		}
	}

	// A directory in junit.xml's place: logged, SARIF still written.
	dir = t.TempDir()
	must(t, files.CopyDir(realScanDir, dir))
	must(t, os.MkdirAll(filepath.Join(dir, cireport.JUnitFile, "keep"), 0o755))
	log, buf = captureLog()
	if _, err := WriteResults(context.Background(), dir, results.Options{}, report.Meta{Title: "t"}, log); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, cireport.SARIFFile)); err != nil {
		t.Error(err)
	}
	if !strings.Contains(buf.String(), "writing a CI report") || !strings.Contains(buf.String(), cireport.JUnitFile) {
		t.Errorf("log %s", buf)
	}
	leftovers, _ = filepath.Glob(filepath.Join(dir, ".*"))
	if len(leftovers) != 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}

	// Results that cannot be read fail the walk: no report of any kind is
	// left, whole or hidden.
	dir = t.TempDir()
	must(t, files.CopyDir(realScanDir, dir))
	must(t, os.WriteFile(filepath.Join(dir, "zz_broken.csv"), []byte("a,b\n1,2,3\n"), 0o644))
	log, _ = captureLog()
	if _, err := WriteResults(context.Background(), dir, results.Options{}, report.Meta{Title: "t"}, log); err == nil {
		t.Fatal("results with a broken CSV were read")
	}
	for _, name := range []string{cireport.SARIFFile, cireport.JUnitFile, diff.IssueIDsFile} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("%s written from results that could not be read", name)
		}
	}
	leftovers, _ = filepath.Glob(filepath.Join(dir, ".*"))
	if len(leftovers) != 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}

	// A row the CI reports cannot read (a viewport that is no size): the
	// summary and the HTML report stand, neither CI report is written, and
	// the log says why.
	dir = t.TempDir()
	must(t, files.CopyDir(realScanDir, dir))
	axe := filepath.Join(dir, cireport.AxeAuditFile)
	data, err := os.ReadFile(axe)
	must(t, err)
	must(t, os.WriteFile(axe, []byte(strings.Replace(string(data), "{'width': 320, 'height': 450}", "{'width': 'wide'}", 1)), 0o644))
	log, buf = captureLog()
	if _, err := WriteResults(context.Background(), dir, results.Options{}, report.Meta{Title: "t"}, log); err != nil {
		t.Fatalf("one row the CI reports cannot read failed the results: %v", err)
	}
	for _, name := range []string{cireport.SARIFFile, cireport.JUnitFile} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("%s written from results with an unreadable row", name)
		}
	}
	if !strings.Contains(buf.String(), "writing the CI reports") || !strings.Contains(buf.String(), "row ") {
		t.Errorf("log %s", buf)
	}
	for _, name := range []string{results.SummaryFile, report.HTMLFile} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	leftovers, _ = filepath.Glob(filepath.Join(dir, ".*"))
	if len(leftovers) != 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

// TestCIReportsDescribeTheScan: the reports the runner writes carry what
// the Job builder told it of the scan (its flags, parsed as the scan pod
// parses them): the CwacScan's name rather than CWAC's audit name, the
// baseline it was compared with, its thresholds and the CWAC image. A
// baseline that could not be compared is not named.
func TestCIReportsDescribeTheScan(t *testing.T) {
	var flags scanpod.RunnerFlags
	set := flag.NewFlagSet("runner", flag.ContinueOnError)
	flags.Bind(set)
	must(t, set.Parse([]string{
		"--baseline-dir=/baseline", "--baseline-name=nightly-1", "--scan-name=nightly-2",
		"--threshold=maxTotalIssues=10", "--threshold=maxIssuesByImpact.critical=0", "--cwac-image=cwac:1.2",
	}))
	for _, tc := range []struct {
		name         string
		compared     bool
		wantBaseline bool
	}{
		{"compared with the baseline", true, true},
		{"the baseline's results unusable", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			must(t, files.CopyDir(realScanDir, dir))
			var base baselineResults
			if tc.compared {
				base.diff = &diff.Result{Counts: results.DiffCounts{Baseline: "nightly-1"}}
			}
			log, _ := captureLog()
			_, err := writeResults(context.Background(), dir, results.Options{}, report.Meta{Title: "real-scan-1"}, log, base, nil,
				ciReportOptions(Config{RunnerFlags: flags}, "real-scan-1"))
			must(t, err)
			junit, err := os.ReadFile(filepath.Join(dir, cireport.JUnitFile))
			must(t, err)
			for _, want := range []string{
				`<testsuites name="cwac nightly-2"`,
				`<property name="cwac.scan" value="nightly-2">`,
				`<property name="cwac.version" value="cwac:1.2">`,
				`<property name="cwac.threshold.maxTotalIssues" value="10">`,
				`<property name="cwac.threshold.maxIssuesByImpact.critical" value="0">`,
			} {
				if !strings.Contains(string(junit), want) {
					t.Errorf("junit.xml lacks %s:\n%.1200s", want, junit)
				}
			}
			if named := strings.Contains(string(junit), `<property name="cwac.baseline" value="nightly-1">`); named != tc.wantBaseline {
				t.Errorf("junit.xml names the baseline: %v, want %v", named, tc.wantBaseline)
			}
			var sarif struct {
				Runs []struct {
					Tool struct {
						Driver struct{ Version string }
					}
					Properties struct {
						Scan, Baseline string
						Thresholds     map[string]string
					}
				}
			}
			data, err := os.ReadFile(filepath.Join(dir, cireport.SARIFFile))
			must(t, err)
			must(t, json.Unmarshal(data, &sarif))
			if len(sarif.Runs) != 1 {
				t.Fatalf("%d SARIF runs", len(sarif.Runs))
			}
			run := sarif.Runs[0]
			wantThresholds := map[string]string{"maxTotalIssues": "10", "maxIssuesByImpact.critical": "0"}
			if run.Properties.Scan != "nightly-2" || run.Tool.Driver.Version != "cwac:1.2" || !maps.Equal(run.Properties.Thresholds, wantThresholds) ||
				(run.Properties.Baseline == "nightly-1") != tc.wantBaseline {
				t.Errorf("SARIF run: version %q, properties %+v", run.Tool.Driver.Version, run.Properties)
			}
		})
	}
}

// TestIssueIDsNotWritten: when the issue ids cannot be written, the log
// says so, both CI reports stand, and neither the ids file nor its hidden
// file is left.
func TestIssueIDsNotWritten(t *testing.T) {
	dir := t.TempDir()
	must(t, files.CopyDir(realScanDir, dir))
	log, buf := captureLog()
	c := startCIReports(dir, ciReportOptions(Config{}, "t"), log)
	if c == nil {
		t.Fatalf("CI reports did not start: %s", buf)
	}
	must(t, c.ids.Close()) // every write of the ids now fails
	summary, b := results.NewSummaryBuilder(results.Options{}), report.NewBuilder()
	must(t, results.Walk(context.Background(), os.DirFS(dir), c.visitors(summary, b)...))
	c.finish(context.Background(), true)
	for _, name := range []string{cireport.SARIFFile, cireport.JUnitFile} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, diff.IssueIDsFile)); err == nil {
		t.Errorf("%s written though its writes failed", diff.IssueIDsFile)
	}
	if !strings.Contains(buf.String(), "writing the issues' ids") || !strings.Contains(buf.String(), "file already closed") {
		t.Errorf("log %s", buf)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(dir, ".*")); len(leftovers) != 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

// TestIssueIDsSpooledWhileNamed: a scan named with no ids known keeps the
// ids it gives in a hidden spool beside the results while the walk runs
// (cireport.Spool), gone once it ends, and names its issues as the
// comparison without a baseline does.
func TestIssueIDsSpooledWhileNamed(t *testing.T) {
	dir := t.TempDir()
	must(t, files.CopyDir(realScanDir, dir))
	log, buf := captureLog()
	var cfg Config
	cfg.ScanNamespace = "a11y"
	c := startCIReports(dir, ciReportOptions(cfg, "t"), log)
	if c == nil {
		t.Fatalf("CI reports did not start: %s", buf)
	}
	if c.spool == nil || filepath.Dir(c.spool.Name()) != dir || !strings.HasPrefix(filepath.Base(c.spool.Name()), ".") {
		t.Fatalf("no hidden spool beside the results: %v", c.spool)
	}
	spool := c.spool.Name()
	summary, b := results.NewSummaryBuilder(results.Options{}), report.NewBuilder()
	must(t, results.Walk(context.Background(), os.DirFS(dir), c.visitors(summary, b)...))
	if _, err := os.Stat(spool); err != nil {
		t.Errorf("the spool after the walk: %v", err)
	}
	c.finish(context.Background(), true)
	if _, err := os.Stat(spool); err == nil {
		t.Error("the spool is left after the reports are written")
	}
	got, err := diff.ReadIssueIDs(os.DirFS(dir))
	must(t, err)
	want, err := diff.Compare(context.Background(), os.DirFS(t.TempDir()), os.DirFS(dir), diff.Options{Namespace: "a11y"})
	must(t, err)
	wantIDs, err := want.IssueIDs.All()
	must(t, err)
	if len(got) == 0 || !slices.Equal(got, wantIDs) {
		t.Errorf("ids %v, want %v as the comparison names them", got, wantIDs)
	}
}

// TestCIReportsTakeTheComparisonFromItsRows: with a baseline, the CI
// reports take the baseline states and the fixed issues from the
// comparison's rows as they were made, not from diff.json (moved away
// while the results are written here): the reports are what reading
// diff.json back gives, and the comparison's spool is gone afterwards.
func TestCIReportsTakeTheComparisonFromItsRows(t *testing.T) {
	tests := []struct {
		name         string
		reversed     bool // the scan has the issues the baseline lacks
		state        string
		wantStateNum int
	}{
		{name: "fixed since the baseline", state: "absent", wantStateNum: 2},
		{name: "new since the baseline", reversed: true, state: "new", wantStateNum: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			baseline, current := twoScans(t)
			if tc.reversed {
				baseline, current = current, baseline
			}
			log, logged := captureLog()
			cfg := Config{RunnerFlags: scanpod.RunnerFlags{BaselineDir: baseline, BaselineName: "week-1", ScanNamespace: "a11y"}, Log: log}
			base, problem := compareResults(context.Background(), cfg, current)
			if problem != nil {
				t.Fatal(problem.Message)
			}
			if base.forReports == nil {
				t.Fatalf("the comparison's rows were not kept for the CI reports: %s", logged)
			}
			diffPath := filepath.Join(current, results.DiffFile)
			aside := filepath.Join(t.TempDir(), results.DiffFile)
			must(t, os.Rename(diffPath, aside))
			_, err := writeResults(context.Background(), current, results.Options{}, report.Meta{Title: "week-2"}, log, base, nil,
				ciReportOptions(cfg, "week-2"))
			must(t, err)
			assertNoScratch(t, current)
			written, err := os.ReadFile(filepath.Join(current, cireport.SARIFFile))
			if err != nil {
				t.Fatalf("no SARIF written: %v\n%s", err, logged)
			}
			states := map[string]int{}
			for _, r := range readSARIFResults(t, current) {
				states[r.BaselineState]++
			}
			if states[tc.state] != tc.wantStateNum || states["unchanged"] == 0 || len(states) != 2 {
				t.Errorf("baseline states %v, want %d %s and the rest unchanged", states, tc.wantStateNum, tc.state)
			}

			must(t, os.Rename(aside, diffPath))
			var fromFile bytes.Buffer
			must(t, cireport.WriteSARIF(context.Background(), &fromFile, os.DirFS(current), ciReportOptions(cfg, "week-2")))
			if !bytes.Equal(written, fromFile.Bytes()) {
				t.Errorf("SARIF from the comparison's rows differs from SARIF from diff.json:\n%s\n---\n%s", written, fromFile.Bytes())
			}
		})
	}
}
