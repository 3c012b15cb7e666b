// Package freeport finds a loopback TCP port nothing listens on, for a
// test that starts a server (its own, or a real one such as mailpit) on a
// port it must name in advance, or that needs an address that refuses
// connections.
package freeport

import (
	"net"
	"strconv"
	"syscall"
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

// Ports are n distinct ports on 127.0.0.1 that were free a moment ago, for
// one server that binds several. Each listener stays open until all n are
// found: a port closed at once can be handed out again by the next search,
// and a server given the same port twice fails to start.
func Ports(t testing.TB, n int) []int {
	t.Helper()
	ports := make([]int, 0, n)
	listeners := make([]net.Listener, 0, n)
	defer func() {
		for _, l := range listeners {
			_ = l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		listeners = append(listeners, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports
}

// Refused is a loopback address ("127.0.0.1:port") that refuses every
// connection while the test runs: a socket bound to the port that never
// listens. A closed listener's port would not do: under load it can be
// handed to another test's or process's listener, and the address then
// answers.
func Refused(t testing.TB) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(sa.(*syscall.SockaddrInet4).Port))
}
