package main

import (
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// A PostgreSQL server does a client's work in a process of its own (a
// backend), so the client's CPU time leaves most of an ingest out: the
// server's CPU is the figure to set beside COPY's. pgServer measures it
// from /proc, for a server on this machine (hack/postgres.sh's): the
// postmaster's own time, the time of every process it started and still
// holds (backends, the checkpointer, autovacuum), and the time of those it
// has reaped, which the kernel adds to the postmaster's children's time.
type pgServer struct{ postmaster int }

// outputWithServerCPU runs cmd as cmd.Output does and measures the
// engine's server CPU time over it (0 for an engine without a server).
func outputWithServerCPU(e historyEngine, cmd *exec.Cmd) ([]byte, time.Duration, error) {
	if e.serverCPU == nil {
		out, err := cmd.Output()
		return out, 0, err
	}
	before, err := e.serverCPU()
	if err != nil {
		return nil, 0, fmt.Errorf("the server's CPU time: %w", err)
	}
	out, err := cmd.Output()
	if err != nil {
		return nil, 0, err
	}
	after, err := e.serverCPU()
	if err != nil {
		return nil, 0, fmt.Errorf("the server's CPU time: %w", err)
	}
	return out, after - before, nil
}

// clockTicks is the unit of /proc's process times: USER_HZ, 100 on every
// Linux architecture Go builds for.
const clockTicks = 100

// findPostmaster finds the server behind admin's DSN: the parent of the
// backend that serves a connection.
func findPostmaster(admin string) (pgServer, error) {
	db, err := sql.Open("pgx", admin)
	if err != nil {
		return pgServer{}, err
	}
	defer func() { _ = db.Close() }()
	var backend int
	if err := db.QueryRow(`SELECT pg_backend_pid()`).Scan(&backend); err != nil {
		return pgServer{}, err
	}
	st, err := readProcStat(backend)
	if err != nil {
		return pgServer{}, fmt.Errorf("the server's processes are not on this machine: %w", err)
	}
	return pgServer{postmaster: st.ppid}, nil
}

// cpu is the CPU time the server has spent since it started. A child
// reaped while its time is read would be counted twice or not at all (its
// time moves into the postmaster's children's), so the children are
// listed before and after the postmaster's own line, and the reading is
// taken again unless both lists hold the same processes.
func (s pgServer) cpu() (time.Duration, error) {
	for range maxReadings {
		before, err := s.children()
		if err != nil {
			return 0, err
		}
		own, err := readProcStat(s.postmaster)
		if err != nil {
			return 0, err
		}
		after, err := s.children()
		if err != nil {
			return 0, err
		}
		if !maps.EqualFunc(before, after, func(procStat, procStat) bool { return true }) {
			continue
		}
		ticks := own.self + own.children
		for _, st := range after {
			ticks += st.self + st.children
		}
		return time.Duration(ticks) * time.Second / clockTicks, nil
	}
	return 0, fmt.Errorf("the server's processes changed in each of %d readings", maxReadings)
}

// maxReadings bounds cpu's attempts: a server starting and ending
// backends without pause.
const maxReadings = 100

// children reads the processes the postmaster has started and not reaped, by pid.
func (s pgServer) children() (map[int]procStat, error) {
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		return nil, err
	}
	out := map[int]procStat{}
	for _, path := range stats {
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(path)))
		if err != nil {
			continue
		}
		if st, err := readProcStat(pid); err == nil && st.ppid == s.postmaster {
			out[pid] = st // one that is gone since the listing is not the server's any more
		}
	}
	return out, nil
}

// procStat is what cpu needs of /proc/PID/stat, in clock ticks.
type procStat struct {
	ppid     int
	self     int64 // utime + stime
	children int64 // cutime + cstime: the reaped children's
}

func readProcStat(pid int) (procStat, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procStat{}, err
	}
	return parseProcStat(string(b))
}

// parseProcStat reads a /proc/PID/stat line. The command name, in
// parentheses, may hold spaces and parentheses of its own, so the fields
// are counted from the last ')': after it come state (field 3), ppid (4),
// …, utime (14), stime (15), cutime (16) and cstime (17).
func parseProcStat(line string) (procStat, error) {
	end := strings.LastIndexByte(line, ')')
	if end < 0 {
		return procStat{}, errors.New("no command name")
	}
	f := strings.Fields(line[end+1:])
	if len(f) < 15 {
		return procStat{}, fmt.Errorf("%d fields after the command name, want at least 15", len(f))
	}
	var n [5]int64
	for i, field := range []int{4, 14, 15, 16, 17} {
		v, err := strconv.ParseInt(f[field-3], 10, 64)
		if err != nil {
			return procStat{}, fmt.Errorf("field %d: %w", field, err)
		}
		n[i] = v
	}
	return procStat{ppid: int(n[0]), self: n[1] + n[2], children: n[3] + n[4]}, nil
}
