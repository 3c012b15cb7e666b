package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/cireport"
	"github.com/a11y-dev/cwac-operator/internal/diff"
	"github.com/a11y-dev/cwac-operator/internal/report"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
	"github.com/a11y-dev/cwac-operator/internal/testutil/files"
)

// sarifResult is what the identity test reads of a SARIF result.
type sarifResult struct {
	RuleID              string
	BaselineState       string
	PartialFingerprints map[string]string
	Locations           []struct {
		PhysicalLocation struct {
			ArtifactLocation struct{ URI string }
		}
	}
	Properties struct{ ViewportWidth int }
}

func (r sarifResult) issue() string {
	return fmt.Sprint(r.Locations[0].PhysicalLocation.ArtifactLocation.URI, " ", r.Properties.ViewportWidth, " ", r.RuleID)
}

func readSARIFResults(t *testing.T, dir string) []sarifResult {
	t.Helper()
	var log struct {
		Runs []struct{ Results []sarifResult }
	}
	data, err := os.ReadFile(filepath.Join(dir, cireport.SARIFFile))
	must(t, err)
	must(t, json.Unmarshal(data, &log))
	return log.Runs[0].Results
}

// editAxe rewrites the axe audit of dir, replacing old with new (CSV-quoted
// text) on every line that has it; new "" drops the line.
func editAxe(t *testing.T, dir string, edits map[string]string) {
	t.Helper()
	path := filepath.Join(dir, "axe_core_audit.csv")
	data, err := os.ReadFile(path)
	must(t, err)
	var out [][]byte
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		keep := true
		for old, repl := range edits {
			if bytes.Contains(line, []byte(old)) {
				if repl == "" {
					keep = false
					break
				}
				line = bytes.ReplaceAll(line, []byte(old), []byte(repl))
			}
		}
		if keep {
			out = append(out, line)
		}
	}
	must(t, os.WriteFile(path, bytes.Join(out, nil), 0o644))
}

// TestIssueIDsAcrossWeeks: two weekly scans through the runner, the second
// compared with the first, on a site where one element was edited (a class
// added), one moved (its XPath renumbered) and one fixed. Every SARIF
// result the second scan marks unchanged keeps the fingerprint the first
// scan gave it; the fixed issue's absent result carries its fingerprint
// too; and each scan keeps its ids as issue_ids.txt, in the order of its
// results.
func TestIssueIDsAcrossWeeks(t *testing.T) {
	root := t.TempDir()
	week1, week2 := filepath.Join(root, "week-1"), filepath.Join(root, "week-2")
	must(t, files.CopyDir(realScanDir, week1))
	flags := scanpod.RunnerFlags{ScanName: "weekly", ScanNamespace: "a11y"}
	log, _ := captureLog()
	_, err := writeResults(context.Background(), week1, results.Options{}, report.Meta{Title: "week-1"}, log, baselineResults{}, nil,
		ciReportOptions(Config{RunnerFlags: flags}, "week-1"))
	must(t, err)

	must(t, files.CopyDir(realScanDir, week2))
	editAxe(t, week2, map[string]string{
		`class=""faint""`:       `class=""faint lead""`,
		`/html/body/main/p/a`:   `/html/body/main/div/p/a`,
		`<img src=""logo.png""`: "",
	})
	flags.BaselineDir, flags.BaselineName = week1, "week-1"
	cfg := Config{RunnerFlags: flags, Log: log}
	base, problem := compareResults(context.Background(), cfg, week2)
	if problem != nil {
		t.Fatal(problem.Message)
	}
	_, err = writeResults(context.Background(), week2, results.Options{}, report.Meta{Title: "week-2"}, log,
		base, nil, ciReportOptions(Config{RunnerFlags: flags}, "week-2"))
	must(t, err)

	first := map[string]string{}
	for _, r := range readSARIFResults(t, week1) {
		first[r.issue()] = r.PartialFingerprints[cireport.FingerprintKey]
	}
	if len(first) != 12 {
		t.Fatalf("week 1: %d distinct issues, want the 12 axe issue rows", len(first))
	}
	states := map[string]int{}
	for _, r := range readSARIFResults(t, week2) {
		states[r.BaselineState]++
		fp := r.PartialFingerprints[cireport.FingerprintKey]
		if want := first[r.issue()]; fp != want {
			t.Errorf("%s (%s): fingerprint %s, want week 1's %s", r.issue(), r.BaselineState, fp, want)
		}
	}
	if states["unchanged"] != 10 || states["absent"] != 2 || len(states) != 2 {
		t.Errorf("week 2's results by baseline state %v, want 10 unchanged (4 of them edited or moved) and 2 absent", states)
	}
	for _, dir := range []string{week1, week2} {
		root, err := os.OpenRoot(dir)
		must(t, err)
		ids, err := diff.ReadIssueIDs(root.FS())
		_ = root.Close()
		must(t, err)
		var want []string
		for _, r := range readSARIFResults(t, dir) {
			if r.BaselineState != "absent" {
				want = append(want, r.PartialFingerprints[cireport.FingerprintKey])
			}
		}
		if len(ids) != len(want) {
			t.Fatalf("%s: %d ids kept for %d results", dir, len(ids), len(want))
		}
		for i := range ids {
			if ids[i].String() != want[i] {
				t.Errorf("%s: id %d is %s, its result's fingerprint %s", dir, i, ids[i], want[i])
			}
		}
	}
}
