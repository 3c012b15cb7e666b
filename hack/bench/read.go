package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/results"
)

// childResult is what readcase prints.
type childResult struct {
	Wall    time.Duration `json:"wall"`
	Answer  string        `json:"answer"`
	PeakKiB int64         `json:"peak_kib"`
}

// processFigure is one run of a case in its own process.
type processFigure struct {
	wall, cpu time.Duration
	rssMiB    float64
	answer    string
	// serverCPU is the database server's CPU time over the case, where
	// the engine has a server (historyEngine.serverCPU).
	serverCPU time.Duration
}

// runCase runs a case in readcase, on one core (GOMAXPROCS=1).
func runCase(readcase, name, dir string, env ...string) (processFigure, error) {
	cmd := exec.Command(readcase, name, dir)
	cmd.Env = append(append(os.Environ(), "GOMAXPROCS=1"), env...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return processFigure{}, fmt.Errorf("case %s: %w", name, err)
	}
	var res childResult
	if err := json.Unmarshal(out, &res); err != nil {
		return processFigure{}, fmt.Errorf("case %s: %w", name, err)
	}
	f := figureOf(cmd.ProcessState, res.Wall, res.Answer)
	if res.PeakKiB > 0 {
		f.rssMiB = float64(res.PeakKiB) / 1024
	}
	return f, nil
}

// figureOf takes a child's CPU time from the kernel. Its peak memory comes
// from the child itself: ru_maxrss counts the parent's memory from before
// the exec (Go starts children with vfork).
func figureOf(ps *os.ProcessState, wall time.Duration, answer string) processFigure {
	return processFigure{wall: wall, cpu: ps.UserTime() + ps.SystemTime(), answer: answer}
}

// runWC times the real wc -l, when there is one.
func runWC(dir string) (processFigure, error) {
	cmd := exec.Command("wc", "-l", filepath.Join(dir, results.AxeCoreAuditFile))
	start := time.Now()
	out, err := cmd.Output()
	if err != nil {
		return processFigure{}, err
	}
	return figureOf(cmd.ProcessState, time.Since(start), string(bytes.Fields(out)[0])+" lines"), nil
}
