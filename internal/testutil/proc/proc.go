// Package proc runs the real servers tests start (an SMTP server, an S3
// server) as child processes: started in a directory of the test's, their
// output in a log file there, stopped when the test ends, and the log's end
// shown when the test failed.
package proc

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Binary is the server built by hack/tools.sh <tool>, which the variable
// env names. It fails the test (never skips it) when env is not set, saying
// how to build it: what a server the test needs (such as "a real SMTP
// server").
func Binary(t testing.TB, env, tool, what string) string {
	t.Helper()
	bin := os.Getenv(env)
	if bin == "" {
		t.Fatalf("%s is not set: this test needs %s; export %s=\"$(hack/tools.sh %s)\" (hack/test.sh does)", env, what, env, tool)
	}
	return bin
}

// maxLogTail is how much of a failed test's server log is shown.
const maxLogTail = 16 << 10

// Process is a server Start runs.
type Process struct {
	name   string
	exited chan struct{}
	err    error // how it ended; read only after exited is closed
}

// Start runs bin with args in dir, its output in dir/<name>.log, until the
// test ends; a failed start fails the test.
func Start(t testing.TB, name, dir, bin string, args ...string) *Process {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	out, err := os.Create(filepath.Join(dir, name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s (%s): %v", name, bin, err)
	}
	p := &Process{name: name, exited: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.exited
		_ = out.Close()
		if !t.Failed() {
			return
		}
		if b, err := os.ReadFile(out.Name()); err == nil {
			if len(b) > maxLogTail {
				b = b[len(b)-maxLogTail:]
			}
			t.Logf("%s's log (its end):\n%s", name, b)
		}
	})
	return p
}

// Ended says how the server ended if it has (a server that stops by
// itself while the test runs has failed: a port taken, a bad flag), or nil
// while it runs. A test waiting for the server to answer checks it so that
// a server that died fails the test at once, not when the wait times out.
func (p *Process) Ended() error {
	select {
	case <-p.exited:
		if p.err == nil {
			return fmt.Errorf("%s stopped by itself (exit status 0)", p.name)
		}
		return fmt.Errorf("%s stopped by itself: %w", p.name, p.err)
	default:
		return nil
	}
}
