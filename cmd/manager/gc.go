package main

import (
	"runtime/debug"
)

// managerGCPercent is the operator's GOGC unless the environment sets one.
// Its heap is mostly the cache, which lives as long as the process: Go's
// default (100) lets the heap grow to twice what is live before it
// collects, and the resident memory follows that goal, so every finished
// scan the cache holds cost twice its size. At 50 the goal is one and a
// half times; the collector runs more often over a heap of a few MiB, which
// costs the operator, idle most of the time, little CPU.
const managerGCPercent = 50

// setGCPercent applies managerGCPercent when GOGC is not set (getenv reads
// the environment) and says whether it did.
func setGCPercent(getenv func(string) string) bool {
	if getenv("GOGC") != "" {
		return false
	}
	debug.SetGCPercent(managerGCPercent)
	return true
}
