package mcpserver

import (
	"io"
	"net"
	"testing"
	"time"
)

// One client holds at most the cap of connections; the rest are closed at
// once, and a closed connection frees its slot.
func TestConnectionsPerClientAreCapped(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := LimitConnsPerClient(inner, 2)
	defer closeReadOnly(l)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() { _, _ = io.Copy(io.Discard, c); _ = c.Close() }()
		}
	}()
	dial := func() net.Conn {
		c, err := net.Dial("tcp", inner.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	closedByServer := func(c net.Conn) bool {
		_ = c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		_, err := c.Read(make([]byte, 1))
		return err == io.EOF
	}
	a, b, c := dial(), dial(), dial()
	if closedByServer(a) || closedByServer(b) {
		t.Fatal("a connection under the cap was closed")
	}
	if !closedByServer(c) {
		t.Fatal("the connection over the cap was kept")
	}
	_ = a.Close()
	time.Sleep(100 * time.Millisecond)
	if d := dial(); closedByServer(d) {
		t.Error("a freed slot was not given to the next connection")
	} else {
		_ = d.Close()
	}
	_ = b.Close()
}
