// Package caseprofile writes a CPU profile of one of bench's cases run
// alone (readcase, historycase), to find where its time goes. Bench never
// sets the variables: the figures it prints are of runs without a profile.
package caseprofile

import (
	"os"
	"runtime/pprof"
)

// Start starts a CPU profile into the file the environment variable
// names, when it names one; stop ends the profile and closes the file.
func Start(variable string) (stop func(), err error) {
	path := os.Getenv(variable)
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		_ = f.Close()
	}, nil
}
