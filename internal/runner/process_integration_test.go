//go:build integration

package runner

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

// TestRunWritesWhereItIsTold: CWAC's stdout and stderr go to the writers
// Run is given, and the runner's log to its logger, each apart.
func TestRunWritesWhereItIsTold(t *testing.T) {
	cfg := validScan(t)
	t.Setenv("STANDIN_EXIT", "3")
	var stdout, stderr, log syncBuffer
	cfg.Stdout, cfg.Stderr = &stdout, &stderr
	cfg.Log = slog.New(slog.NewTextHandler(&log, nil))
	if code := Run(context.Background(), cfg); code != 3 {
		t.Fatalf("code %d, want 3", code)
	}
	for _, c := range []struct {
		name, got, want, notWant string
	}{
		{"stdout", stdout.String(), "Centralised Web Accessibility Checker", "RuntimeError"},
		{"stderr", stderr.String(), "RuntimeError: stand-in asked to fail", "starting CWAC"},
		{"log", log.String(), "starting CWAC", "Centralised Web Accessibility Checker"},
	} {
		if !strings.Contains(c.got, c.want) || strings.Contains(c.got, c.notWant) {
			t.Errorf("%s has %q: %v, has %q: %v\n%s", c.name, c.want, strings.Contains(c.got, c.want), c.notWant, strings.Contains(c.got, c.notWant), c.got)
		}
	}
}

// TestRunOneShardIsNotSharded: a scan of one shard scans every site into
// the scan's own directory, whatever JOB_COMPLETION_INDEX says.
func TestRunOneShardIsNotSharded(t *testing.T) {
	site := testSite(t)
	for _, shards := range []int{0, 1} {
		cfg := validScan(t)
		cfg.Shards = shards
		must(t, os.WriteFile(filepath.Join(cfg.ConfigMapDir, scanpod.URLsFile), []byte("organisation,url,sector\nA,"+site+",S\nB,"+site+"x/,S\n"), 0o644))
		t.Setenv(scanpod.ShardIndexEnv, "1")
		code, msg, out := runConfig(context.Background(), t, cfg)
		if code != 0 || msg.ResultsDir == "" || strings.HasPrefix(msg.Message, "shard") {
			t.Fatalf("%d shards: code %d, %s: %q\n%s", shards, code, msg.Outcome, msg.Message, out)
		}
		// In the scan's own directory, with both sites.
		if s := readSummary(t, filepath.Join(cfg.ResultsDir, msg.ResultsDir)); len(s.BaseURLs) != 2 {
			t.Errorf("%d shards: base URLs %+v, want both sites", shards, s.BaseURLs)
		}
	}
}

// writeScript writes an executable shell script.
func writeScript(t *testing.T, path, body string) {
	t.Helper()
	must(t, os.MkdirAll(filepath.Dir(path), 0o755))
	must(t, os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755))
}

// TestRunPicksThePython: without --python the runner runs CWAC with the
// image's virtualenv interpreter; with it, the one it names.
func TestRunPicksThePython(t *testing.T) {
	python3, err := exec.LookPath("python3")
	must(t, err)
	for _, given := range []bool{false, true} {
		cfg := validScan(t)
		marker := filepath.Join(t.TempDir(), "venv-used")
		// The image's tree must not change: the venv is there before the runner looks.
		writeScript(t, filepath.Join(cfg.CWACDir, ".venv", "bin", "python"), "touch "+marker+"\nexec "+python3+` "$@"`+"\n")
		cfg.Python = ""
		if given {
			cfg.Python = python3
		}
		code, msg, out := runConfig(context.Background(), t, cfg)
		if code != 0 {
			t.Fatalf("python given %v: code %d, %s: %q\n%s", given, code, msg.Outcome, msg.Message, out)
		}
		_, err := os.Stat(marker)
		if used := err == nil; used == given {
			t.Errorf("python given %v: the venv's python used %v", given, used)
		}
	}
}

// TestStopReachesCWACsChildren: a stop (the kubelet's SIGTERM, or the
// runner's context ending) goes to CWAC's whole process group, so the
// browsers CWAC started stop with it.
func TestStopReachesCWACsChildren(t *testing.T) {
	python3, err := exec.LookPath("python3")
	must(t, err)
	for _, how := range []string{"context", "signal"} {
		t.Run(how, func(t *testing.T) {
			cfg := validScan(t)
			pidFile := filepath.Join(t.TempDir(), "child.pid")
			// A stand-in for Chrome: a child of CWAC's that outlives it unless signalled.
			cfg.Python = filepath.Join(t.TempDir(), "python")
			writeScript(t, cfg.Python, "sleep 300 >/dev/null 2>&1 &\necho $! > "+pidFile+"\nexec "+python3+` "$@"`+"\n")
			t.Setenv("STANDIN_SLEEP", "120")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			stop := func() { cancel() }
			if how == "signal" {
				stop = keepSendingSIGTERM(t)
			}
			go func() {
				for range 600 {
					if _, err := os.Stat(pidFile); err == nil {
						time.Sleep(200 * time.Millisecond) // CWAC's python is running by now
						stop()
						return
					}
					time.Sleep(50 * time.Millisecond)
				}
			}()
			code, msg, out := runConfig(ctx, t, cfg)
			if code != 128+int(syscall.SIGTERM) || msg.Outcome != scanpod.OutcomeTerminated {
				t.Fatalf("code %d, %s: %q\n%s", code, msg.Outcome, msg.Message, out)
			}
			data, err := os.ReadFile(pidFile)
			must(t, err)
			pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
			must(t, err)
			if !gone(pid) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				t.Errorf("CWAC's child %d outlived the stop", pid)
			}
		})
	}
}

// gone reports whether a process has ended (a zombie has), waiting a
// while for the signal to land.
func gone(pid int) bool {
	for range 100 {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return true
		}
		if fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:])); len(fields) > 0 && fields[0] == "Z" {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

// keepSendingSIGTERM returns a stop that sends this process SIGTERM every
// 200 ms until the test ends; the test's own handler keeps the signal from
// ending the test binary before or after the runner listens for it.
func keepSendingSIGTERM(t *testing.T) func() {
	mine := make(chan os.Signal, 16)
	notifySIGTERM(mine)
	done := make(chan struct{})
	t.Cleanup(func() { close(done); stopNotify(mine) })
	return func() {
		go func() {
			ticker := time.NewTicker(200 * time.Millisecond)
			defer ticker.Stop()
			for {
				_ = syscall.Kill(os.Getpid(), syscall.SIGTERM)
				select {
				case <-done:
					return
				case <-ticker.C:
				}
			}
		}()
	}
}

// TestWaitLeavesOtherChildrenAlone: outside PID 1 the runner waits for
// CWAC alone, not for any child of its process.
func TestWaitLeavesOtherChildrenAlone(t *testing.T) {
	other := exec.Command("true")
	must(t, other.Start())
	cwac := exec.Command("sh", "-c", "sleep 0.5; exit 3")
	must(t, cwac.Start())
	time.Sleep(100 * time.Millisecond) // the other child has ended, unreaped
	if code, err := wait(cwac); code != 3 || err != nil {
		t.Errorf("wait = %d, %v; want 3", code, err)
	}
	if err := other.Wait(); err != nil {
		t.Errorf("the other child was reaped by wait: %v", err)
	}
}
