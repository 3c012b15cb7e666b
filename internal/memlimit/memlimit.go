// Package memlimit asks the Go runtime to keep a process under a share of
// its container's memory limit (GOMEMLIMIT), so that the collector works
// harder before the kernel kills the process. The operator, the MCP server
// and the scan and merge pods' runner call it at start.
package memlimit

import (
	"errors"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// Share is the part of the container's memory limit the Go runtime is
// asked to keep the process under: below the limit, so the collector works
// harder before the kernel kills the process. It matters when the issue
// history records a large scan (40 bytes an issue row, the collector kept
// to a tenth past what is live meanwhile: internal/ingest), and for the
// operator's cache of thousands of scans.
const Share = 0.8

// The container's memory limit: cgroup v2's memory.max, else cgroup v1's.
var cgroupMemoryFiles = []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}

// noCgroupLimit: cgroup v1 writes "no limit" as a number near MaxInt64.
const noCgroupLimit = 1 << 60

// Set sets the runtime's soft memory limit to Share of the container's,
// unless GOMEMLIMIT already says one or there is no limit. It returns the
// container's limit and the one set (ok false: none set).
func Set() (container, soft int64, ok bool) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return 0, 0, false
	}
	limit, ok := containerMemoryLimit(os.ReadFile)
	if !ok {
		return 0, 0, false
	}
	soft = int64(float64(limit) * Share)
	debug.SetMemoryLimit(soft)
	return limit, soft, true
}

// SetLogged is Set, and when it set a limit says so through info (an
// slog or logr Logger's Info): the one line every binary logs at start.
func SetLogged(info func(msg string, keysAndValues ...any)) {
	if limit, soft, ok := Set(); ok {
		info("memory limit", "container", limit, "goMemLimit", soft)
	}
}

// containerMemoryLimit reads the container's memory limit in bytes; false
// when there is none or it cannot be read.
func containerMemoryLimit(read func(string) ([]byte, error)) (int64, bool) {
	for _, f := range cgroupMemoryFiles {
		data, err := read(f)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return 0, false
		}
		text := strings.TrimSpace(string(data))
		n, err := strconv.ParseInt(text, 10, 64)
		if text == "max" || err != nil || n <= 0 || n >= noCgroupLimit {
			return 0, false
		}
		return n, true
	}
	return 0, false
}
