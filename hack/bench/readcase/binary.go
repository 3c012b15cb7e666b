package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/a11y-dev/cwac-operator/hack/bench/binarycase"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

// childPeakKiB is the peak of the binary a case ran (0: the case ran in
// this process), which runChild reports instead of this process's own.
var childPeakKiB int64

// standInCWAC is what the runner starts as CWAC's Python: it leaves the
// results directory $READCASE_RAW, hard-linked, as CWAC's results under
// the working directory, as CWAC leaves its own, and says so as CWAC does.
const standInCWAC = `#!/bin/sh
set -e
mkdir -p results
cp -al "$READCASE_RAW" "results/$(date +%Y-%m-%d_%H-%M-%S)_big"
echo "CWAC complete! Data can be found in the ./results folder."
`

// standInScan is the scan's settings the stand-in's run is given.
const standInScan = `{"audit_name": "big", "max_links_per_domain": 10, "thread_count": 1, "only_allow_https": false}` + "\n"

// runnerBinary runs the cwac-runner binary (binarycase.RunnerEnv) as a scan
// pod runs it, with CWAC stood in for by standInCWAC leaving dir (CWAC's
// files alone) as its results: everything the runner does after CWAC, in
// the runner's own process, as the harness measures bin/cwac-runner
// replaying a scan. The CPU bench reads for this process counts the
// runner's (the kernel adds a waited child's); the peak is the runner's.
func runnerBinary(dir string) (string, error) {
	bin := os.Getenv(binarycase.RunnerEnv)
	if bin == "" {
		return "", errors.New(binarycase.RunnerEnv + " must name the cwac-runner binary")
	}
	// Beside the bench's data, on its file system: the results are hard
	// links to dir's files, and the runner moves them by renaming.
	// Every path absolute: the runner starts CWAC in a working tree of its own.
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	root, err := os.MkdirTemp(filepath.Dir(filepath.Dir(dir)), "runner-binary-")
	if err != nil {
		return "", err
	}
	defer func() { _ = os.RemoveAll(root) }()
	cwac, scan, python := filepath.Join(root, "cwac"), filepath.Join(root, "scan"), filepath.Join(root, "python")
	files := map[string]string{
		filepath.Join(cwac, "cwac.py"):                       "",
		filepath.Join(cwac, "config", "config_default.json"): "{}\n",
		filepath.Join(scan, scanpod.OverridesFile):           standInScan,
		filepath.Join(scan, scanpod.URLsFile):                "organisation,url,sector\nCWAC Test Org,http://127.0.0.1:8765/,Test Sector\n",
		python:                                               standInCWAC,
	}
	for path, body := range files {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
			return "", err
		}
	}
	termination := filepath.Join(root, "termination-log")
	// The base URL is never opened (the stand-in reads nothing): loopback
	// is allowed only so that the runner's checks of it pass.
	cmd := exec.Command(bin, "--cwac-dir", cwac, "--python", python, "--scan-dir", scan,
		"--results-dir", filepath.Join(root, "results"), "--work-dir", filepath.Join(root, "work"),
		"--termination-log", termination, "--url-allow-cidrs", "127.0.0.0/8")
	cmd.Env = append(os.Environ(), "READCASE_RAW="+dir)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	peak, runErr := binarycase.Run(cmd)
	raw, err := os.ReadFile(termination)
	if err != nil {
		return "", errors.Join(runErr, err, fmt.Errorf("its output:\n%s", out.Bytes()))
	}
	msg, ok := scanpod.Decode(string(raw))
	if runErr != nil || !ok || msg.Outcome != scanpod.OutcomeComplete {
		return "", fmt.Errorf("cwac-runner: %v: %s\n%s", runErr, raw, out.Bytes())
	}
	childPeakKiB = peak
	return msg.Message, nil
}
