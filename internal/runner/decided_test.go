package runner

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/cireport"
	"github.com/a11y-dev/cwac-operator/internal/decision"
	"github.com/a11y-dev/cwac-operator/internal/report"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
	"github.com/a11y-dev/cwac-operator/internal/testutil/files"
)

// TestWriteResultsDecided: the exported entry judges the results as a
// scan pod given the decisions does: the decided rule's issues leave the
// total and are counted apart; none when the decisions are another
// namespace's or past their review.
func TestWriteResultsDecided(t *testing.T) {
	at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	log, _ := captureLog()
	dir := t.TempDir()
	must(t, files.CopyDir(realScanDir, dir))
	plain, err := WriteResults(context.Background(), dir, results.Options{}, report.Meta{Title: "t"}, log)
	must(t, err)
	alt := decision.Decision{Ref: "a11y/alt", Namespace: "a11y", Organisation: "CWAC Test Org", Kind: decision.WontFix, Reason: "r",
		Rule: "image-alt", DecidedAt: at.Add(-time.Hour)}
	for _, tc := range []struct {
		name      string
		namespace string
		reviewBy  time.Time
		decided   bool
	}{
		{"the scan's namespace", "a11y", time.Time{}, true},
		{"another namespace", "other", time.Time{}, false},
		{"past its review", "a11y", at, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := alt
			d.ReviewBy = tc.reviewBy
			got, err := WriteResultsDecided(context.Background(), dir, results.Options{}, report.Meta{Title: "t"}, log,
				tc.namespace, []decision.Decision{d}, at)
			must(t, err)
			if got.TotalIssues+got.DecidedIssues != plain.TotalIssues || (got.DecidedIssues > 0) != tc.decided {
				t.Errorf("%d issues and %d decided, of %d: decided %v", got.TotalIssues, got.DecidedIssues, plain.TotalIssues, tc.decided)
			}
		})
	}
}

// TestKeepDecisions: the decisions read from the scan's ConfigMap are kept
// beside its results byte for byte, for the history and reports built
// later; a scan without decisions keeps no file; a file that cannot be
// written is logged and stops nothing.
func TestKeepDecisions(t *testing.T) {
	at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	file, _, err := scanpod.EncodeDecisions([]decision.Decision{{Ref: "a11y/alt", Organisation: "O", Kind: decision.WontFix, Reason: "r",
		Rule: "image-alt", DecidedAt: at.Add(-time.Hour)}}, at, 1<<20)
	must(t, err)
	cm := t.TempDir()
	writeScanConfig(t, cm, string(file))
	in, err := readScanInput(cm, "a11y")
	must(t, err)
	log, logged := captureLog()
	out := t.TempDir()
	in.decisions.keep(out, log)
	kept, err := os.ReadFile(filepath.Join(out, scanpod.DecisionsFile))
	must(t, err)
	if string(kept) != string(file) {
		t.Errorf("kept %q, want the ConfigMap's file %q", kept, file)
	}
	none := t.TempDir()
	scanDecisions{}.keep(none, log)
	if entries, _ := os.ReadDir(none); len(entries) != 0 {
		t.Errorf("a scan without decisions kept %d files", len(entries))
	}
	in.decisions.keep(filepath.Join(none, "missing"), log)
	if !strings.Contains(logged.String(), "keeping the scan's decisions") {
		t.Errorf("a file that could not be written was not logged: %q", logged.String())
	}
}

// writeScanConfig writes a scan's ConfigMap files into dir: its overrides,
// one site, and decisions.json when decisions is not empty.
func writeScanConfig(t *testing.T, dir string, decisions string) {
	t.Helper()
	must(t, os.WriteFile(filepath.Join(dir, scanpod.OverridesFile), []byte(`{"audit_name": "weekly"}`), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, scanpod.URLsFile), []byte("organisation,url,sector\nO,https://example.govt.nz/,S\n"), 0o644))
	if decisions != "" {
		must(t, os.WriteFile(filepath.Join(dir, scanpod.DecisionsFile), []byte(decisions), 0o644))
	}
}

// TestReadScanDecisions: a ConfigMap without decisions.json decides
// nothing; one with the file gives its decisions for the scan's namespace,
// as of the file's instant; a file that cannot be read stops the scan
// before CWAC runs, saying which file.
func TestReadScanDecisions(t *testing.T) {
	at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	good, _, err := scanpod.EncodeDecisions([]decision.Decision{{Ref: "a11y/alt", Organisation: "O", Kind: decision.WontFix, Reason: "r",
		Rule: "image-alt", DecidedAt: at.Add(-time.Hour)}}, at, 1<<20)
	must(t, err)
	for _, tc := range []struct {
		name, file string
		want       int
		wantErr    string
	}{
		{"no file", "", 0, ""},
		{"one decision", string(good), 1, ""},
		{"not the format", `{"version":1,"decisions":[{"kind":"Ignore"}]}`, 0, "decisions.json: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeScanConfig(t, dir, tc.file)
			in, err := readScanInput(dir, "a11y")
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want one naming %q", err, tc.wantErr)
				}
				return
			}
			must(t, err)
			d := in.decisions
			if d.count != tc.want || (tc.want > 0) != (d.set != nil) || (tc.want > 0 && !d.at.Equal(at)) {
				t.Fatalf("%d decisions as of %v, want %d as of %v", d.count, d.at, tc.want, at)
			}
			if tc.want > 0 && !d.covered(decision.Finding{Namespace: "a11y", Organisation: "O", Rule: "image-alt", URL: "https://example.govt.nz/"}) {
				t.Error("the decision covers nothing of its namespace")
			}
			if d.covered(decision.Finding{Namespace: "other", Organisation: "O", Rule: "image-alt", URL: "https://example.govt.nz/"}) {
				t.Error("a decision covers another namespace's finding")
			}
		})
	}
}

// TestScanDecisionsApplied: the second of two weekly scans, given a
// decision about the image-alt rule across its organisation, counts the
// rule's new issues as decided, not new (so maxNewIssues and the NewIssues
// notification pass them by); its report and leaderboard leave the rule's
// issues out of counts and scores and say how many; SARIF suppresses each
// of its results with the decision's reason; JUnit skips its cases.
func TestScanDecisionsApplied(t *testing.T) {
	root := t.TempDir()
	week1, week2 := filepath.Join(root, "week-1"), filepath.Join(root, "week-2")
	must(t, files.CopyDir(realScanDir, week1))
	flags := scanpod.RunnerFlags{ScanName: "weekly", ScanNamespace: "a11y"}
	log, _ := captureLog()
	_, err := writeResults(context.Background(), week1, results.Options{}, report.Meta{Title: "week-1"}, log, baselineResults{}, nil,
		ciReportOptions(Config{RunnerFlags: flags}, "week-1"))
	must(t, err)
	must(t, files.CopyDir(realScanDir, week2))
	// The photo replaced and moved: its image-alt issues are new.
	editAxe(t, week2, map[string]string{`src=""photo.jpg""`: `src=""photo-2.jpg""`, `/html/body/main/img`: `/html/body/main/figure/img`})
	flags.BaselineDir, flags.BaselineName = week1, "week-1"

	at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	decisions := scanDecisions{set: decision.NewSet([]decision.Decision{{Ref: "a11y/alt", Namespace: "a11y", Organisation: "CWAC Test Org",
		Kind: decision.FalsePositive, Reason: "the images are decorative", DecidedBy: "alice", Rule: "image-alt", DecidedAt: at}}), at: at, count: 1}
	plainBase, problem := compareResults(context.Background(), Config{RunnerFlags: flags, Log: log}, week2)
	if problem != nil {
		t.Fatal(problem.Message)
	}
	plainBase.close()
	cfg := Config{RunnerFlags: flags, Log: log, decisions: decisions}
	base, problem := compareResults(context.Background(), cfg, week2)
	if problem != nil {
		t.Fatal(problem.Message)
	}
	plain, res := plainBase.diff, base.diff
	if plain.Counts.New != 2 || res.Counts.New != 0 || res.Totals.NewDecided != 2 || res.Counts.Fixed != plain.Counts.Fixed {
		t.Fatalf("new %d (without the decision %d), decided %d, fixed %d (%d): want the 2 new image-alt issues decided",
			res.Counts.New, plain.Counts.New, res.Totals.NewDecided, res.Counts.Fixed, plain.Counts.Fixed)
	}
	undecided, err := results.Summarize(week2, results.Options{})
	must(t, err)
	sum, err := writeResults(context.Background(), week2, results.Options{}, report.Meta{Title: "week-2"}, log,
		base, nil, ciReportOptions(cfg, "week-2"))
	must(t, err)
	// The summary (status, thresholds, metrics) counts the 4 image-alt
	// issues apart, in no total a threshold gates on.
	if sum.DecidedIssues != 4 || sum.TotalIssues != undecided.TotalIssues-4 || sum.PagesScanned != undecided.PagesScanned {
		t.Errorf("summary: %d issues, %d decided, %d pages; without decisions %d issues, %d pages: want 4 decided out of the total",
			sum.TotalIssues, sum.DecidedIssues, sum.PagesScanned, undecided.TotalIssues, undecided.PagesScanned)
	}
	for _, v := range sum.TopViolations {
		if v.ID == "image-alt" {
			t.Errorf("the summary's top violations list the decided rule: %+v", v)
		}
	}
	var written results.Summary
	data, err := os.ReadFile(filepath.Join(week2, results.SummaryFile))
	must(t, err)
	must(t, json.Unmarshal(data, &written))
	if written.DecidedIssues != 4 || written.TotalIssues != sum.TotalIssues {
		t.Errorf("summary.json: %d issues, %d decided; want %d and 4", written.TotalIssues, written.DecidedIssues, sum.TotalIssues)
	}

	board, err := os.ReadFile(filepath.Join(week2, report.LeaderboardFile))
	must(t, err)
	lines := strings.Split(strings.TrimSpace(string(board)), "\n")
	if !strings.HasSuffix(lines[0], `"decided"`) || !strings.HasSuffix(lines[1], `,"4"`) {
		t.Errorf("leaderboard.csv does not count the 4 decided image-alt rows:\n%s", board)
	}
	html, err := os.ReadFile(filepath.Join(week2, report.HTMLFile))
	must(t, err)
	if !strings.Contains(string(html), `<p id="decided">`) {
		t.Error("the report does not say how many issues decisions left out")
	}

	var sarif struct {
		Runs []struct {
			Results []struct {
				RuleID        string
				BaselineState string
				Suppressions  []struct{ Kind, Status, Justification string }
			}
		}
	}
	data, err = os.ReadFile(filepath.Join(week2, cireport.SARIFFile))
	must(t, err)
	must(t, json.Unmarshal(data, &sarif))
	suppressed := 0
	for _, r := range sarif.Runs[0].Results {
		isAlt := r.RuleID == "image-alt" && r.BaselineState != "absent"
		if isAlt != (len(r.Suppressions) == 1) {
			t.Errorf("%s (%s): %d suppressions", r.RuleID, r.BaselineState, len(r.Suppressions))
		}
		if isAlt && r.Suppressions[0].Justification == "the images are decorative" {
			suppressed++
		}
	}
	if suppressed != 4 {
		t.Errorf("%d image-alt results suppressed with the reason, want 4", suppressed)
	}

	var junit struct {
		Suites []struct {
			Skipped int `xml:"skipped,attr"`
			Cases   []struct {
				Name    string    `xml:"name,attr"`
				Skipped *struct{} `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	data, err = os.ReadFile(filepath.Join(week2, cireport.JUnitFile))
	must(t, err)
	must(t, xml.Unmarshal(data, &junit))
	skipped := 0
	for _, c := range junit.Suites[0].Cases {
		if (c.Name == "image-alt") != (c.Skipped != nil) {
			t.Errorf("case %s: skipped %v", c.Name, c.Skipped != nil)
		}
		if c.Skipped != nil {
			skipped++
		}
	}
	if skipped == 0 || junit.Suites[0].Skipped != skipped {
		t.Errorf("%d cases skipped, the suite says %d", skipped, junit.Suites[0].Skipped)
	}
}
