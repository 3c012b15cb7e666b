package runner

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/cireport"
	"github.com/a11y-dev/cwac-operator/internal/diff"
	"github.com/a11y-dev/cwac-operator/internal/report"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
	"github.com/a11y-dev/cwac-operator/internal/testutil/files"
)

// TestWriteResultsWithFilesInTheWay: a file WriteResults cannot write is
// logged and the others are written; the summary stands.
func TestWriteResultsWithFilesInTheWay(t *testing.T) {
	all := []string{report.TrendFile, results.SummaryFile, results.RowIndexFile, "report.html", "leaderboard.csv"}
	tests := []struct {
		blocked string // made a directory, so that it cannot be written
		missing string // the file that is then not written
		wantLog string
	}{
		{report.TrendFile + ".tmp", report.TrendFile, "writing the trend"},
		{results.SummaryFile, results.SummaryFile, "writing summary.json"},
		{results.RowIndexFile + ".tmp", results.RowIndexFile, "writing the row index"},
		{"report.html", "report.html", "writing reports"},
	}
	for _, tt := range tests {
		t.Run(tt.blocked, func(t *testing.T) {
			dir := t.TempDir()
			must(t, files.CopyDir(realScanDir, dir))
			must(t, os.Mkdir(filepath.Join(dir, tt.blocked), 0o755))
			must(t, os.WriteFile(filepath.Join(dir, tt.blocked, "keep"), nil, 0o644))
			log, buf := captureLog()
			s, err := WriteResults(context.Background(), dir, results.Options{}, report.Meta{Title: "t"}, log)
			if err != nil || s == nil || s.TotalIssues != 17 {
				t.Fatalf("WriteResults = %+v, %v; want the summary", s, err)
			}
			if !strings.Contains(buf.String(), tt.wantLog) {
				t.Errorf("log does not say %q:\n%s", tt.wantLog, buf.String())
			}
			for _, name := range all {
				info, err := os.Stat(filepath.Join(dir, name))
				written := err == nil && info.Mode().IsRegular()
				if written == (name == tt.missing) {
					t.Errorf("%s written: %v", name, written)
				}
			}
		})
	}
}

// TestWriteResultsDuration: the summary's duration is the runner's
// measure when it has one, else the one CWAC's progress.csv gives.
func TestWriteResultsDuration(t *testing.T) {
	for _, tt := range []struct {
		given, want float64
	}{{0, 18.7}, {0.1, 0.1}, {42, 42}} {
		dir := t.TempDir()
		must(t, files.CopyDir(realScanDir, dir))
		log, _ := captureLog()
		s, err := WriteResults(context.Background(), dir, results.Options{Duration: tt.given}, report.Meta{Title: "t"}, log)
		must(t, err)
		if s.DurationSeconds != tt.want {
			t.Errorf("given %v: duration %v, want %v", tt.given, s.DurationSeconds, tt.want)
		}
	}
}

// TestTrendContinuesTheBaseline: the scan's trend is the baseline's with
// this scan's point appended; a baseline trend that cannot be read starts
// the trend again, and says so.
func TestTrendContinuesTheBaseline(t *testing.T) {
	baseline := t.TempDir()
	must(t, files.CopyDir(realScanDir, baseline))
	log, _ := captureLog()
	_, err := writeResults(context.Background(), baseline, results.Options{}, report.Meta{Title: "t", GeneratedAt: time.Unix(1e9, 0)}, log,
		baselineResults{}, nil, cireport.Options{})
	must(t, err)
	broken := t.TempDir()
	must(t, os.WriteFile(filepath.Join(broken, report.TrendFile), []byte("{"), 0o644))

	tests := []struct {
		name, baseline string
		wantPoints     int
		wantLog        bool
	}{
		{name: "no baseline", wantPoints: 1},
		{name: "a baseline with a trend", baseline: baseline, wantPoints: 2},
		{name: "a baseline without one", baseline: t.TempDir(), wantPoints: 1},
		{name: "a baseline gone", baseline: filepath.Join(t.TempDir(), "gone"), wantPoints: 1, wantLog: true},
		{name: "a broken trend", baseline: broken, wantPoints: 1, wantLog: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			must(t, files.CopyDir(realScanDir, dir))
			log, buf := captureLog()
			_, err := writeResults(context.Background(), dir, results.Options{}, report.Meta{Title: "t", GeneratedAt: time.Unix(2e9, 0)}, log,
				baselineResults{dir: tt.baseline}, nil, cireport.Options{})
			must(t, err)
			points, err := report.ReadTrend(openRootT(t, dir).FS())
			must(t, err)
			if len(points) != tt.wantPoints {
				t.Errorf("%d trend points, want %d", len(points), tt.wantPoints)
			}
			if logged := strings.Contains(buf.String(), "the trend starts again here"); logged != tt.wantLog {
				t.Errorf("logged a broken trend: %v\n%s", logged, buf.String())
			}
		})
	}
}

// TestCompareResultsProblems: a baseline without results, or one the
// comparison cannot read, is a problem named in the report; the scan's
// results stand either way.
func TestCompareResultsProblems(t *testing.T) {
	tests := []struct {
		name        string
		baseline    func(t *testing.T) string
		wantMissing bool
		wantMsg     string
	}{
		{name: "gone", baseline: func(t *testing.T) string { return filepath.Join(t.TempDir(), "gone") },
			wantMissing: true, wantMsg: "baseline week-1: its results directory is empty or gone from the results volume"},
		{name: "empty (the kubelet made the mount)", baseline: func(t *testing.T) string { return t.TempDir() },
			wantMissing: true, wantMsg: "baseline week-1: its results directory is empty or gone"},
		{name: "only a directory named like a CSV", baseline: func(t *testing.T) string {
			d := t.TempDir()
			must(t, os.Mkdir(filepath.Join(d, "axe_core_audit.csv"), 0o755))
			must(t, os.WriteFile(filepath.Join(d, "notes.txt"), nil, 0o644))
			return d
		}, wantMissing: true, wantMsg: "baseline week-1: its results directory is empty or gone"},
		{name: "a CSV the comparison cannot read", baseline: func(t *testing.T) string {
			d := t.TempDir()
			must(t, files.CopyDir(realScanDir, d))
			path := filepath.Join(d, "axe_core_audit.csv")
			data, err := os.ReadFile(path)
			must(t, err)
			header, _, _ := strings.Cut(string(data), "\n")
			must(t, os.WriteFile(path, []byte(header+"\nragged\n"), 0o644))
			return d
		}, wantMissing: false, wantMsg: "comparing with baseline week-1: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			must(t, files.CopyDir(realScanDir, dir))
			log, _ := captureLog()
			cfg := Config{RunnerFlags: scanpod.RunnerFlags{BaselineDir: tt.baseline(t), BaselineName: "week-1"}, Log: log}
			base, problem := compareResults(context.Background(), cfg, dir)
			compared := base.diff != nil || base.forReports != nil || base.dir != cfg.BaselineDir
			if compared || problem == nil || problem.ResultsMissing != tt.wantMissing || !strings.HasPrefix(problem.Message, tt.wantMsg) {
				t.Fatalf("compared %+v, problem %+v; want results missing %v: %q", base, problem, tt.wantMissing, tt.wantMsg)
			}
			assertNoScratch(t, dir)
		})
	}
	// One regular CSV is enough to compare.
	baseline, current := twoScans(t)
	log, _ := captureLog()
	cfg := Config{RunnerFlags: scanpod.RunnerFlags{BaselineDir: baseline, BaselineName: "monday"}, Log: log}
	base, problem := compareResults(context.Background(), cfg, current)
	defer base.close()
	if counts := base.diff; problem != nil || counts == nil || counts.Counts.Fixed != 2 || base.forReports == nil {
		t.Errorf("compared %+v, problem %+v; want 2 fixed, and the rows kept for the CI reports", base, problem)
	}
}

// TestCompareWithBaselineCannotWriteDiff: a diff.json that cannot be put
// in place is an error, and leaves no scratch file.
func TestCompareWithBaselineCannotWriteDiff(t *testing.T) {
	baseline, current := twoScans(t)
	must(t, os.Mkdir(filepath.Join(current, results.DiffFile), 0o755))
	must(t, os.WriteFile(filepath.Join(current, results.DiffFile, "keep"), nil, 0o644))
	_, err := compareWithBaseline(context.Background(), baseline, current, "monday", "a11y", nil, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "writing diff.json: ") {
		t.Errorf("err = %v, want one writing diff.json", err)
	}
	assertNoScratch(t, current)
	if _, err := compareWithBaseline(context.Background(), baseline, filepath.Join(current, "gone"), "monday", "a11y", nil, nil); err == nil ||
		!strings.HasPrefix(err.Error(), "opening the scan's results: ") {
		t.Errorf("a missing results dir: err = %v", err)
	}
}

// TestShardDurationFromSummary: a shard's duration comes from its
// summary.json, read up to 16 MiB; one that cannot be read counts 0.
func TestShardDurationFromSummary(t *testing.T) {
	summary := func(size int) []byte {
		head := []byte(`{"duration_seconds": 12.5, "pad": "`)
		return append(append(head, bytes.Repeat([]byte("x"), size-len(head)-2)...), '"', '}')
	}
	tests := []struct {
		name string
		data []byte // nil: no summary.json
		want float64
	}{
		{name: "none", want: 0},
		{name: "not JSON", data: []byte("{"), want: 0},
		{name: "small", data: []byte(`{"duration_seconds": 3.25}`), want: 3.25},
		{name: "one byte under the limit", data: summary(maxShardSummaryBytes - 1), want: 12.5},
		{name: "at the limit", data: summary(maxShardSummaryBytes), want: 12.5},
		{name: "one byte over the limit", data: summary(maxShardSummaryBytes + 1), want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			must(t, os.Mkdir(filepath.Join(dir, "r"), 0o755))
			if tt.data != nil {
				if len(tt.data) > 100 && !json.Valid(tt.data) {
					t.Fatal("the padded summary is not JSON")
				}
				must(t, os.WriteFile(filepath.Join(dir, "r", results.SummaryFile), tt.data, 0o644))
			}
			log, buf := captureLog()
			got, _ := shardSummary(openRootT(t, dir), "r", Config{Log: log})
			if got != tt.want {
				t.Errorf("duration %v, want %v", got, tt.want)
			}
			if logged := strings.Contains(buf.String(), "the shard's duration is unknown"); logged != (tt.want == 0) {
				t.Errorf("logged unknown duration: %v", logged)
			}
		})
	}
}

// TestScoreDropsAgainstTheBaseline: a scan compared with a baseline lists
// each organisation whose leaderboard score fell, in summary.json; a
// baseline whose results cannot be read lists none, and says so.
func TestScoreDropsAgainstTheBaseline(t *testing.T) {
	// Each baseline went through the runner, which wrote its leaderboard.
	scanned := func(prepare func(dir string)) string {
		dir := t.TempDir()
		must(t, files.CopyDir(realScanDir, dir))
		prepare(dir)
		_, err := writeResults(context.Background(), dir, results.Options{}, report.Meta{Title: "t"}, slog.New(slog.DiscardHandler),
			baselineResults{}, nil, cireport.Options{})
		must(t, err)
		return dir
	}
	baseline := scanned(func(string) {})
	worse := scanned(func(dir string) { addCriticalIssues(t, filepath.Join(dir, "axe_core_audit.csv"), 2) })
	unreadable := scanned(func(string) {})
	must(t, os.WriteFile(filepath.Join(unreadable, report.LeaderboardFile), []byte("organisation,\"unterminated\n"), 0o644))
	// Its leaderboard, not its results, is read: CWAC's files of the
	// baseline could be gone or unreadable without changing the drops.
	noCSV := scanned(func(string) {})
	must(t, os.WriteFile(filepath.Join(noCSV, "axe_core_audit.csv"), []byte("organisation,\"unterminated\n"), 0o644))

	tests := []struct {
		name, dir, baseline string
		wantDrop            float64 // 0: none listed
		wantLog             bool
	}{
		{name: "score fell", dir: worse, baseline: baseline, wantDrop: 5}, // two critical issues (weight 10) over 4 pages,
		{name: "score rose", dir: baseline, baseline: worse},
		{name: "same results", dir: baseline, baseline: baseline},
		{name: "baseline gone", dir: worse, baseline: filepath.Join(t.TempDir(), "gone"), wantLog: true},
		{name: "baseline's leaderboard unreadable", dir: worse, baseline: unreadable, wantLog: true},
		{name: "baseline's results unreadable, its leaderboard not", dir: worse, baseline: noCSV, wantDrop: 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			must(t, files.CopyDir(tt.dir, dir))
			log, buf := captureLog()
			s, err := writeResults(context.Background(), dir, results.Options{}, report.Meta{Title: "t"}, log,
				baselineResults{diff: &diff.Result{Counts: results.DiffCounts{Baseline: "week-1"}}, dir: tt.baseline}, nil, cireport.Options{})
			must(t, err)
			var got []results.OrganisationScoreDrop
			if s.Diff != nil {
				got = s.Diff.ScoreDrops
			}
			switch {
			case tt.wantDrop == 0 && len(got) != 0:
				t.Errorf("score drops %+v, want none", got)
			case tt.wantDrop != 0 && (len(got) != 1 || got[0].Organisation != "CWAC Test Org" || got[0].Drop() != tt.wantDrop):
				t.Errorf("score drops %+v, want CWAC Test Org's, by %v", got, tt.wantDrop)
			}
			if logged := strings.Contains(buf.String(), "reading the baseline's leaderboard"); logged != tt.wantLog {
				t.Errorf("logged an unreadable baseline: %v\n%s", logged, buf.String())
			}
			data, err := os.ReadFile(filepath.Join(dir, results.SummaryFile))
			must(t, err)
			saved, err := results.ReadSummary(data)
			must(t, err)
			if len(saved.Diff.ScoreDrops) != len(got) {
				t.Errorf("summary.json lists %d score drops, the summary %d", len(saved.Diff.ScoreDrops), len(got))
			}
		})
	}
}

// addCriticalIssues appends to an axe_core_audit.csv a copy of its first
// row as a critical issue counted n times, on the same page.
func addCriticalIssues(t *testing.T, path string, n int) {
	t.Helper()
	data, err := os.ReadFile(path)
	must(t, err)
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte("\ufeff"))))
	rows, err := r.ReadAll()
	must(t, err)
	row := slices.Clone(rows[1])
	for i, col := range rows[0] {
		switch col {
		case "impact":
			row[i] = "critical"
		case "num_issues":
			row[i] = strconv.Itoa(n)
		case "issue_id":
			row[i] = "added"
		}
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	must(t, w.Write(row))
	w.Flush()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	must(t, err)
	_, err = f.Write(buf.Bytes())
	must(t, err)
	must(t, f.Close())
}

// TestWriteResultsCompared: results written compared with a baseline are
// what a scan pod with a baseline writes: the comparison's counts in the
// summary, diff.json, and the baseline's issue ids carried; a baseline
// that cannot be compared is an error.
func TestWriteResultsCompared(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	week1, week2 := filepath.Join(root, "week-1"), filepath.Join(root, "week-2")
	must(t, files.CopyDir(realScanDir, week1))
	log, _ := captureLog()
	_, err := WriteResults(ctx, week1, results.Options{}, report.Meta{Title: "week-1"}, log)
	must(t, err)
	must(t, files.CopyDir(realScanDir, week2))
	s, err := WriteResultsCompared(ctx, week2, week1, results.Options{}, report.Meta{Title: "week-2"}, log)
	must(t, err)
	if s.Diff == nil || s.Diff.Baseline != "week-1" || s.Diff.New != 0 || s.Diff.Fixed != 0 || s.Diff.Unchanged == 0 {
		t.Fatalf("the summary's comparison %+v, want every issue unchanged against week-1", s.Diff)
	}
	if _, err := os.Stat(filepath.Join(week2, results.DiffFile)); err != nil {
		t.Errorf("diff.json: %v", err)
	}
	var ids [2][]diff.IssueID
	for i, dir := range []string{week1, week2} {
		ids[i], err = diff.ReadIssueIDs(os.DirFS(dir))
		must(t, err)
	}
	if len(ids[0]) != 12 || !slices.Equal(ids[0], ids[1]) {
		t.Errorf("issue ids %v, want week-1's 12 carried: %v", ids[1], ids[0])
	}
	if _, err := WriteResultsCompared(ctx, week2, filepath.Join(root, "gone"), results.Options{}, report.Meta{Title: "week-2"}, log); err == nil {
		t.Error("a baseline that is gone gave no error")
	}
}

// TestReportElementsSpooledWhileTold: the HTML report keeps the elements
// of the pages read before in a hidden file beside the results while the
// walk runs, and makes the report it makes holding them; where the file
// cannot be made, the log says they are kept in memory and the report is
// the same.
func TestReportElementsSpooledWhileTold(t *testing.T) {
	dir := t.TempDir()
	must(t, files.CopyDir(realScanDir, dir))
	log, buf := captureLog()
	spooled := report.NewBuilder()
	spool := spoolReportElements(spooled, dir, log)
	if spool == nil || filepath.Dir(spool.Name()) != dir || !strings.HasPrefix(filepath.Base(spool.Name()), "."+report.HTMLFile) {
		t.Fatalf("no hidden spool beside the results: %v (log %s)", spool, buf)
	}
	defer discardHidden(spool)
	held := report.NewBuilder()
	if got := spoolReportElements(held, filepath.Join(dir, "gone"), log); got != nil || !strings.Contains(buf.String(), "kept in memory") {
		t.Fatalf("a spool in a directory that is not there: %v (log %s)", got, buf)
	}
	fsys := os.DirFS(dir)
	must(t, results.Walk(context.Background(), fsys, spooled))
	must(t, results.Walk(context.Background(), fsys, held))
	if fi, err := spool.Stat(); err != nil || fi.Size() == 0 {
		t.Errorf("the spool after the walk: %v, %v (the scan's pages come back across viewports)", fi, err)
	}
	written := func(b *report.Builder) map[string]string {
		out := map[string]string{}
		_, err := b.WriteFiles(report.Meta{Title: "t", GeneratedAt: time.Unix(0, 0)}, &results.Summary{}, func(name string, data []byte) error {
			out[name] = string(data)
			return nil
		})
		must(t, err)
		return out
	}
	if a, b := written(held), written(spooled); a[report.HTMLFile] == "" || !maps.Equal(a, b) {
		t.Error("the report made with its elements spooled differs from the one made holding them")
	}
}
