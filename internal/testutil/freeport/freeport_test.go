package freeport

import (
	"net"
	"strconv"
	"strings"
	"testing"
)

// TestRefused: the address refuses connections, and no listener can take
// its port while the test runs.
func TestRefused(t *testing.T) {
	addr := Refused(t)
	if c, err := net.Dial("tcp", addr); err == nil || !strings.Contains(err.Error(), "connection refused") {
		if c != nil {
			_ = c.Close()
		}
		t.Fatalf("dialling %s: %v, want connection refused", addr, err)
	}
	if l, err := net.Listen("tcp", addr); err == nil {
		_ = l.Close()
		t.Fatalf("a listener took %s's port", addr)
	}
}

// TestPortsAreDistinct: many ports asked for at once are all different and
// all free once returned.
func TestPortsAreDistinct(t *testing.T) {
	ports := Ports(t, 64)
	if len(ports) != 64 {
		t.Fatalf("got %d ports, want 64", len(ports))
	}
	seen := map[int]bool{}
	for _, p := range ports {
		if seen[p] {
			t.Fatalf("port %d given twice in %v", p, ports)
		}
		seen[p] = true
	}
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[0])))
	if err != nil {
		t.Fatalf("port %d is still held: %v", ports[0], err)
	}
	_ = l.Close()
}
