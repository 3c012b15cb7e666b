//go:build integration

package runner

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

// validScan lays out a scan that would run (the stand-in CWAC with its
// config, the scan's ConfigMap with one site) and returns its flags.
func validScan(t *testing.T) Config {
	t.Helper()
	tmp := t.TempDir()
	cfg := Config{RunnerFlags: scanpod.RunnerFlags{
		CWACDir:        standinCWAC(t, withConfig),
		ConfigMapDir:   filepath.Join(tmp, "scan"),
		ResultsDir:     filepath.Join(tmp, "volume", "ns", "scan-1234abcd"),
		WorkDir:        filepath.Join(tmp, "work"),
		TerminationLog: filepath.Join(tmp, "termination-log"),
		Python:         "python3",
		Egress:         loopbackOpen,
	}}
	must(t, os.MkdirAll(cfg.ConfigMapDir, 0o755))
	must(t, os.WriteFile(filepath.Join(cfg.ConfigMapDir, scanpod.OverridesFile), []byte(allPlugins), 0o644))
	must(t, os.WriteFile(filepath.Join(cfg.ConfigMapDir, scanpod.URLsFile), []byte("organisation,url,sector\nO,"+closedURL(t)+",S\n"), 0o644))
	return cfg
}

// runConfig runs the runner with cfg, capturing its output, and decodes
// the termination report.
func runConfig(ctx context.Context, t *testing.T, cfg Config) (int, scanpod.Report, string) {
	t.Helper()
	var out syncBuffer
	cfg.Stdout, cfg.Stderr = &out, &out
	cfg.Log = slog.New(slog.NewTextHandler(&out, nil))
	code := Run(ctx, cfg)
	raw, err := os.ReadFile(cfg.TerminationLog)
	must(t, err)
	msg, ok := scanpod.Decode(string(raw))
	if !ok {
		t.Fatalf("termination message is not a report: %s", raw)
	}
	return code, msg, out.String()
}

// syncBuffer is a bytes.Buffer safe for CWAC's output copiers and the test.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// A scan whose ConfigMap was deleted after its Job was made fails at once,
// saying so, instead of waiting for its deadline.
func TestCheckConfigMap(t *testing.T) {
	dir := t.TempDir()
	err := checkConfigMap(dir)
	if err == nil || !strings.Contains(err.Error(), "the scan's ConfigMap is missing (no scan.json") {
		t.Fatalf("err = %v", err)
	}
	must(t, os.WriteFile(filepath.Join(dir, scanpod.OverridesFile), []byte("{}"), 0o644))
	if err := checkConfigMap(dir); err == nil || !strings.Contains(err.Error(), "no urls.csv") {
		t.Fatalf("err = %v", err)
	}
	must(t, os.WriteFile(filepath.Join(dir, scanpod.URLsFile), []byte("url\n"), 0o644))
	if err := checkConfigMap(dir); err != nil {
		t.Fatal(err)
	}
}

// TestRunFailsBeforeCWAC: every way the scan's ConfigMap, CWAC's tree or
// the pod's directories can be wrong is a runner error naming what is
// wrong, before CWAC starts.
func TestRunFailsBeforeCWAC(t *testing.T) {
	file := func(t *testing.T, path string) {
		must(t, os.MkdirAll(filepath.Dir(path), 0o755))
		must(t, os.WriteFile(path, []byte("x"), 0o644))
	}
	dirAt := func(t *testing.T, path string) {
		must(t, os.Remove(path))
		must(t, os.Mkdir(path, 0o755))
	}
	overrides := func(t *testing.T, c *Config, data string) {
		must(t, os.WriteFile(filepath.Join(c.ConfigMapDir, scanpod.OverridesFile), []byte(data), 0o644))
	}
	urls := func(t *testing.T, c *Config, data string) {
		must(t, os.WriteFile(filepath.Join(c.ConfigMapDir, scanpod.URLsFile), []byte(data), 0o644))
	}
	tests := []struct {
		name   string
		change func(t *testing.T, c *Config)
		want   string
	}{
		{
			name:   "the ConfigMap is gone",
			change: func(t *testing.T, c *Config) { c.ConfigMapDir = t.TempDir() },
			want:   "runner: the scan's ConfigMap is missing (no scan.json in ",
		},
		{
			name:   "the ConfigMap's mount is a file",
			change: func(_ *testing.T, c *Config) { c.ConfigMapDir = filepath.Join(c.ConfigMapDir, scanpod.OverridesFile) },
			want:   "runner: reading the scan's ConfigMap: ",
		},
		{
			name:   "urls.csv is missing",
			change: func(t *testing.T, c *Config) { must(t, os.Remove(filepath.Join(c.ConfigMapDir, scanpod.URLsFile))) },
			want:   "runner: the scan's ConfigMap is missing (no urls.csv in ",
		},
		{
			name:   "scan.json cannot be read",
			change: func(t *testing.T, c *Config) { dirAt(t, filepath.Join(c.ConfigMapDir, scanpod.OverridesFile)) },
			want:   "runner: reading the scan's overrides: ",
		},
		{
			name:   "scan.json is not JSON",
			change: func(t *testing.T, c *Config) { overrides(t, c, `{"audit_name": `) },
			want:   "runner: scan.json: decoding CWAC config",
		},
		{
			name:   "base_urls_nohead_path is the runner's",
			change: func(t *testing.T, c *Config) { overrides(t, c, `{"audit_name": "a", "base_urls_nohead_path": "/x"}`) },
			want:   `runner: scan.json: key "base_urls_nohead_path" is owned by the runner`,
		},
		{
			name:   "no audit name",
			change: func(t *testing.T, c *Config) { overrides(t, c, `{}`) },
			want:   "runner: scan.json: invalid audit name",
		},
		{
			name:   "urls.csv cannot be read",
			change: func(t *testing.T, c *Config) { dirAt(t, filepath.Join(c.ConfigMapDir, scanpod.URLsFile)) },
			want:   "runner: reading the scan's URLs: ",
		},
		{
			name:   "urls.csv has another header",
			change: func(t *testing.T, c *Config) { urls(t, c, "a,b,c\nO,https://example.invalid/,S\n") },
			want:   "runner: reading base URL CSV: header must be organisation,url,sector",
		},
		{
			name:   "urls.csv has no URL",
			change: func(t *testing.T, c *Config) { urls(t, c, "organisation,url,sector\n") },
			want:   "runner: urls.csv: at least one URL is required",
		},
		{
			name: "the ConfigMap's defaults cannot be read",
			change: func(t *testing.T, c *Config) {
				must(t, os.Mkdir(filepath.Join(c.ConfigMapDir, scanpod.DefaultsFile), 0o755))
			},
			want: "runner: reading CWAC's default config: ",
		},
		{
			name: "CWAC's tree is gone",
			change: func(t *testing.T, c *Config) {
				must(t, os.WriteFile(filepath.Join(c.ConfigMapDir, scanpod.DefaultsFile), standinDefaults(t, ""), 0o644))
				c.CWACDir = filepath.Join(t.TempDir(), "missing")
			},
			want: "runner: reading CWAC dir: ",
		},
		{
			name: "the work dir is below a file",
			change: func(t *testing.T, c *Config) {
				file(t, c.WorkDir)
				c.WorkDir = filepath.Join(c.WorkDir, "work")
			},
			want: "runner: clearing work dir: ",
		},
		{
			name: "the results dir is below a file",
			change: func(t *testing.T, c *Config) {
				file(t, c.ResultsDir)
				c.ResultsDir = filepath.Join(c.ResultsDir, "below-a-file")
			},
			want: "runner: creating results dir ",
		},
		{
			name:   "python is missing",
			change: func(t *testing.T, c *Config) { c.Python = filepath.Join(t.TempDir(), "no-python") },
			want:   "runner: starting CWAC: ",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := validScan(t)
			tt.change(t, &cfg)
			code, msg, out := runConfig(context.Background(), t, cfg)
			if code != scanpod.ExitRunnerError || msg.ExitCode != scanpod.ExitRunnerError || msg.Outcome != scanpod.OutcomeRunnerError {
				t.Fatalf("code %d (report %d), %s: %q; want a runner error\n%s", code, msg.ExitCode, msg.Outcome, msg.Message, out)
			}
			if !strings.HasPrefix(msg.Message, tt.want) {
				t.Errorf("message %q\ndoes not start %q", msg.Message, tt.want)
			}
			if strings.Contains(out, "standin") {
				t.Errorf("CWAC ran:\n%s", out)
			}
		})
	}
}

// TestRunWithoutWritersOrTerminationLog: Run fills in the writers it is
// not given, and a termination log it cannot write does not change its
// exit code.
func TestRunWithoutWritersOrTerminationLog(t *testing.T) {
	cfg := validScan(t)
	cfg.ConfigMapDir = t.TempDir() // fails fast: the ConfigMap is gone
	cfg.TerminationLog = filepath.Join(t.TempDir(), "missing", "termination-log")
	if code := Run(context.Background(), cfg); code != scanpod.ExitRunnerError {
		t.Errorf("code %d, want %d", code, scanpod.ExitRunnerError)
	}
	log, buf := captureLog()
	cfg.Log = log
	cfg.Stdout, cfg.Stderr = &bytes.Buffer{}, &bytes.Buffer{}
	if code := Run(context.Background(), cfg); code != scanpod.ExitRunnerError {
		t.Errorf("code %d, want %d", code, scanpod.ExitRunnerError)
	}
	if !strings.Contains(buf.String(), "writing termination message") {
		t.Errorf("the failed write is not logged:\n%s", buf.String())
	}
}

// TestRunStoppedBySignal: a SIGTERM to the runner (the kubelet's, at the
// deadline or on deletion) stops CWAC's process group, and the report says
// the scan was terminated.
func TestRunStoppedBySignal(t *testing.T) {
	// The test's own handler keeps SIGTERM from ending the test binary at
	// any moment; the signal is sent until the runner has passed it on.
	mine := make(chan os.Signal, 16)
	signal.Notify(mine, syscall.SIGTERM)
	defer signal.Stop(mine)
	cfg := validScan(t)
	t.Setenv("STANDIN_SLEEP", "120")
	stop := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		ticker := time.NewTicker(200 * time.Millisecond)
		defer ticker.Stop()
		for {
			select {
			case <-stop:
				return
			case <-ticker.C:
				_ = syscall.Kill(os.Getpid(), syscall.SIGTERM)
			}
		}
	}()
	code, msg, out := runConfig(context.Background(), t, cfg)
	close(stop)
	<-stopped
	if code != 128+int(syscall.SIGTERM) || msg.Outcome != scanpod.OutcomeTerminated ||
		msg.Message != "CWAC was stopped by a termination signal (deadline or deletion)" {
		t.Fatalf("code %d, %s: %q; want %d, terminated\n%s", code, msg.Outcome, msg.Message, 128+int(syscall.SIGTERM), out)
	}
}

// TestRunResultsCannotBeSummarised: CWAC results the runner cannot read
// leave the report without a summary, saying why. (The stand-in asked to
// fail exits before it writes any rows, so only CWAC's success is here.)
func TestRunResultsCannotBeSummarised(t *testing.T) {
	templates := t.TempDir()
	must(t, os.CopyFS(templates, os.DirFS("../../test/standin-cwac/templates")))
	reflow := filepath.Join(templates, "reflow_audit.csv")
	data, err := os.ReadFile(reflow)
	must(t, err)
	must(t, os.WriteFile(reflow, append(data, "ragged\r\n"...), 0o644))
	site := testSite(t)
	for _, tt := range []struct {
		exit        string
		wantCode    int
		wantOutcome scanpod.Outcome
		wantSuffix  string
	}{
		{"0", 0, scanpod.OutcomeNoPages, "_runner-test could not be summarised"},
	} {
		t.Run("exit "+tt.exit, func(t *testing.T) {
			t.Setenv("STANDIN_TEMPLATES", templates)
			t.Setenv("STANDIN_EXIT", tt.exit)
			cfg := validScan(t)
			must(t, os.WriteFile(filepath.Join(cfg.ConfigMapDir, scanpod.URLsFile), []byte("organisation,url,sector\nO,"+site+",S\n"), 0o644))
			code, msg, out := runConfig(context.Background(), t, cfg)
			if code != tt.wantCode || msg.Outcome != tt.wantOutcome || msg.Summary != nil || msg.ResultsDir == "" {
				t.Fatalf("code %d, %s: %q, summary %v, results %q\n%s", code, msg.Outcome, msg.Message, msg.Summary, msg.ResultsDir, out)
			}
			if !strings.HasPrefix(msg.Message, "could not summarise results: reflow_audit.csv: reading CSV: line ") ||
				!strings.HasSuffix(msg.Message, tt.wantSuffix) {
				t.Errorf("message %q", msg.Message)
			}
		})
	}
}

func notifySIGTERM(ch chan os.Signal) { signal.Notify(ch, syscall.SIGTERM) }

func stopNotify(ch chan os.Signal) { signal.Stop(ch) }
