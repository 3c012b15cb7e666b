package main

import (
	"fmt"
	"os"
	"slices"
	"testing"
)

// serverTB lets bench start the real servers the tests start (the helpers
// of internal/testutil take a testing.TB): a failure there ends the
// section with an error instead of a test. It gives the methods those
// helpers call; the embedded testing.TB (nil) only makes the type one, and
// any other method called on it would panic.
type serverTB struct {
	testing.TB
	dir      string
	cleanups []func()
	failed   bool
}

// serverFailure is what Fatal ends the section with.
type serverFailure string

func (t *serverTB) Helper()                         {}
func (t *serverTB) Cleanup(f func())                { t.cleanups = append(t.cleanups, f) }
func (t *serverTB) Failed() bool                    { return t.failed }
func (t *serverTB) Logf(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
func (t *serverTB) Errorf(format string, args ...any) {
	t.failed = true
	t.Logf(format, args...)
}
func (t *serverTB) Fatal(args ...any) { t.failed = true; panic(serverFailure(fmt.Sprint(args...))) }
func (t *serverTB) Fatalf(format string, args ...any) {
	t.failed = true
	panic(serverFailure(fmt.Sprintf(format, args...)))
}

// TempDir is a new directory under the section's own, removed with it.
func (t *serverTB) TempDir() string {
	dir, err := os.MkdirTemp(t.dir, "tmp")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// withServers runs fn with a serverTB whose directories live under dir,
// and stops what it started (last first) when fn returns.
func withServers(dir string, fn func(t *serverTB) error) (err error) {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return err
	}
	t := &serverTB{dir: dir}
	defer func() {
		for _, f := range slices.Backward(t.cleanups) {
			f()
		}
		_ = os.RemoveAll(dir)
	}()
	defer func() {
		if r := recover(); r != nil {
			f, ok := r.(serverFailure)
			if !ok {
				panic(r)
			}
			err = fmt.Errorf("%s", string(f))
		}
	}()
	return fn(t)
}
