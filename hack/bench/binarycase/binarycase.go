// Package binarycase runs one of the product's own binaries (cwac-runner,
// mcp-server) as a bench case, as whoever checks the product's figures runs
// them: in a process of its own, its peak resident memory taken from the
// kernel.
package binarycase

import (
	"errors"
	"os/exec"
	"syscall"
)

// The environment variables that name a case process the binary to run,
// set by bench, which builds them as the image has them.
const (
	RunnerEnv    = "READCASE_RUNNER"        // readcase's runner-binary: cwac-runner
	MCPServerEnv = "HISTORYCASE_MCP_SERVER" // historycase's import: mcp-server
)

// Run runs cmd to its end and returns the child's peak resident memory in
// KiB: the kernel's ru_maxrss, which counts the binary's own pages that it
// touched (file-backed, shared with the page cache) as well as its heap.
// Go starts a child with vfork, so that figure is never below the
// starting process's own peak at the start: the caller starts it before
// doing anything large (the bench's case processes hold a few MiB).
func Run(cmd *exec.Cmd) (peakKiB int64, err error) {
	if err := cmd.Run(); err != nil {
		return 0, err
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, errors.New("the kernel gave no resource usage for " + cmd.Path)
	}
	return ru.Maxrss, nil
}
