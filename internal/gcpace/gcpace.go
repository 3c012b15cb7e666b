// Package gcpace keeps the Go collector's pace tighter while a process
// holds a large working set of its own making: the issue history's ingest
// of a scan (internal/ingest) and the runner's one read of a scan's
// results (cmd/cwac-runner). Their tables are mostly fixed-size blocks and
// maps with no pointers, which the collector never scans, so collecting
// more often costs little, while the default pace (GOGC 100) lets the heap
// grow to twice what is live before it collects.
package gcpace

import (
	"runtime/debug"
	"sync"
)

// Percent is the collector's pace (GOGC) while such work runs: the heap
// may grow a tenth past what is live rather than double. At a quarter, a
// million-row scan's ingest peaked 13 MiB higher and the runner 11 MiB,
// for about 5% less CPU (docs/development.md, issue 32).
const Percent = 10

// pace counts the holders running, so that the first one to start sets
// the pace and the last one to finish restores the process's own.
var pace struct {
	sync.Mutex
	running int
	own     int
}

// During sets the collector's pace for work holding a large working set
// and returns what restores the process's own. A process that already
// collects at least as often (a lower GOGC) or only at its memory limit
// (GOGC=off) keeps its own setting.
//
// The last holder to finish collects, and gives the freed memory back to
// the system, before it loosens the pace: the collector reckons its next
// goal from the heap it last found live, which during the work was the
// work's own tables. Loosened on that, the heap could grow to twice the
// work's peak before the next collection (a million-row ingest's 50 MiB
// of tables, dead once it returned, let the issue events sent after it
// take the process from 99 to 139 MiB resident).
func During() (restore func()) {
	pace.Lock()
	defer pace.Unlock()
	if pace.running == 0 {
		pace.own = debug.SetGCPercent(Percent)
		if pace.own < 0 || pace.own <= Percent {
			debug.SetGCPercent(pace.own)
		}
	}
	pace.running++
	return func() {
		pace.Lock()
		defer pace.Unlock()
		pace.running--
		if pace.running == 0 && pace.own > Percent { // the pace was tightened
			debug.FreeOSMemory()
			debug.SetGCPercent(pace.own)
		}
	}
}
