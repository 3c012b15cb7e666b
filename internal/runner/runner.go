// Package runner is the scan pod's launcher: it prepares a writable mirror of
// CWAC's working tree under /tmp (CWAC's own /cwac stays read-only), merges
// the scan's overrides into CWAC's default config (the operator's copy in the
// scan's ConfigMap, else the image's own), runs CWAC with no
// shell, and reports the outcome through summary.json and the container's
// termination message.
package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/cireport"
	"github.com/a11y-dev/cwac-operator/internal/cwac"
	"github.com/a11y-dev/cwac-operator/internal/cwacconfig"
	"github.com/a11y-dev/cwac-operator/internal/diff"
	"github.com/a11y-dev/cwac-operator/internal/plainjson"
	"github.com/a11y-dev/cwac-operator/internal/report"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

// Files the runner writes into CWAC's working tree.
const (
	// ConfigFileName is the config file the runner writes into CWAC's config/.
	ConfigFileName = "cwac_operator_scan.json"
	// BaseURLsFileName is the base URL CSV the runner writes into base_urls/visit/.
	BaseURLsFileName = "cwac_operator_scan.csv"
)

// Config is the runner's input: its flags, as the Job builder rendered them
// (the scan pod's paths, the scan's shards and baseline), and where its
// output goes.
type Config struct {
	scanpod.RunnerFlags
	Stdout, Stderr io.Writer
	Log            *slog.Logger
}

// stderrTailBytes is how much of CWAC's stderr is kept for the report.
const stderrTailBytes = 3000

// Run runs one scan and returns the exit code to exit with (CWAC's own, or
// scanpod.ExitRunnerError). It always writes the termination message.
func Run(ctx context.Context, cfg Config) int {
	if cfg.Stdout == nil {
		cfg.Stdout = os.Stdout
	}
	if cfg.Stderr == nil {
		cfg.Stderr = os.Stderr
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.NewTextHandler(cfg.Stderr, nil))
	}
	msg := run(ctx, cfg)
	if err := os.WriteFile(cfg.TerminationLog, scanpod.Encode(msg, scanpod.MaxBytes), 0o644); err != nil {
		cfg.Log.Error("writing termination message", "path", cfg.TerminationLog, "err", err)
	}
	cfg.Log.Info("scan finished", "outcome", msg.Outcome, "exitCode", msg.ExitCode, "resultsDir", msg.ResultsDir, "message", msg.Message)
	return msg.ExitCode
}

func runnerError(err error) scanpod.Report {
	return scanpod.Report{Outcome: scanpod.OutcomeRunnerError, ExitCode: scanpod.ExitRunnerError, Message: "runner: " + err.Error()}
}

func run(ctx context.Context, cfg Config) scanpod.Report {
	if cfg.Merge {
		return merge(ctx, cfg)
	}
	msg := scan(ctx, &cfg)
	if cfg.Shards > 1 {
		// A failed shard's message is its scan's: it names the shard
		// whenever the pod knows which it is.
		if index, err := shardIndex(os.LookupEnv(scanpod.ShardIndexEnv)); err == nil {
			msg.Message = fmt.Sprintf("shard %d: %s", index, msg.Message)
		}
	}
	return msg
}

// scan runs CWAC over the scan's sites (or, in a sharded scan, its shard's).
func scan(ctx context.Context, cfgp *Config) scanpod.Report {
	// Absolute paths: CWAC runs in the work dir, where relative ones would break.
	if err := absPaths(&cfgp.CWACDir, &cfgp.ConfigMapDir, &cfgp.ResultsDir, &cfgp.WorkDir); err != nil {
		return runnerError(err)
	}
	in, err := readScanInput(cfgp.ConfigMapDir)
	if err != nil {
		return runnerError(err)
	}
	sites, err := prepare(cfgp, in)
	if err != nil {
		return runnerError(err)
	}
	cfg := *cfgp
	python := cfg.Python
	if python == "" {
		python = DefaultPython(cfg.CWACDir)
	}
	// The merged config's audit name is the scan's: the merge replaces the
	// defaults' with it, and nothing after changes it.
	auditName := in.auditName

	before := resultDirs(cfg.ResultsDir, auditName)
	stderrTail := &tailBuffer{max: stderrTailBytes}
	proxy, err := startEgress(cfg, os.Getenv)
	if err != nil {
		return runnerError(fmt.Errorf("starting the egress proxy: %w", err))
	}
	defer func() { _ = proxy.Close() }()
	start := time.Now()
	cmd := exec.Command(python, "-u", cwac.EntryPoint, ConfigFileName) // no shell; fixed arguments
	cmd.Dir = cfg.WorkDir
	cmd.Env = proxiedEnv(childEnv(os.Environ()), proxy.URL())
	cmd.Stdout = cfg.Stdout
	cmd.Stderr = io.MultiWriter(cfg.Stderr, stderrTail)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cfg.Log.Info("starting CWAC", "python", python, "config", ConfigFileName, "auditName", auditName, "baseURLs", len(sites), "workDir", cfg.WorkDir,
		"egressProxy", proxy.URL())
	if err := cmd.Start(); err != nil {
		return runnerError(fmt.Errorf("starting CWAC: %w", err))
	}

	terminated, stopForwarding := forwardSignals(ctx, cmd.Process)
	exitCode, err := wait(cmd)
	stopForwarding()
	duration := time.Since(start)
	_ = proxy.Close() // CWAC has ended: nothing more goes out
	blocked := proxy.Blocked()
	if err != nil {
		return runnerError(fmt.Errorf("waiting for CWAC: %w", err))
	}

	msg := scanpod.Report{ExitCode: exitCode, StderrTail: stderrTail.String(), BlockedByPolicy: blocked}
	msg.ResultsDir = newResultDir(cfg.ResultsDir, auditName, before)
	expected := make([]string, 0, len(sites))
	for _, s := range sites {
		expected = append(expected, s.URL)
	}
	if msg.ResultsDir != "" {
		dir := filepath.Join(cfg.ResultsDir, msg.ResultsDir)
		opts := results.Options{ExpectedBaseURLs: expected, Sites: expectedSites(sites), Duration: duration.Round(100 * time.Millisecond).Seconds()}
		meta := report.Meta{Title: auditName, ResultsDir: msg.ResultsDir, GeneratedAt: time.Now()}
		var base baselineResults
		if cfg.BaselineDir != "" {
			base.dir = cfg.BaselineDir
			base.diff, msg.Baseline = compareResults(ctx, cfg, dir)
		}
		summary, err := writeResults(ctx, dir, opts, meta, cfg.Log, base, blocked, ciReportOptions(cfg.RunnerFlags, auditName))
		if err != nil {
			cfg.Log.Error("summarising results", "dir", dir, "err", err)
			msg.Message = "could not summarise results: " + err.Error()
		} else {
			msg.Summary = summary
		}
	}

	settle(&msg, terminated.Load(), exitCode)
	if exitCode == 0 {
		msg.StderrTail = "" // CWAC's stderr on success is noise (nltk download warnings)
	}
	reportBlocked(&msg, cfg)
	return msg
}

// expectedSites are the sites the runner gave CWAC, with their
// organisations, so that one CWAC never names is judged unreachable under
// its organisation (results.Completeness).
func expectedSites(sites []cwacconfig.Site) []results.ExpectedSite {
	out := make([]results.ExpectedSite, len(sites))
	for i, s := range sites {
		out[i] = results.ExpectedSite{Organisation: s.Organisation, URL: s.URL, Sector: s.Sector}
	}
	return out
}

// maxBlockedHostsInMessage is how many refused hosts the report's message names.
const maxBlockedHostsInMessage = 3

// reportBlocked adds the egress proxy's refusals to the report's message
// and the runner's log.
func reportBlocked(msg *scanpod.Report, cfg Config) {
	if b := msg.BlockedByPolicy; b != nil {
		msg.Message = join(msg.Message, b.Describe(maxBlockedHostsInMessage))
		cfg.Log.Warn("connections blocked by policy", "total", b.Total, "hosts", len(b.Hosts))
	}
}

// absPaths makes paths absolute: CWAC runs in the work dir, where relative
// ones would break.
func absPaths(paths ...*string) error {
	for _, p := range paths {
		abs, err := filepath.Abs(*p)
		if err != nil {
			return fmt.Errorf("resolving %s: %w", *p, err)
		}
		*p = abs
	}
	return nil
}

// settle gives the report its outcome and message from how CWAC ended
// (stopped by a signal, its exit code) and the summary of what it wrote. A
// merge of a sharded scan's results settles as a CWAC run that exited 0.
func settle(msg *scanpod.Report, terminated bool, exitCode int) {
	switch {
	case terminated:
		msg.Outcome = scanpod.OutcomeTerminated
		msg.Message = join(msg.Message, "CWAC was stopped by a termination signal (deadline or deletion)")
	case exitCode != 0:
		msg.Outcome = scanpod.OutcomeCWACFailed
		msg.Message = join(msg.Message, fmt.Sprintf("CWAC exited with code %d: %s", exitCode, cwac.FailureCause(msg.StderrTail)))
	case msg.Summary == nil:
		msg.Outcome = scanpod.OutcomeNoPages
		if msg.ResultsDir == "" {
			msg.Message = join(msg.Message, "CWAC exited 0 but wrote no results directory")
		} else {
			msg.Message = join(msg.Message, "CWAC exited 0 but its results directory "+msg.ResultsDir+" could not be summarised")
		}
	case msg.Summary.PagesScanned == 0:
		msg.Outcome = scanpod.OutcomeNoPages
		msg.Message = "no pages were scanned; base URLs that yielded no page: " + strings.Join(msg.Summary.UnscannedBaseURLs, ", ") +
			" (unreachable, http:// with only_allow_https, or disallowed by robots.txt)"
	case len(msg.Summary.UnscannedBaseURLs) > 0:
		msg.Outcome = scanpod.OutcomePartial
		msg.Message = fmt.Sprintf("scanned %d pages; base URLs that yielded no page: %s", msg.Summary.PagesScanned, strings.Join(msg.Summary.UnscannedBaseURLs, ", "))
	default:
		msg.Outcome = scanpod.OutcomeComplete
		msg.Message = fmt.Sprintf("scanned %d pages, found %d issues", msg.Summary.PagesScanned, msg.Summary.TotalIssues)
	}
}

// WriteResults reads CWAC's results in dir once (results.Walk feeding the
// summary, the row index the MCP server pages with, the report builder and
// the CI reports) and writes what is built beside them: summary.json, the
// row index, report.html, leaderboard.csv, results.sarif and junit.xml.
// Only a failure to read the results is an error; a file that cannot be
// written is logged, and the scan's results stand without it.
func WriteResults(ctx context.Context, dir string, opts results.Options, meta report.Meta, log *slog.Logger) (*results.Summary, error) {
	return writeResults(ctx, dir, opts, meta, log, baselineResults{}, nil, ciReportOptions(scanpod.RunnerFlags{}, meta.Title))
}

// baselineResults is what a scan with a baseline brings to its results: the
// comparison (nil: none) and the baseline's results directory, whose
// trend.json the scan's trend continues.
type baselineResults struct {
	diff *diff.Result
	dir  string
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
	if base.diff == nil {
		ci.Baseline = "" // not compared (the baseline's results were unusable): the reports name no baseline
	} else {
		ci.IssueIDs = base.diff.IssueIDs
	}
	ciOut := startCIReports(dir, ci, log)
	if err := results.Walk(ctx, fsys, append([]results.RowVisitor{summary, index, reports}, ciOut.visitors()...)...); err != nil {
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
		s.Diff.ScoreDrops = scoreDrops(ctx, base.dir, reports.RankedBoard(s), log)
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

// writeFileAtomic writes a file that readers may open at any moment
// whole or not at all: into a temporary name, then renamed over.
func writeFileAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// wait waits for CWAC and returns its exit code (128+signal when killed).
// As PID 1 of the container the runner also inherits every orphaned
// process (Chrome's helpers, when chromedriver dies), so it reaps them all
// while it waits, as an init process must, to leave no zombies behind.
func wait(cmd *exec.Cmd) (int, error) {
	if os.Getpid() != 1 {
		return exitCode(cmd.Wait())
	}
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return 0, err
		}
		if pid == cmd.Process.Pid {
			_ = cmd.Wait() // already reaped; this only flushes the output copiers
			if ws.Signaled() {
				return 128 + int(ws.Signal()), nil
			}
			return ws.ExitStatus(), nil
		}
	}
}

func exitCode(err error) (int, error) {
	if err == nil {
		return 0, nil
	}
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) {
		return 0, err
	}
	if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), nil
	}
	return exitErr.ExitCode(), nil
}

// childEnv is the runner's environment for CWAC, plus what keeps CWAC off the
// read-only image: no .pyc files next to its sources, HOME somewhere writable.
func childEnv(env []string) []string {
	has := func(name string) bool {
		for _, kv := range env {
			if strings.HasPrefix(kv, name+"=") {
				return true
			}
		}
		return false
	}
	out := append([]string(nil), env...)
	if !has("PYTHONDONTWRITEBYTECODE") {
		out = append(out, "PYTHONDONTWRITEBYTECODE=1")
	}
	if !has("HOME") {
		out = append(out, "HOME="+os.TempDir())
	}
	return out
}

// DefaultPython is CWAC's virtualenv interpreter when the image has one, else python3.
func DefaultPython(cwacDir string) string {
	venv := filepath.Join(cwacDir, ".venv", "bin", "python")
	if _, err := os.Stat(venv); err == nil {
		return venv
	}
	return "python3"
}

// prepare builds the working tree from the scan's input: symlinks to
// everything in CWAC's tree but config/, base_urls/ and results/, which are
// real (or point at the results volume), then writes the merged config
// (ConfigFileName) and the base URL CSV. It returns the sites CWAC is given.
//
// In a sharded scan it keeps only the shard's sites, and points CWAC's
// results at the shard's directory (cfg.ResultsDir changes).
func prepare(cfg *Config, in scanInput) ([]cwacconfig.Site, error) {
	if err := cwac.ValidateConfigFileName(ConfigFileName); err != nil {
		return nil, err
	}
	defaultsPath, defaultsData, err := readDefaults(*cfg)
	if err != nil {
		return nil, err
	}
	cfg.Log.Info("CWAC defaults", "from", defaultsPath)
	defaults, err := cwacconfig.Decode(defaultsData)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", defaultsPath, err)
	}
	sites, urlsData := in.sites, in.urlsCSV
	if cfg.Shards > 1 {
		if sites, urlsData, err = takeShard(cfg, sites); err != nil {
			return nil, err
		}
	}

	merged := cwacconfig.Merge(defaults, in.overrides)
	for _, note := range cwacconfig.Finalize(merged) {
		cfg.Log.Info("config adjusted", "note", note)
	}
	configData, err := cwacconfig.Encode(merged)
	if err != nil {
		return nil, err
	}
	if err := buildWorkDir(*cfg); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(cfg.WorkDir, cwac.ConfigDir, ConfigFileName), configData, 0o644); err != nil {
		return nil, fmt.Errorf("writing CWAC config: %w", err)
	}
	visit := filepath.Join(cfg.WorkDir, filepath.FromSlash(cwac.BaseURLsVisitPath))
	if err := os.WriteFile(filepath.Join(visit, BaseURLsFileName), urlsData, 0o644); err != nil {
		return nil, fmt.Errorf("writing base URLs: %w", err)
	}
	return sites, nil
}

// scanInput is what the scan's ConfigMap gives the runner: the overrides
// of CWAC's config (scan.json) with their audit name, and the sites with
// the base URL CSV they were read from (urls.csv).
type scanInput struct {
	overrides *cwacconfig.Object
	auditName string
	sites     []cwacconfig.Site
	urlsCSV   []byte
}

// readScanInput reads and checks the scan's ConfigMap, mounted at dir, as a
// scan pod and the merge pod both need it, once: both files are there (see
// checkConfigMap), keys the runner owns are refused, the audit name follows
// CWAC's rule, every base URL parses, and there is one at least.
func readScanInput(dir string) (scanInput, error) {
	var in scanInput
	if err := checkConfigMap(dir); err != nil {
		return in, err
	}
	data, err := os.ReadFile(filepath.Join(dir, scanpod.OverridesFile))
	if err != nil {
		return in, fmt.Errorf("reading the scan's overrides: %w", err)
	}
	if in.overrides, err = cwacconfig.Decode(data); err != nil {
		return in, fmt.Errorf("%s: %w", scanpod.OverridesFile, err)
	}
	for _, k := range cwac.RunnerConfigKeys {
		if _, ok := in.overrides.Get(k); ok {
			return in, fmt.Errorf("%s: key %q is owned by the runner", scanpod.OverridesFile, k)
		}
	}
	nameV, _ := in.overrides.Get(cwac.KeyAuditName)
	in.auditName, _ = nameV.(string)
	if err := cwac.ValidateAuditName(in.auditName); err != nil {
		return in, fmt.Errorf("%s: %w", scanpod.OverridesFile, err)
	}
	if in.urlsCSV, err = os.ReadFile(filepath.Join(dir, scanpod.URLsFile)); err != nil {
		return in, fmt.Errorf("reading the scan's URLs: %w", err)
	}
	if in.sites, err = cwacconfig.ReadBaseURLCSV(in.urlsCSV); err != nil {
		return in, err
	}
	for _, s := range in.sites {
		if _, err := cwacconfig.ParseBaseURL(s.URL); err != nil {
			return in, fmt.Errorf("%s: %w", scanpod.URLsFile, err)
		}
	}
	if len(in.sites) == 0 {
		return in, fmt.Errorf("%s: at least one URL is required", scanpod.URLsFile)
	}
	return in, nil
}

// checkConfigMap fails fast, with the reason, when the scan's ConfigMap is
// not there: its volume is optional, so a ConfigMap deleted after the Job
// was made gives an empty directory instead of a pod stuck until its
// deadline.
func checkConfigMap(dir string) error {
	for _, name := range []string{scanpod.OverridesFile, scanpod.URLsFile} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("the scan's ConfigMap is missing (no %s in %s): it was deleted after the scan's Job was created; "+
					"delete the scan and create it again", name, dir)
			}
			return fmt.Errorf("reading the scan's ConfigMap: %w", err)
		}
	}
	return nil
}

// readDefaults reads CWAC's default config: the operator's copy in the scan's
// ConfigMap (scanpod.DefaultsFile) when there is one, else the image's own
// config/config_default.json. CWAC's official image has none (its
// .dockerignore leaves config/ out), so with neither the error says both ways
// to fix it.
func readDefaults(cfg Config) (string, []byte, error) {
	fromScan := filepath.Join(cfg.ConfigMapDir, scanpod.DefaultsFile)
	fromImage := filepath.Join(cfg.CWACDir, cwac.ConfigDir, cwac.DefaultConfigFile)
	for _, p := range []string{fromScan, fromImage} {
		data, err := os.ReadFile(p)
		if err == nil {
			return p, data, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return p, nil, fmt.Errorf("reading CWAC's default config: %w", err)
		}
	}
	return "", nil, fmt.Errorf("CWAC's default config is missing: the scan's ConfigMap has no %s (the operator was given none) "+
		"and the image has no %s (CWAC's own Dockerfile leaves config/ out of its image): %s",
		scanpod.DefaultsFile, fromImage, scanpod.NoDefaultsFix)
}

// NLTKDataDir is where CWAC's language audit keeps nltk's data, relative to
// its working directory: it downloads the data there when it is missing.
// CWAC's image has the directory, empty and owned by uid 1000, for exactly
// that; under the scan pod's read-only root filesystem the runner makes it
// writable in the working tree (links to whatever the image ships, in real
// directories), so the download can land.
const NLTKDataDir = "nltk_data"

// ownedEntries are the parts of CWAC's tree the runner makes itself.
var ownedEntries = []string{cwac.ConfigDir, cwac.BaseURLsDir, cwac.ResultsDir, NLTKDataDir}

func buildWorkDir(cfg Config) error {
	if err := os.RemoveAll(cfg.WorkDir); err != nil {
		return fmt.Errorf("clearing work dir: %w", err)
	}
	if err := os.MkdirAll(cfg.WorkDir, 0o755); err != nil {
		return fmt.Errorf("creating work dir: %w", err)
	}
	cwacDir, err := filepath.Abs(cfg.CWACDir)
	if err != nil {
		return err
	}
	entries, err := os.ReadDir(cwacDir)
	if err != nil {
		return fmt.Errorf("reading CWAC dir: %w", err)
	}
	for _, e := range entries {
		if slices.Contains(ownedEntries, e.Name()) {
			continue
		}
		if err := os.Symlink(filepath.Join(cwacDir, e.Name()), filepath.Join(cfg.WorkDir, e.Name())); err != nil {
			return fmt.Errorf("linking %s: %w", e.Name(), err)
		}
	}
	// config/: links to the image's own files (defaults, schema) plus ours.
	configDir := filepath.Join(cfg.WorkDir, cwac.ConfigDir)
	if err := os.MkdirAll(configDir, 0o755); err != nil {
		return err
	}
	if imageConfig, err := os.ReadDir(filepath.Join(cwacDir, cwac.ConfigDir)); err == nil {
		for _, e := range imageConfig {
			if e.Name() == ConfigFileName {
				continue
			}
			if err := os.Symlink(filepath.Join(cwacDir, cwac.ConfigDir, e.Name()), filepath.Join(configDir, e.Name())); err != nil {
				return fmt.Errorf("linking config/%s: %w", e.Name(), err)
			}
		}
	}
	if err := mirrorDir(filepath.Join(cwacDir, NLTKDataDir), filepath.Join(cfg.WorkDir, NLTKDataDir)); err != nil {
		return fmt.Errorf("preparing %s: %w", NLTKDataDir, err)
	}
	for _, d := range []string{cwac.BaseURLsVisitPath, cwac.BaseURLsNoHead} {
		if err := os.MkdirAll(filepath.Join(cfg.WorkDir, filepath.FromSlash(d)), 0o755); err != nil {
			return fmt.Errorf("creating %s: %w", d, err)
		}
	}
	resultsDir, err := filepath.Abs(cfg.ResultsDir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(resultsDir, 0o755); err != nil {
		return fmt.Errorf("creating results dir %s: %w", resultsDir, err)
	}
	if err := os.Symlink(resultsDir, filepath.Join(cfg.WorkDir, cwac.ResultsDir)); err != nil {
		return fmt.Errorf("linking results: %w", err)
	}
	return nil
}

// mirrorDir rebuilds the tree src as real, writable directories under dst
// whose files are links to src's. Nothing is done when src does not exist.
func mirrorDir(src, dst string) error {
	if _, err := os.Stat(src); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		return os.Symlink(p, target)
	})
}

// resultDirs lists CWAC results directories for an audit name.
func resultDirs(root, auditName string) map[string]bool {
	out := map[string]bool{}
	entries, err := os.ReadDir(root)
	if err != nil {
		return out
	}
	for _, e := range entries {
		if _, name, ok := cwac.ParseResultsDirName(e.Name()); ok && name == auditName && e.IsDir() {
			out[e.Name()] = true
		}
	}
	return out
}

// newResultDir is the newest results directory for the audit that was not
// there before CWAC ran ("" if none).
func newResultDir(root, auditName string, before map[string]bool) string {
	var fresh []string
	for name := range resultDirs(root, auditName) {
		if !before[name] {
			fresh = append(fresh, name)
		}
	}
	if len(fresh) == 0 {
		return ""
	}
	sort.Strings(fresh) // the timestamp comes first, so names sort by time
	return fresh[len(fresh)-1]
}

// forwardSignals passes SIGTERM and SIGINT (and ctx's cancellation) on to
// CWAC's process group, so Chrome and chromedriver stop with it.
func forwardSignals(ctx context.Context, p *os.Process) (*atomic.Bool, func()) {
	var terminated atomic.Bool
	ch := make(chan os.Signal, 2)
	done := make(chan struct{})
	signal.Notify(ch, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		select {
		case <-done:
		case sig := <-ch:
			terminated.Store(true)
			_ = syscall.Kill(-p.Pid, sig.(syscall.Signal))
		case <-ctx.Done():
			terminated.Store(true)
			_ = syscall.Kill(-p.Pid, syscall.SIGTERM)
		}
	}()
	return &terminated, func() { signal.Stop(ch); close(done) }
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.ToValidUTF8(string(t.buf), "")
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

func writeJSON(path string, v any) error {
	data, err := plainjson.MarshalIndent(v)
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// Install copies the running executable to dst (the init container's job:
// the runner reaches the CWAC container through a shared emptyDir).
func Install(dst string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	src, err := os.Open(self)
	if err != nil {
		return err
	}
	defer func() { _ = src.Close() }() // read-only: nothing to lose
	tmp := dst + ".tmp"
	out, err := os.OpenFile(tmp, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, src); err != nil {
		return errors.Join(err, out.Close())
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, dst)
}
