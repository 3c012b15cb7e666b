// Package freeport finds a loopback TCP port nothing listens on, for a
// test that starts a server (its own, or a real one such as mailpit) on a
// port it must name in advance.
package freeport

import (
	"net"
	"testing"
)

// Port is a port on 127.0.0.1 that was free a moment ago: the listener
// that found it is closed again, so the server about to bind it can.
func Port(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return port
}
