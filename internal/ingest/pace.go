package ingest

import (
	"runtime/debug"
	"sync"
)

// gcPercentIngesting is the collector's pace (GOGC) while an ingest runs:
// the heap may grow a quarter past what is live rather than double. An
// ingest's working set is mostly its records, fixed-size blocks with no
// pointers that the collector never scans, so collecting four times as
// often costs little, and a million-row scan fits the MCP server's memory
// beside the dashboard it also serves.
const gcPercentIngesting = 25

// gcPace counts the ingests running, so that the first one to start sets
// the pace and the last one to finish restores the process's own.
var gcPace struct {
	sync.Mutex
	running int
	own     int
}

// paceCollector sets the collector's pace for an ingest and returns what
// restores it. A process that already collects at least as often (a lower
// GOGC) or only at its memory limit (GOGC=off) keeps its own setting.
func paceCollector() (restore func()) {
	gcPace.Lock()
	defer gcPace.Unlock()
	if gcPace.running == 0 {
		gcPace.own = debug.SetGCPercent(gcPercentIngesting)
		if gcPace.own < 0 || gcPace.own <= gcPercentIngesting {
			debug.SetGCPercent(gcPace.own)
		}
	}
	gcPace.running++
	return func() {
		gcPace.Lock()
		defer gcPace.Unlock()
		gcPace.running--
		if gcPace.running == 0 {
			debug.SetGCPercent(gcPace.own)
		}
	}
}
