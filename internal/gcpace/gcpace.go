// Package gcpace keeps the Go collector's pace tighter while a process
// holds a large working set of its own making: the issue history's ingest
// of a scan (internal/ingest), the runner's one read of a scan's results
// (cmd/cwac-runner) and the MCP server's comparison of two scans
// (cwac_compare_scans). Their tables are mostly fixed-size blocks and
// maps with no pointers, which the collector never scans, so collecting
// more often costs little, while the default pace (GOGC 100) lets the heap
// grow to twice what is live before it collects. While the heap is small a
// tenth of it is little, so the heap may always grow by Floor: each
// collection sets the pace for what it found live.
package gcpace

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Percent is the collector's pace (GOGC) while such work runs: the heap
// may grow a tenth past what is live rather than double. At a quarter, a
// million-row scan's ingest peaked 13 MiB higher and the runner 11 MiB,
// for about 5% less CPU (docs/development.md, issue 32).
const Percent = 10

// Floor is the least the heap may grow between two collections while such
// work runs: a tenth of a small heap is a few hundred kilobytes, and the
// runner's first second of a million-row scan collected sixty times
// (docs/development.md, issue 32). Past 40 MiB live a tenth is more.
const Floor = 4 << 20

// floor is Floor, which tests set (under pace's lock) to 0 to hold the
// pace at Percent.
var floor uint64 = Floor

// pace counts the holders running, so that the first one to start sets
// the pace and the last one to finish restores the process's own.
var pace struct {
	sync.Mutex
	running int
	own     int
	// gen numbers the runs of holders: a collection's hook of an earlier
	// run (afterCollection) changes nothing.
	gen uint64
}

// During sets the collector's pace for work holding a large working set
// (Percent, or looser while little is live: paceFor after each
// collection) and returns what restores the process's own. A process that already
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
		} else {
			pace.gen++
			watch(pace.gen)
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

// paceFor is the pace while work runs with live bytes live at the last
// collection: a tenth past what is live, or Floor past it when that is
// more, but never looser than the process's own pace (own) or the
// default's (100: the runtime's least heap grows with the pace, 4 MiB at
// 100).
func paceFor(live, floor uint64, own int) int {
	p := Percent
	if live > 0 && floor > 0 {
		p = int(min(floor*100/live, 100))
	}
	return min(max(p, Percent), own, 100)
}

// watch sets the pace after the next collection, and after each one
// while the run gen of holders lasts: a finalizer runs once the collector
// has found its object unreachable, that is after each collection.
func watch(gen uint64) {
	s := &collected{}
	runtime.SetFinalizer(s, func(*collected) { afterCollection(gen) })
}

// collected is the object whose finalizer tells of a collection. It is
// not a tiny allocation (under 16 bytes without pointers), which the
// runtime may keep alive with its neighbours and never finalize.
type collected struct{ _ [32]byte }

// afterCollection sets the pace for what the collection found live, while
// the run gen of holders lasts.
func afterCollection(gen uint64) {
	pace.Lock()
	defer pace.Unlock()
	if pace.gen != gen || pace.running == 0 {
		return
	}
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(live)
	var n uint64
	if live[0].Value.Kind() == metrics.KindUint64 {
		n = live[0].Value.Uint64()
	}
	debug.SetGCPercent(paceFor(n, floor, pace.own))
	watch(gen)
}
