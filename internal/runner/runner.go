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
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/cwac"
	"github.com/a11y-dev/cwac-operator/internal/cwacconfig"
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

	// decisions are the scan's, read with its ConfigMap (readScanInput).
	decisions scanDecisions
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
	if cfg.Bucket.Enabled() || cfg.ResultsGrant != "" {
		return withBucket(ctx, cfg, runHere)
	}
	return runHere(ctx, cfg)
}

// runHere runs the scan or the merge on the pod's own files.
func runHere(ctx context.Context, cfg Config) scanpod.Report {
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
	in, err := readScanInput(cfgp.ConfigMapDir, cfgp.ScanNamespace)
	if err != nil {
		return runnerError(err)
	}
	cfgp.decisions = in.decisions
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
			base, msg.Baseline = compareResults(ctx, cfg, dir)
		}
		cfg.decisions.keep(dir, cfg.Log)
		summary, err := writeResults(ctx, dir, opts, meta, cfg.Log, base, blocked, ciReportOptions(cfg, auditName))
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
		if n := msg.Summary.DecidedIssues; n > 0 {
			msg.Message += fmt.Sprintf(" (and %d a decision covers)", n)
		}
	}
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
