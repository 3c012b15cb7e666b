//go:build integration

package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/a11y-dev/cwac-operator/internal/cwacconfig"
	"github.com/a11y-dev/cwac-operator/internal/report"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
	"github.com/a11y-dev/cwac-operator/internal/testutil/freeport"
	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

// imageLayout is how the CWAC tree the runner is given is laid out.
type imageLayout int

const (
	// asCWACDockerfileBuildsIt: CWAC's official image (its .dockerignore
	// keeps only sources): no config/ and no base_urls/; package.json, Chrome
	// and chromedriver under chrome/ and chromedriver/, an empty nltk_data/
	// of mode 700.
	asCWACDockerfileBuildsIt imageLayout = iota
	// withConfig: the same plus config/config_default.json and base_urls/
	// with an example CSV, as an image built from a whole CWAC checkout.
	withConfig
)

// loopbackOpen is the policy the runner's tests give the egress proxy: the
// test sites are on loopback, which the built-in rules refuse.
var loopbackOpen = urlpolicy.Lists{AllowCIDRs: "127.0.0.0/8"}

// standinCWAC lays out a CWAC-like tree around the project's stand-in scanner.
func standinCWAC(t *testing.T, layout imageLayout) string {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatalf("python3 is required for runner tests: %v", err)
	}
	repo, err := filepath.Abs("../../test/standin-cwac")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	must(t, os.Symlink(filepath.Join(repo, "cwac.py"), filepath.Join(dir, "cwac.py")))
	must(t, os.Symlink(filepath.Join(repo, "package.json"), filepath.Join(dir, "package.json")))
	for _, d := range []string{
		"src", "node_modules", "chrome/linux-0.0.0-standin/chrome-linux64", "chromedriver/linux-0.0.0-standin/chromedriver-linux64", "nltk_data/corpora",
	} {
		must(t, os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	for _, f := range []string{"chrome/linux-0.0.0-standin/chrome-linux64/chrome", "chromedriver/linux-0.0.0-standin/chromedriver-linux64/chromedriver"} {
		must(t, os.WriteFile(filepath.Join(dir, f), []byte("stub\n"), 0o755))
	}
	must(t, os.WriteFile(filepath.Join(dir, "nltk_data", "corpora", "shipped.txt"), []byte("data the image ships\n"), 0o600))
	must(t, os.Chmod(filepath.Join(dir, "nltk_data"), 0o700))
	if layout == withConfig {
		must(t, os.MkdirAll(filepath.Join(dir, "config"), 0o755))
		must(t, os.MkdirAll(filepath.Join(dir, "base_urls", "visit"), 0o755))
		// An example CSV shipped in the image must not be scanned.
		must(t, os.WriteFile(filepath.Join(dir, "base_urls", "visit", "example.csv"), []byte("organisation,url,sector\nX,https://example.invalid/,Y\n"), 0o644))
		must(t, os.WriteFile(filepath.Join(dir, "config", "config_default.json"), standinDefaults(t, "image"), 0o644))
	}
	return dir
}

// standinDefaults is the stand-in's default config, marked with where the
// test put it (the marker ends up in the config CWAC runs with).
func standinDefaults(t *testing.T, marker string) []byte {
	t.Helper()
	data, err := os.ReadFile("../../test/standin-cwac/config/config_default.json")
	must(t, err)
	if marker == "" {
		return data
	}
	return bytes.Replace(data, []byte("{"), []byte(`{"test_defaults_from": "`+marker+`",`), 1)
}

func testSite(t *testing.T) string {
	srv := httptest.NewServer(http.FileServer(http.Dir("../../testdata/a11y-site")))
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}

// closedURL is a loopback address where nothing listens.
func closedURL(t testing.TB) string {
	t.Helper()
	return "http://" + freeport.Refused(t) + "/"
}

type scanFiles struct {
	overrides string
	urls      string
	// defaults, when set, is the operator's copy of CWAC's defaults in the scan's ConfigMap.
	defaults []byte
	// layout is the CWAC image's (the zero value: as CWAC's Dockerfile builds it).
	layout imageLayout
	// baseline, when set, is the baseline scan's results directory.
	baseline string
}

func runScan(ctx context.Context, t *testing.T, files scanFiles, env map[string]string) (int, scanpod.Report, Config, string) {
	t.Helper()
	for k, v := range env {
		t.Setenv(k, v)
	}
	return runScanWith(ctx, t, files, nil)
}

// runScanWith is runScan with change made to the runner's flags last.
func runScanWith(ctx context.Context, t *testing.T, files scanFiles, change func(*Config)) (int, scanpod.Report, Config, string) {
	t.Helper()
	tmp := t.TempDir()
	cfg := Config{RunnerFlags: scanpod.RunnerFlags{
		CWACDir:        standinCWAC(t, files.layout),
		ConfigMapDir:   filepath.Join(tmp, "scan"),
		ResultsDir:     filepath.Join(tmp, "volume", "ns", "scan-1234abcd"),
		WorkDir:        filepath.Join(tmp, "work"),
		TerminationLog: filepath.Join(tmp, "termination-log"),
		Python:         "python3",
		Egress:         loopbackOpen,
	}}
	if files.baseline != "" {
		cfg.BaselineDir, cfg.BaselineName = files.baseline, "week-1"
	}
	must(t, os.MkdirAll(cfg.ConfigMapDir, 0o755))
	must(t, os.WriteFile(filepath.Join(cfg.ConfigMapDir, scanpod.OverridesFile), []byte(files.overrides), 0o644))
	must(t, os.WriteFile(filepath.Join(cfg.ConfigMapDir, scanpod.URLsFile), []byte(files.urls), 0o644))
	if files.defaults != nil {
		must(t, os.WriteFile(filepath.Join(cfg.ConfigMapDir, scanpod.DefaultsFile), files.defaults, 0o644))
	}
	if change != nil {
		change(&cfg)
	}
	var stdout, stderr bytes.Buffer
	cfg.Stdout, cfg.Stderr = &stdout, &stderr
	cfg.Log = slog.New(slog.NewTextHandler(&stderr, nil))
	before := listTree(t, cfg.CWACDir)
	code := Run(ctx, cfg)
	if diff := cmp.Diff(before, listTree(t, cfg.CWACDir)); diff != "" {
		t.Errorf("the runner changed CWAC's own tree (-before +after):\n%s", diff)
	}
	raw, err := os.ReadFile(cfg.TerminationLog)
	must(t, err)
	if len(raw) > scanpod.MaxBytes {
		t.Errorf("termination message is %d bytes, over %d", len(raw), scanpod.MaxBytes)
	}
	msg, ok := scanpod.Decode(string(raw))
	if !ok {
		t.Fatalf("termination message is not a report: %s", raw)
	}
	return code, msg, cfg, stdout.String() + stderr.String()
}

func listTree(t *testing.T, root string) []string {
	var out []string
	must(t, filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out = append(out, rel)
		return nil
	}))
	sort.Strings(out)
	return out
}

const allPlugins = `{"audit_name": "runner-test", "max_links_per_domain": 10, "thread_count": 1, "only_allow_https": false,
  "audit_plugins": {"focus_indicator_audit": {"enabled": true}, "screenshot_audit": {"enabled": true}, "element_audit": {"enabled": true}}}`

func TestRunComplete(t *testing.T) {
	site := testSite(t)
	code, msg, cfg, out := runScan(context.Background(), t, scanFiles{
		overrides: allPlugins,
		urls:      "organisation,url,sector\n\"Te Tari, \"\"Test\"\"\"," + site + ",Tāmaki\n",
		defaults:  standinDefaults(t, ""),
		layout:    asCWACDockerfileBuildsIt,
	}, nil)
	if code != 0 || msg.Outcome != scanpod.OutcomeComplete {
		t.Fatalf("code %d, outcome %q, message %q\n%s", code, msg.Outcome, msg.Message, out)
	}
	if msg.Summary.PagesScanned != 4 || msg.Summary.TotalIssues != 17 || msg.Summary.IssuesByAuditType["axe_core_audit"] != 12 {
		t.Errorf("summary = %+v", msg.Summary)
	}
	if msg.StderrTail != "" {
		t.Errorf("stderr tail on success: %q", msg.StderrTail)
	}
	// summary.json sits in CWAC's results directory, with the full base URL list.
	data, err := os.ReadFile(filepath.Join(cfg.ResultsDir, msg.ResultsDir, results.SummaryFile))
	must(t, err)
	var s results.Summary
	must(t, json.Unmarshal(data, &s))
	if len(s.BaseURLs) != 1 || s.BaseURLs[0].Organisation != "Te Tari, \"Test\"" || s.BaseURLs[0].Sector != "Tāmaki" {
		t.Errorf("base URLs in summary.json = %+v (organisation quoting lost?)", s.BaseURLs)
	}
	for _, name := range []string{"report.html", "leaderboard.csv"} {
		if _, err := os.Stat(filepath.Join(cfg.ResultsDir, msg.ResultsDir, name)); err != nil {
			t.Errorf("report file: %v", err)
		}
	}
	// The row index the MCP server pages with: valid, and counting every audit row.
	data, err = os.ReadFile(filepath.Join(cfg.ResultsDir, msg.ResultsDir, results.RowIndexFile))
	must(t, err)
	index, err := results.ParseRowIndex(data)
	must(t, err)
	if e := index.Lookup("axe_core_audit.csv"); e == nil || (results.RowFilter{IssuesOnly: true}).Count(&e.Counts) != 12 {
		t.Errorf("row index entry for axe_core_audit.csv = %+v, want 12 issue rows", e)
	}
	// CWAC ran with the merged config: the image's defaults plus the scan's overrides.
	cfgData, err := os.ReadFile(filepath.Join(cfg.WorkDir, "config", ConfigFileName))
	must(t, err)
	var merged map[string]any
	must(t, json.Unmarshal(cfgData, &merged))
	if merged["audit_name"] != "runner-test" || merged["headless"] != true || merged["base_urls_visit_path"] != "./base_urls/visit/" {
		t.Errorf("merged config = %v", merged)
	}
	// nltk_data is writable in the work tree (the stand-in wrote its marker
	// there, as CWAC's language audit downloads there) and still holds what
	// the image ships.
	for _, f := range []string{"standin-download-marker", "corpora/shipped.txt"} {
		if _, err := os.Stat(filepath.Join(cfg.WorkDir, NLTKDataDir, f)); err != nil {
			t.Errorf("nltk_data in the work tree: %v", err)
		}
	}
	// Only the scan's base URL CSV is in the work tree, never the image's examples.
	entries, err := os.ReadDir(filepath.Join(cfg.WorkDir, "base_urls", "visit"))
	must(t, err)
	if len(entries) != 1 || entries[0].Name() != BaseURLsFileName {
		t.Errorf("base_urls/visit holds %v", entries)
	}
}

func TestRunOutcomes(t *testing.T) {
	site := testSite(t)
	dead := closedURL(t)
	tests := []struct {
		name        string
		overrides   string
		urls        []string
		env         map[string]string
		wantCode    int
		wantOutcome scanpod.Outcome
		wantMessage string
		wantStderr  string
	}{
		{
			name:        "partial: one base URL unreachable",
			overrides:   allPlugins,
			urls:        []string{site, dead},
			wantOutcome: scanpod.OutcomePartial,
			wantMessage: "base URLs that yielded no page: " + dead,
		},
		{
			name:        "nothing reachable: exit 0 but no pages",
			overrides:   allPlugins,
			urls:        []string{dead},
			wantOutcome: scanpod.OutcomeNoPages,
			wantMessage: "no pages were scanned; base URLs that yielded no page: " + dead,
		},
		{
			name:        "http URL with only_allow_https (the image default): no CSV at all",
			overrides:   `{"audit_name": "https-only"}`,
			urls:        []string{site},
			wantOutcome: scanpod.OutcomeNoPages,
			wantMessage: "yielded no page: " + site,
		},
		{
			name:        "CWAC exits non-zero",
			overrides:   allPlugins,
			urls:        []string{site},
			env:         map[string]string{"STANDIN_EXIT": "3"},
			wantCode:    3,
			wantOutcome: scanpod.OutcomeCWACFailed,
			wantMessage: "CWAC exited with code 3: RuntimeError: stand-in asked to fail with exit code 3",
			wantStderr:  "Traceback (most recent call last):",
		},
		{
			name:        "owned key in the overrides is refused before CWAC runs",
			overrides:   `{"audit_name": "x", "base_urls_visit_path": "/etc/"}`,
			urls:        []string{site},
			wantCode:    scanpod.ExitRunnerError,
			wantOutcome: scanpod.OutcomeRunnerError,
			wantMessage: `key "base_urls_visit_path" is owned by the runner`,
		},
		{
			name:        "bad audit name is refused before CWAC runs",
			overrides:   `{"audit_name": "../../etc"}`,
			urls:        []string{site},
			wantCode:    scanpod.ExitRunnerError,
			wantOutcome: scanpod.OutcomeRunnerError,
			wantMessage: "invalid audit name",
		},
		{
			name:        "non-http base URL is refused before CWAC runs",
			overrides:   allPlugins,
			urls:        []string{"file:///etc/passwd"},
			wantCode:    scanpod.ExitRunnerError,
			wantOutcome: scanpod.OutcomeRunnerError,
			wantMessage: "Invalid URL: file:///etc/passwd",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			csv := "organisation,url,sector\n"
			for _, u := range tt.urls {
				csv += "Org," + u + ",Sector\n"
			}
			code, msg, _, out := runScan(context.Background(), t, scanFiles{overrides: tt.overrides, urls: csv, layout: withConfig}, tt.env)
			if code != tt.wantCode || msg.ExitCode != tt.wantCode || msg.Outcome != tt.wantOutcome {
				t.Fatalf("code %d (report %d), outcome %q; want %d, %q\nmessage: %s\n%s", code, msg.ExitCode, msg.Outcome, tt.wantCode, tt.wantOutcome, msg.Message, out)
			}
			if !strings.Contains(msg.Message, tt.wantMessage) {
				t.Errorf("message %q does not contain %q", msg.Message, tt.wantMessage)
			}
			if !strings.Contains(msg.StderrTail, tt.wantStderr) {
				t.Errorf("stderr tail %q does not contain %q", msg.StderrTail, tt.wantStderr)
			}
		})
	}
}

// TestDefaultsResolution: CWAC's defaults come from the operator's copy in
// the scan's ConfigMap when there is one (whatever the image has), else from
// the image's config/config_default.json; with neither, the runner fails
// before CWAC starts and says both ways to fix it.
func TestDefaultsResolution(t *testing.T) {
	site := testSite(t)
	urls := "organisation,url,sector\nO," + site + ",S\n"
	tests := []struct {
		name        string
		files       scanFiles
		wantFrom    string // the marker CWAC's config carries
		wantMessage []string
	}{
		{
			"ConfigMap, image without config/ (CWAC's own image)",
			scanFiles{defaults: standinDefaults(t, "configmap"), layout: asCWACDockerfileBuildsIt}, "configmap", nil,
		},
		{"ConfigMap wins over the image's", scanFiles{defaults: standinDefaults(t, "configmap"), layout: withConfig}, "configmap", nil},
		{"the image's", scanFiles{layout: withConfig}, "image", nil},
		{"neither", scanFiles{layout: asCWACDockerfileBuildsIt}, "", []string{
			"CWAC's default config is missing", "the scan's ConfigMap has no config_default.json", "/cwac-image/config/config_default.json",
			"--set-file cwac.defaultConfig=<cwac>/config/config_default.json", "--cwac-default-config",
			"use a CWAC image that carries config/config_default.json", "cwac.imageHasDefaults=true",
		}},
		{
			"a malformed ConfigMap copy", scanFiles{defaults: []byte(`{"audit_name": `), layout: withConfig},
			"", []string{"/scan/config_default.json: decoding CWAC config"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.files.overrides, tt.files.urls = allPlugins, urls
			code, msg, cfg, out := runScan(context.Background(), t, tt.files, nil)
			if tt.wantFrom == "" {
				if code != scanpod.ExitRunnerError || msg.Outcome != scanpod.OutcomeRunnerError {
					t.Fatalf("code %d, outcome %q, message %q\n%s", code, msg.Outcome, msg.Message, out)
				}
				got := strings.NewReplacer(cfg.CWACDir, "/cwac-image", cfg.ConfigMapDir, "/scan").Replace(msg.Message)
				for _, w := range tt.wantMessage {
					if !strings.Contains(got, w) {
						t.Errorf("message %q\ndoes not contain %q", got, w)
					}
				}
				if strings.Contains(out, "starting CWAC") {
					t.Error("CWAC was started")
				}
				return
			}
			if code != 0 || msg.Outcome != scanpod.OutcomeComplete {
				t.Fatalf("code %d, outcome %q, message %q\n%s", code, msg.Outcome, msg.Message, out)
			}
			data, err := os.ReadFile(filepath.Join(cfg.WorkDir, "config", ConfigFileName))
			must(t, err)
			var merged map[string]any
			must(t, json.Unmarshal(data, &merged))
			if merged["test_defaults_from"] != tt.wantFrom || merged["audit_name"] != "runner-test" {
				t.Errorf("CWAC ran with defaults from %v (want %s): %s", merged["test_defaults_from"], tt.wantFrom, data)
			}
		})
	}
}

func TestRunTerminated(t *testing.T) {
	site := testSite(t)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(time.Second); cancel() }()
	code, msg, _, out := runScan(ctx, t, scanFiles{overrides: allPlugins, urls: "organisation,url,sector\nO," + site + ",S\n", layout: withConfig},
		map[string]string{"STANDIN_SLEEP": "60"})
	if msg.Outcome != scanpod.OutcomeTerminated || code != 128+15 {
		t.Fatalf("code %d, outcome %q, message %q\n%s", code, msg.Outcome, msg.Message, out)
	}
}

func TestDefaultPython(t *testing.T) {
	dir := t.TempDir()
	if got := DefaultPython(dir); got != "python3" {
		t.Errorf("without a venv: %q", got)
	}
	must(t, os.MkdirAll(filepath.Join(dir, ".venv", "bin"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, ".venv", "bin", "python"), nil, 0o755))
	if got := DefaultPython(dir); got != filepath.Join(dir, ".venv", "bin", "python") {
		t.Errorf("with a venv: %q", got)
	}
}

// TestRunAsPID1 runs the built runner as PID 1 of a new PID namespace, as in
// a container, where it also reaps orphans: exit codes and reports still come
// through.
func TestRunAsPID1(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root for a PID namespace (CI runs as root)")
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Fatalf("unshare (util-linux) is required: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "cwac-runner")
	build := exec.Command("go", "build", "-o", bin, "../../cmd/cwac-runner")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building runner: %v\n%s", err, out)
	}
	site := testSite(t)
	for _, tc := range []struct {
		exit    string
		code    int
		outcome scanpod.Outcome
	}{{"0", 0, scanpod.OutcomeComplete}, {"3", 3, scanpod.OutcomeCWACFailed}} {
		tmp := t.TempDir()
		scan := filepath.Join(tmp, "scan")
		must(t, os.MkdirAll(scan, 0o755))
		must(t, os.WriteFile(filepath.Join(scan, scanpod.OverridesFile), []byte(allPlugins), 0o644))
		must(t, os.WriteFile(filepath.Join(scan, scanpod.URLsFile), []byte("organisation,url,sector\nO,"+site+",S\n"), 0o644))
		termLog := filepath.Join(tmp, "termination-log")
		cmd := exec.Command(unshare, "--pid", "--fork", "--kill-child", bin,
			"--cwac-dir="+standinCWAC(t, withConfig), "--scan-dir="+scan, "--results-dir="+filepath.Join(tmp, "results"),
			"--work-dir="+filepath.Join(tmp, "work"), "--termination-log="+termLog, "--python=python3", "--url-allow-cidrs="+loopbackOpen.AllowCIDRs)
		cmd.Env = append(os.Environ(), "STANDIN_EXIT="+tc.exit)
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		raw, rerr := os.ReadFile(termLog)
		must(t, rerr)
		msg, ok := scanpod.Decode(string(raw))
		if code != tc.code || !ok || msg.Outcome != tc.outcome || msg.ExitCode != tc.code {
			t.Errorf("STANDIN_EXIT=%s: exit %d, report %s\n%s", tc.exit, code, raw, out)
		}
	}
}

// WriteResults writes the summary, the row index and the reports from one
// copy of a real CWAC results directory, and fails only when it cannot
// summarise.
func TestWriteResults(t *testing.T) {
	tests := []struct {
		name      string
		breakFile string // an audit CSV to replace with a ragged one
		wantErr   string
		wantFiles []string
	}{
		{name: "real results", wantFiles: []string{results.SummaryFile, results.RowIndexFile, "report.html", "leaderboard.csv"}},
		{name: "a broken audit CSV", breakFile: "reflow_audit.csv", wantErr: "reflow_audit.csv: reading CSV: line 2 has 1 fields"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			must(t, os.CopyFS(dir, os.DirFS("../../testdata/cwac-results/2026-11-21_23-18-23_real-scan-1")))
			if tt.breakFile != "" {
				must(t, os.WriteFile(filepath.Join(dir, tt.breakFile), []byte("a,b\n1\n"), 0o644))
			}
			log := slog.New(slog.NewTextHandler(io.Discard, nil))
			s, err := WriteResults(context.Background(), dir, results.Options{}, report.Meta{Title: "t"}, log)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			must(t, err)
			if s.TotalIssues != 17 || s.DurationSeconds != 18.7 {
				t.Errorf("summary: %d issues in %v s, want 17 in 18.7 (from progress.csv)", s.TotalIssues, s.DurationSeconds)
			}
			for _, name := range tt.wantFiles {
				if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
					t.Errorf("not written: %v", err)
				}
			}
		})
	}
}

// auditNameIn is the audit name in the CWAC config at path.
func auditNameIn(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	must(t, err)
	cfg, err := cwacconfig.Decode(data)
	must(t, err)
	v, _ := cfg.Get("audit_name")
	name, _ := v.(string)
	return name
}

// TestPrepareOwnsItsConfig: the work tree's config/ links to the image's
// files but its own scan config, even when the image has a file of that
// name; only the scan's base URL CSV is in base_urls/visit.
func TestPrepareOwnsItsConfig(t *testing.T) {
	cfg := validScan(t)
	must(t, os.WriteFile(filepath.Join(cfg.CWACDir, "config", ConfigFileName), []byte(`{"audit_name": "from-the-image"}`), 0o644))
	log, _ := captureLog()
	cfg.Log = log
	in, err := readScanInput(cfg.ConfigMapDir, cfg.ScanNamespace)
	must(t, err)
	sites, err := prepare(&cfg, in)
	must(t, err)
	if len(sites) != 1 {
		t.Fatalf("prepare = %v", sites)
	}
	info, err := os.Lstat(filepath.Join(cfg.WorkDir, "config", ConfigFileName))
	must(t, err)
	if !info.Mode().IsRegular() {
		t.Errorf("the scan config is %v, want a file of its own", info.Mode())
	}
	if got := auditNameIn(t, filepath.Join(cfg.WorkDir, "config", ConfigFileName)); got != "runner-test" {
		t.Errorf("the scan config's audit name = %q", got)
	}
	info, err = os.Lstat(filepath.Join(cfg.WorkDir, "config", "config_default.json"))
	if err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the image's defaults are not linked: %v, %v", info, err)
	}
	// The image's own file is untouched.
	if got := auditNameIn(t, filepath.Join(cfg.CWACDir, "config", ConfigFileName)); got != "from-the-image" {
		t.Errorf("the image's file now says %q", got)
	}
}
