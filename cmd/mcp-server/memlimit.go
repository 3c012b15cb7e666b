package main

import (
	"errors"
	"log/slog"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// memoryLimitShare is the part of the container's memory limit the Go
// runtime is asked to keep the process under (GOMEMLIMIT): below the limit,
// so the collector works harder before the kernel kills the process. It
// matters when the issue history records a large scan, whose records (64
// bytes an issue row) the collector would otherwise let double before it
// runs.
const memoryLimitShare = 0.8

// The container's memory limit: cgroup v2's memory.max, else cgroup v1's.
var cgroupMemoryFiles = []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}

// noCgroupLimit: cgroup v1 writes "no limit" as a number near MaxInt64.
const noCgroupLimit = 1 << 60

// setMemoryLimit sets the runtime's soft memory limit to a share of the
// container's, unless GOMEMLIMIT already says one or there is no limit.
func setMemoryLimit(log *slog.Logger) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	limit, ok := containerMemoryLimit(os.ReadFile)
	if !ok {
		return
	}
	soft := int64(float64(limit) * memoryLimitShare)
	debug.SetMemoryLimit(soft)
	log.Info("memory limit", "container", limit, "goMemLimit", soft)
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
