package egress

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// dialFrom connects to the proxy from a given loopback address (a second
// client), or from the default one when from is "".
func dialFrom(t *testing.T, p *Proxy, from string) net.Conn {
	t.Helper()
	d := net.Dialer{Timeout: 5 * time.Second}
	if from != "" {
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(from)}
	}
	c, err := d.Dial("tcp", strings.TrimPrefix(p.URL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// statusOf sends a whole request on c and reads the status line's first
// 12 bytes ("HTTP/1.1 200"), waiting at most wait.
func statusOf(c net.Conn, request string, wait time.Duration) (string, error) {
	if _, err := io.WriteString(c, request); err != nil {
		return "", err
	}
	_ = c.SetReadDeadline(time.Now().Add(wait))
	buf := make([]byte, 12)
	_, err := io.ReadFull(c, buf)
	return string(buf), err
}

// Half-sent requests never make a whole one wait: with every slot held by
// a connection that sent part of a CONNECT (its header timeout a minute
// away), a new request is served at once, taking the slot of the one that
// has waited longest.
func TestHalfSentRequestsGiveWay(t *testing.T) {
	port := site(t)
	const slots = 8
	p, _ := startProxy(t, Config{Policy: testPolicy(newNames(nil)), Limits: Limits{MaxConns: slots, HeaderTimeout: time.Minute}})
	half := make([]net.Conn, 0, 2*slots)
	for range 2 * slots { // twice the slots: the later ones wait in the kernel's queue, then take slots too
		c := dialFrom(t, p, "")
		_, _ = io.WriteString(c, "CONNECT 127.0.0.1:"+port+" HTTP/1.1\r\nHost: 127.")
		half = append(half, c)
	}
	request := fmt.Sprintf("GET http://127.0.0.1:%s/ HTTP/1.1\r\nHost: 127.0.0.1:%s\r\n\r\n", port, port)
	start := time.Now()
	status, err := statusOf(dialFrom(t, p, ""), request, 30*time.Second)
	took := time.Since(start)
	if err != nil || status != "HTTP/1.1 200" {
		t.Fatalf("a whole request behind %d half-sent ones: %q, %v after %s", len(half), status, err, took)
	}
	if took > 20*time.Second {
		t.Errorf("a whole request waited %s behind half-sent ones (their header timeout is a minute)", took)
	}
	if p.ln.Evicted() < int64(slots) {
		t.Errorf("%d waiting connections gave way, want at least %d", p.ln.Evicted(), slots)
	}
	t.Logf("a whole request behind %d half-sent CONNECTs (%d slots) was answered in %s", len(half), slots, took)
}

// One client holds at most its share: past MaxConnsPerClient, its new
// connection takes the slot of its own waiting one, or is closed when all
// of its connections are being served; another client is served all the
// same.
func TestOneClientHoldsItsShare(t *testing.T) {
	port := site(t)
	p, _ := startProxy(t, Config{Policy: testPolicy(newNames(nil)), Limits: Limits{MaxConns: 8, MaxConnsPerClient: 2, HeaderTimeout: time.Minute}})
	connect := "CONNECT 127.0.0.1:" + port + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n\r\n"
	for range 2 {
		if status, err := statusOf(dialFrom(t, p, "127.0.0.1"), connect, 10*time.Second); err != nil || status != "HTTP/1.1 200" {
			t.Fatalf("a tunnel within the client's share: %q, %v", status, err)
		}
	}
	third := dialFrom(t, p, "127.0.0.1")
	_ = third.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, err := third.Read(make([]byte, 1)); n != 0 || err == nil || isTimeout(err) {
		t.Errorf("a third connection of a client holding two tunnels: %d bytes, %v; want it closed", n, err)
	}
	other := dialFrom(t, p, "127.0.0.3")
	request := fmt.Sprintf("GET http://127.0.0.1:%s/ HTTP/1.1\r\nHost: 127.0.0.1:%s\r\n\r\n", port, port)
	if status, err := statusOf(other, request, 10*time.Second); err != nil || status != "HTTP/1.1 200" {
		t.Errorf("another client, while the first holds its share: %q, %v", status, err)
	}
}

// A tunnel that moves a byte now and then (slower than MinBytes per
// RateWindow) is ended, though no read ever waits as long as IdleTimeout;
// one that moves enough stays open.
func TestSlowDripTunnelIsEnded(t *testing.T) {
	target := serveLoopback(t, func(c net.Conn) { _, _ = io.Copy(c, c); _ = c.Close() })
	p, logs := startProxy(t, Config{Policy: testPolicy(newNames(nil)),
		Limits: Limits{IdleTimeout: 30 * time.Second, MinBytes: 1000, RateWindow: 300 * time.Millisecond}})
	tunnel := func() func([]byte) error {
		resp, conn, br := rawRequest(t, p, "CONNECT "+target+" HTTP/1.1\r\nHost: "+target+"\r\n\r\n")
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("CONNECT: %s", resp.Status)
		}
		_ = conn.SetDeadline(time.Time{})
		return func(b []byte) error {
			if _, err := conn.Write(b); err != nil {
				return err
			}
			_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
			_, err := io.ReadFull(br, make([]byte, len(b)))
			return err
		}
	}
	fast := tunnel()
	drip := tunnel()
	start := time.Now()
	var dripErr, fastErr error
	for time.Since(start) < 3*time.Second && dripErr == nil {
		dripErr = drip([]byte{'x'}) // 2 bytes (echoed) every 50 ms: about 12 a window
		if fastErr == nil {
			fastErr = fast(make([]byte, 1000)) // 2,000 bytes every 50 ms
		}
		time.Sleep(50 * time.Millisecond)
	}
	if dripErr == nil {
		t.Errorf("a tunnel dripping a byte every 50 ms was still open after %s", time.Since(start))
	}
	if fastErr != nil {
		t.Errorf("a tunnel moving 40 KB a second was ended: %v", fastErr)
	}
	t.Logf("the dripping tunnel ended after %s (%v)", time.Since(start), dripErr)
	if !strings.Contains(logs.String(), errTooSlow.Error()) {
		t.Errorf("the log does not say why the tunnel ended:\n%s", logs.String())
	}
}

func TestRateMeter(t *testing.T) {
	t0 := time.Unix(1000, 0)
	tests := []struct {
		name  string
		moves []struct {
			n  int
			at time.Duration
		}
		wantErrAt int // index of the move that ends it; -1: none
	}{
		{"enough in each window", []struct {
			n  int
			at time.Duration
		}{{60, time.Second}, {40, 10 * time.Second}, {100, 11 * time.Second}, {100, 25 * time.Second}}, -1},
		{"too few in a window", []struct {
			n  int
			at time.Duration
		}{{60, time.Second}, {39, 10 * time.Second}}, 1},
		{"exactly the minimum at exactly the window", []struct {
			n  int
			at time.Duration
		}{{99, 9 * time.Second}, {1, 10 * time.Second}, {0, 19 * time.Second}}, -1},
		{"the next window starts afresh", []struct {
			n  int
			at time.Duration
		}{{500, 10 * time.Second}, {1, 20 * time.Second}}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newRateMeter(100, 10*time.Second, t0)
			got := -1
			for i, mv := range tt.moves {
				if err := m.moved(mv.n, t0.Add(mv.at)); err != nil {
					got = i
					break
				}
			}
			if got != tt.wantErrAt {
				t.Errorf("ended at move %d, want %d", got, tt.wantErrAt)
			}
		})
	}
}
