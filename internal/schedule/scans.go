package schedule

import (
	"cmp"
	"slices"
	"time"
)

// State is where one of a schedule's scans is.
type State int

const (
	// Running: not finished (pending, queued or running).
	Running State = iota
	// Complete: finished with results.
	Complete
	// Failed: finished without usable results.
	Failed
)

// Scan is one scan a schedule created, as the rules below see it.
type Scan struct {
	Name string
	// Tick is the scheduled time the scan was created for.
	Tick  time.Time
	State State
}

// byAge orders scans oldest tick first, then by name.
func byAge(a, b Scan) int {
	if c := a.Tick.Compare(b.Tick); c != 0 {
		return c
	}
	return cmp.Compare(a.Name, b.Name)
}

// Prune returns the names of the finished scans beyond the history limits,
// oldest first: the newest keepComplete Complete scans and the newest
// keepFailed Failed scans stay, running scans always stay. A negative limit
// counts as 0.
func Prune(scans []Scan, keepComplete, keepFailed int) []string {
	sorted := slices.Clone(scans)
	slices.SortFunc(sorted, byAge)
	excess := map[State]int{Complete: -max(keepComplete, 0), Failed: -max(keepFailed, 0)}
	for _, s := range sorted {
		if s.State != Running {
			excess[s.State]++
		}
	}
	var out []string
	for _, s := range sorted {
		if s.State != Running && excess[s.State] > 0 {
			excess[s.State]--
			out = append(out, s.Name)
		}
	}
	return out
}

// Newest returns the scan in state with the latest tick.
func Newest(scans []Scan, state State) (Scan, bool) {
	var out Scan
	found := false
	for _, s := range scans {
		if s.State == state && (!found || byAge(s, out) > 0) {
			out, found = s, true
		}
	}
	return out, found
}

// Policy is what a tick does while an earlier scan of the schedule still runs.
type Policy string

// The concurrency policies.
const (
	// Allow starts the new scan beside the running ones.
	Allow Policy = "Allow"
	// Forbid skips the tick while a scan runs (the default).
	Forbid Policy = "Forbid"
	// Replace cancels the running scans, then starts the new one.
	Replace Policy = "Replace"
)

// Action is what to do with a due tick.
type Action int

const (
	// Start the tick's scan.
	Start Action = iota
	// Skip the tick for now: a scan still runs (Forbid). The tick stays
	// unmet, so it may still start when that scan finishes, within the
	// starting deadline.
	Skip
	// ReplaceRunning: cancel the running scans, then start the tick's scan.
	ReplaceRunning
)

// Admit decides what a due tick does with running scans still running
// under policy; an unknown policy is Forbid's.
func Admit(policy Policy, running int) Action {
	if running == 0 {
		return Start
	}
	switch policy {
	case Allow:
		return Start
	case Replace:
		return ReplaceRunning
	default:
		return Skip
	}
}
