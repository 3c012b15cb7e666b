package freeport

import (
	"net"
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
