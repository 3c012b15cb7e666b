package runner

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/a11y-dev/cwac-operator/internal/cwac"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

// TestStderrTailKeepsTheLastBytes: the report keeps the last 3000 bytes of
// CWAC's stderr (one below, at and one above the limit, written whole or
// in pieces); a character cut at the start of the tail is dropped rather
// than sent as broken UTF-8.
func TestStderrTailKeepsTheLastBytes(t *testing.T) {
	if stderrTailBytes != 3000 {
		t.Fatalf("stderrTailBytes = %d; the cases below are written for 3000", stderrTailBytes)
	}
	digits := func(n int) string {
		var b strings.Builder
		for i := range n {
			b.WriteByte(byte('0' + i%10))
		}
		return b.String()
	}
	tests := []struct {
		name   string
		writes []string
		want   string
	}{
		{name: "nothing", want: ""},
		{name: "one byte below the limit", writes: []string{digits(2999)}, want: digits(2999)},
		{name: "at the limit", writes: []string{digits(3000)}, want: digits(3000)},
		{name: "one byte over: the first goes", writes: []string{digits(3001)}, want: digits(3001)[1:]},
		{name: "in pieces, at the limit", writes: []string{digits(1000), digits(2000)}, want: digits(1000) + digits(2000)},
		{name: "in pieces, one over", writes: []string{"x", digits(1000), digits(2000)}, want: digits(1000) + digits(2000)},
		{name: "many pieces", writes: []string{digits(2500), digits(2500), "end"}, want: (digits(2500) + digits(2500) + "end")[2003:]},
		{
			// "é" is 2 bytes: 2999 ASCII after it keep only its second byte.
			name: "a character cut at the start", writes: []string{"é" + digits(2999)}, want: digits(2999),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tail := &tailBuffer{max: stderrTailBytes}
			for _, w := range tt.writes {
				n, err := tail.Write([]byte(w))
				if n != len(w) || err != nil {
					t.Fatalf("Write = %d, %v; want %d, nil", n, err, len(w))
				}
			}
			if got := tail.String(); got != tt.want {
				t.Errorf("tail is %d bytes %q…, want %d bytes %q…", len(got), head(got), len(tt.want), head(tt.want))
			}
		})
	}
}

func head(s string) string { return s[:min(len(s), 20)] }

// TestChildEnv: CWAC gets the runner's environment, plus no .pyc files and
// a writable HOME unless the environment already says otherwise.
func TestChildEnv(t *testing.T) {
	tmpHome := "HOME=" + os.TempDir()
	tests := []struct {
		name string
		env  []string
		want []string
	}{
		{name: "empty", env: nil, want: []string{"PYTHONDONTWRITEBYTECODE=1", tmpHome}},
		{name: "both set", env: []string{"HOME=/home/cwac", "PYTHONDONTWRITEBYTECODE=0"}, want: []string{"HOME=/home/cwac", "PYTHONDONTWRITEBYTECODE=0"}},
		{name: "HOME set", env: []string{"A=1", "HOME=/h"}, want: []string{"A=1", "HOME=/h", "PYTHONDONTWRITEBYTECODE=1"}},
		{name: "bytecode set", env: []string{"PYTHONDONTWRITEBYTECODE=1"}, want: []string{"PYTHONDONTWRITEBYTECODE=1", tmpHome}},
		{name: "a longer name is another variable", env: []string{"HOMEDIR=/x", "PYTHONDONTWRITEBYTECODEX=1"},
			want: []string{"HOMEDIR=/x", "PYTHONDONTWRITEBYTECODEX=1", "PYTHONDONTWRITEBYTECODE=1", tmpHome}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := append([]string(nil), tt.env...)
			if diff := cmp.Diff(tt.want, childEnv(in)); diff != "" {
				t.Errorf("childEnv (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.env, in); diff != "" {
				t.Errorf("childEnv changed its input:\n%s", diff)
			}
		})
	}
}

// TestSettle: the outcome and message for every way CWAC can end, and a
// summary's problem joined to the message.
func TestSettle(t *testing.T) {
	tests := []struct {
		name       string
		msg        scanpod.Report
		terminated bool
		exitCode   int
		want       scanpod.Outcome
		wantMsg    string
	}{
		{
			name: "terminated wins over an exit code", terminated: true, exitCode: 143,
			msg:  scanpod.Report{Summary: &results.Summary{PagesScanned: 3}},
			want: scanpod.OutcomeTerminated, wantMsg: "CWAC was stopped by a termination signal (deadline or deletion)",
		},
		{
			name: "terminated, after a summary problem", terminated: true, msg: scanpod.Report{Message: "could not summarise results: x"},
			want: scanpod.OutcomeTerminated, wantMsg: "could not summarise results: x; CWAC was stopped by a termination signal (deadline or deletion)",
		},
		{
			name: "exit 1", exitCode: 1, msg: scanpod.Report{StderrTail: "Traceback\nValueError: boom\n"},
			want: scanpod.OutcomeCWACFailed, wantMsg: "CWAC exited with code 1: ValueError: boom",
		},
		{
			name: "a negative exit code is a failure too", exitCode: -1,
			want: scanpod.OutcomeCWACFailed, wantMsg: "CWAC exited with code -1: " + cwac.FailureCause(""),
		},
		{
			name: "exit 0, no results directory", msg: scanpod.Report{},
			want: scanpod.OutcomeNoPages, wantMsg: "CWAC exited 0 but wrote no results directory",
		},
		{
			name: "exit 0, no results directory, and a message already", msg: scanpod.Report{Message: "could not summarise results: bad"},
			want: scanpod.OutcomeNoPages, wantMsg: "could not summarise results: bad; CWAC exited 0 but wrote no results directory",
		},
		{
			name: "exit 0, results that could not be summarised",
			msg:  scanpod.Report{ResultsDir: "2026-11-22_10-00-00_a", Message: "could not summarise results: bad"},
			want: scanpod.OutcomeNoPages,
			wantMsg: "could not summarise results: bad; CWAC exited 0 but its results directory 2026-11-22_10-00-00_a " +
				"could not be summarised",
		},
		{
			name: "no pages", msg: scanpod.Report{Summary: &results.Summary{UnscannedBaseURLs: []string{"https://a/", "https://b/"}}},
			want: scanpod.OutcomeNoPages,
			wantMsg: "no pages were scanned; base URLs that yielded no page: https://a/, https://b/ " +
				"(unreachable, http:// with only_allow_https, or disallowed by robots.txt)",
		},
		{
			name: "one page, one site unscanned", msg: scanpod.Report{Summary: &results.Summary{PagesScanned: 1, UnscannedBaseURLs: []string{"https://b/"}}},
			want: scanpod.OutcomePartial, wantMsg: "scanned 1 pages; base URLs that yielded no page: https://b/",
		},
		{
			name: "complete", msg: scanpod.Report{Summary: &results.Summary{PagesScanned: 1, TotalIssues: 7}},
			want: scanpod.OutcomeComplete, wantMsg: "scanned 1 pages, found 7 issues",
		},
		{
			name: "complete, some issues decided", msg: scanpod.Report{Summary: &results.Summary{PagesScanned: 2, TotalIssues: 7, DecidedIssues: 1}},
			want: scanpod.OutcomeComplete, wantMsg: "scanned 2 pages, found 7 issues (and 1 a decision covers)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg := tt.msg
			settle(&msg, tt.terminated, tt.exitCode)
			if msg.Outcome != tt.want || msg.Message != tt.wantMsg {
				t.Errorf("settled as %s: %q; want %s: %q", msg.Outcome, msg.Message, tt.want, tt.wantMsg)
			}
		})
	}
}

// TestExitCode: CWAC's exit code, 128+signal when a signal killed it, and
// an error when it could not be waited for at all.
func TestExitCode(t *testing.T) {
	tests := []struct {
		script  string
		want    int
		wantErr bool
	}{
		{script: "exit 0", want: 0},
		{script: "exit 1", want: 1},
		{script: "exit 3", want: 3},
		{script: "exit 255", want: 255},
		{script: "kill -TERM $$", want: 128 + 15},
		{script: "kill -KILL $$", want: 128 + 9},
		{script: "kill -INT $$", want: 128 + 2},
	}
	for _, tt := range tests {
		t.Run(tt.script, func(t *testing.T) {
			cmd := exec.Command("sh", "-c", tt.script)
			must(t, cmd.Start())
			got, err := wait(cmd)
			if got != tt.want || err != nil {
				t.Errorf("wait = %d, %v; want %d", got, err, tt.want)
			}
		})
	}
	if code, err := exitCode(errors.New("not an exit")); code != 0 || err == nil || err.Error() != "not an exit" {
		t.Errorf("exitCode(other error) = %d, %v; want 0 and the error", code, err)
	}
}

// TestResultDirs: the results directory CWAC made is the newest one of the
// audit that was not there before it ran; files, other audits and
// directories that are not CWAC's do not count.
func TestResultDirs(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"2026-01-01_00-00-00_audit", "2026-01-02_00-00-00_audit", "2026-01-03_00-00-00_other", "not-results"} {
		must(t, os.Mkdir(filepath.Join(root, d), 0o755))
	}
	must(t, os.WriteFile(filepath.Join(root, "2026-01-04_00-00-00_audit"), nil, 0o644)) // a file, not a directory
	before := resultDirs(root, "audit")
	if diff := cmp.Diff(map[string]bool{"2026-01-01_00-00-00_audit": true, "2026-01-02_00-00-00_audit": true}, before); diff != "" {
		t.Errorf("resultDirs (-want +got):\n%s", diff)
	}
	if got := newResultDir(root, "audit", before); got != "" {
		t.Errorf("nothing new: got %q", got)
	}
	must(t, os.Mkdir(filepath.Join(root, "2026-01-05_00-00-00_audit"), 0o755))
	must(t, os.Mkdir(filepath.Join(root, "2026-01-06_00-00-00_audit"), 0o755))
	if got := newResultDir(root, "audit", before); got != "2026-01-06_00-00-00_audit" {
		t.Errorf("two new: got %q, want the newest", got)
	}
	if got := newResultDir(root, "audit", map[string]bool{}); got != "2026-01-06_00-00-00_audit" {
		t.Errorf("all new: got %q, want the newest", got)
	}
	if got := resultDirs(filepath.Join(root, "missing"), "audit"); len(got) != 0 {
		t.Errorf("a missing root: %v", got)
	}
}

// TestInstall: the init container's copy of the runner is the running
// executable, executable, and put in place whole.
func TestInstall(t *testing.T) {
	dir := t.TempDir()
	dst := filepath.Join(dir, "cwac-runner")
	must(t, Install(dst))
	self, err := os.Executable()
	must(t, err)
	want, err := os.ReadFile(self)
	must(t, err)
	got, err := os.ReadFile(dst)
	must(t, err)
	if !bytes.Equal(got, want) {
		t.Errorf("the copy is %d bytes, the executable %d", len(got), len(want))
	}
	info, err := os.Stat(dst)
	must(t, err)
	if info.Mode().Perm() != 0o755 {
		t.Errorf("mode %v, want 0755", info.Mode().Perm())
	}
	entries, err := os.ReadDir(dir)
	must(t, err)
	if len(entries) != 1 {
		t.Errorf("left beside it: %v", entries)
	}
	// Over an older copy.
	must(t, os.WriteFile(dst, []byte("old"), 0o755))
	must(t, Install(dst))
	if got, err := os.ReadFile(dst); err != nil || !bytes.Equal(got, want) {
		t.Errorf("over an older copy: %d bytes, %v", len(got), err)
	}
}

// TestWriteJSON: what is written is indented JSON; what cannot be encoded
// is an error and writes nothing.
func TestWriteJSON(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.json")
	must(t, writeJSON(path, map[string]int{"a": 1}))
	data, err := os.ReadFile(path)
	must(t, err)
	var got map[string]int
	if err := json.Unmarshal(data, &got); err != nil || got["a"] != 1 {
		t.Errorf("wrote %s (%v)", data, err)
	}
	if err := writeJSON(filepath.Join(dir, "y.json"), make(chan int)); err == nil {
		t.Error("a channel was encoded")
	}
	if _, err := os.Stat(filepath.Join(dir, "y.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("written after a failure: %v", err)
	}
}

// captureLog is a logger whose output the test reads.
func captureLog() (*slog.Logger, *bytes.Buffer) {
	var buf bytes.Buffer
	return slog.New(slog.NewTextHandler(&buf, nil)), &buf
}

// TestInstallFails: an install that cannot be put in place is an error and
// leaves no partial copy.
func TestInstallFails(t *testing.T) {
	dir := t.TempDir()
	dst := filepath.Join(dir, "cwac-runner")
	must(t, os.Mkdir(dst, 0o755)) // a directory in the way, not empty
	must(t, os.WriteFile(filepath.Join(dst, "keep"), nil, 0o644))
	if err := Install(dst); err == nil {
		t.Error("installed over a directory")
	}
	if err := Install(filepath.Join(dir, "missing", "cwac-runner")); err == nil {
		t.Error("installed into a missing directory")
	}
}

// TestReadScanInputAuditName: the audit name CWAC will use is the one read
// from the scan's overrides, and must be one the runner accepts.
func TestReadScanInputAuditName(t *testing.T) {
	tests := []struct {
		name, overrides, want string
		wantErr               string
	}{
		{name: "valid", overrides: `{"audit_name": "weekly-scan"}`, want: "weekly-scan"},
		{name: "no name", overrides: `{}`, wantErr: `scan.json: invalid audit name ""`},
		{name: "a name that is not a string", overrides: `{"audit_name": 3}`, wantErr: `scan.json: invalid audit name ""`},
		{name: "a name that leaves the results", overrides: `{"audit_name": "../x"}`, wantErr: `scan.json: invalid audit name "../x"`},
		{name: "a relative directory", overrides: `{"audit_name": ".."}`, wantErr: `scan.json: invalid audit name "..": must not be a relative directory name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			must(t, os.WriteFile(filepath.Join(dir, scanpod.OverridesFile), []byte(tt.overrides), 0o644))
			must(t, os.WriteFile(filepath.Join(dir, scanpod.URLsFile), []byte("organisation,url,sector\nO,https://example.govt.nz/,S\n"), 0o644))
			in, err := readScanInput(dir, "ns")
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v; want it to start %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || in.auditName != tt.want {
				t.Fatalf("audit name %q, %v; want %q", in.auditName, err, tt.want)
			}
			if len(in.sites) != 1 || in.sites[0].URL != "https://example.govt.nz/" {
				t.Errorf("sites %+v", in.sites)
			}
		})
	}
}
