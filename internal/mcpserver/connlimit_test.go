package mcpserver

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// callerAuth authenticates "Bearer <name>" as the caller <name>.
type callerAuth struct{}

func (callerAuth) Authenticate(_ context.Context, r *http.Request) (*Identity, error) {
	name, ok := bearer(r)
	if !ok || name == "" {
		return nil, fmt.Errorf("%w: no token", errUnauthenticated)
	}
	return &Identity{User: name, Method: "token"}, nil
}

// limitedServer serves, on a loopback listener counted by limits, the
// pieces of Handler that count connections: /ok behind authenticate,
// /health (unauthenticated, closing its connection as the real one does)
// and /hold (unauthenticated, answering once release is closed).
func limitedServer(t *testing.T, limits ConnLimits, release <-chan struct{}) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/ok", authenticate(callerAuth{}, (*ProtectedResource)(nil).challenge(), nil, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "ok")
	})))
	mux.HandleFunc("/health", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Connection", "close")
		_, _ = io.WriteString(w, "ok")
	})
	mux.HandleFunc("/hold", func(w http.ResponseWriter, _ *http.Request) {
		<-release
		_, _ = io.WriteString(w, "released")
	})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: markServing(mux), ReadHeaderTimeout: time.Minute, ConnContext: withConn}
	go func() { _ = srv.Serve(&limitedListener{Listener: l, limiter: newConnLimiter(limits)}) }()
	t.Cleanup(func() { _ = srv.Close() })
	return l.Addr().String()
}

// rawConn is one client connection that sends requests by hand.
type rawConn struct {
	t *testing.T
	c net.Conn
	r *bufio.Reader
}

func dialRaw(t *testing.T, addr string) *rawConn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return &rawConn{t: t, c: c, r: bufio.NewReader(c)}
}

// get sends GET path (with a bearer token when caller is set) and returns
// the status code, or 0 when the connection was closed without an answer.
func (rc *rawConn) get(path, caller string) int {
	rc.t.Helper()
	req := "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
	if caller != "" {
		req += "Authorization: Bearer " + caller + "\r\n"
	}
	if _, err := io.WriteString(rc.c, req+"\r\n"); err != nil {
		return 0
	}
	_ = rc.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(rc.r, nil)
	if err != nil {
		return 0
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode
}

// closedByServer: the server has closed the connection (it reads EOF, or
// a reset, within a short wait).
func (rc *rawConn) closedByServer() bool {
	_ = rc.c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	_, err := rc.r.ReadByte()
	var netErr net.Error
	return err != nil && (!errors.As(err, &netErr) || !netErr.Timeout())
}

// Connections nobody authenticated on never count against a caller: a
// caller gets through however many of them one address holds, and the
// oldest waiting one makes room for a new connection when their pool is
// full.
func TestUnauthenticatedConnectionsDoNotLockOutCallers(t *testing.T) {
	addr := limitedServer(t, ConnLimits{PerCaller: 2, Unauthenticated: 4}, nil)
	idle := make([]*rawConn, 0, 10)
	for range 10 {
		idle = append(idle, dialRaw(t, addr))
	}
	time.Sleep(100 * time.Millisecond) // all ten accepted
	for i, c := range idle {
		if want := i < 6; c.closedByServer() != want {
			t.Errorf("idle connection %d of 10 closed = %v, want %v (the oldest give way to the newest four)", i, !want, want)
		}
	}
	if code := dialRaw(t, addr).get("/ok", "alice"); code != http.StatusOK {
		t.Errorf("alice behind ten idle connections from her address: HTTP %d, want 200", code)
	}
	// /health answers and closes: probes hold nothing.
	probe := dialRaw(t, addr)
	if code := probe.get("/health", ""); code != http.StatusOK || !probe.closedByServer() {
		t.Errorf("/health: HTTP %d, closed %v; want 200 and a closed connection", code, probe.closedByServer())
	}
	// A refused request closes its connection too.
	refused := dialRaw(t, addr)
	if code := refused.get("/ok", ""); code != http.StatusUnauthorized || !refused.closedByServer() {
		t.Errorf("no credentials: HTTP %d; want 401 and a closed connection", code)
	}
}

// One caller holds at most PerCaller connections: the next is answered 429
// and closed, another caller from the same address is not affected, and a
// closed connection gives its place back.
func TestConnectionsPerCallerAreCapped(t *testing.T) {
	addr := limitedServer(t, ConnLimits{PerCaller: 2, Unauthenticated: 4}, nil)
	first, second := dialRaw(t, addr), dialRaw(t, addr)
	for i, c := range []*rawConn{first, second} {
		if code := c.get("/ok", "alice"); code != http.StatusOK {
			t.Fatalf("alice's connection %d: HTTP %d", i+1, code)
		}
	}
	third := dialRaw(t, addr)
	if code := third.get("/ok", "alice"); code != http.StatusTooManyRequests || !third.closedByServer() {
		t.Errorf("alice's third connection: HTTP %d; want 429 and a closed connection", code)
	}
	if code := dialRaw(t, addr).get("/ok", "bob"); code != http.StatusOK {
		t.Errorf("bob, from alice's address: HTTP %d, want 200", code)
	}
	// Requests on a connection already counted are not counted again.
	if code := first.get("/ok", "alice"); code != http.StatusOK {
		t.Errorf("alice's first connection, again: HTTP %d", code)
	}
	_ = first.c.Close()
	time.Sleep(100 * time.Millisecond)
	if code := dialRaw(t, addr).get("/ok", "alice"); code != http.StatusOK {
		t.Errorf("alice after closing one: HTTP %d, want 200", code)
	}
}

// An unauthenticated connection serving a request is never displaced:
// the oldest waiting one is, and when every one is busy the new connection
// is closed instead.
func TestBusyConnectionsAreNotDisplaced(t *testing.T) {
	release := make(chan struct{})
	addr := limitedServer(t, ConnLimits{PerCaller: 2, Unauthenticated: 2}, release)
	busy := dialRaw(t, addr)
	if _, err := io.WriteString(busy.c, "GET /hold HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // the request is being served
	waiting := dialRaw(t, addr)
	time.Sleep(50 * time.Millisecond)
	newer := dialRaw(t, addr) // displaces waiting, not busy
	if !waiting.closedByServer() {
		t.Error("the waiting connection was kept when a newer one needed its place")
	}
	second := dialRaw(t, addr)
	if !newer.closedByServer() {
		t.Error("the waiting connection was kept when a newer one needed its place (second round)")
	}
	if _, err := io.WriteString(second.c, "GET /hold HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	if !dialRaw(t, addr).closedByServer() {
		t.Error("a connection was accepted while every unauthenticated one was busy")
	}
	close(release)
	for _, c := range []*rawConn{busy, second} {
		_ = c.c.SetReadDeadline(time.Now().Add(5 * time.Second))
		resp, err := http.ReadResponse(c.r, nil)
		if err != nil {
			t.Fatalf("a busy connection lost its answer: %v", err)
		}
		body, _ := io.ReadAll(resp.Body)
		if !strings.Contains(string(body), "released") {
			t.Errorf("busy connection's answer %q", body)
		}
	}
}

func TestConnLimitsCheck(t *testing.T) {
	for _, tt := range []struct {
		limits ConnLimits
		want   string
	}{
		{ConnLimits{PerCaller: 1, Unauthenticated: 1}, ""},
		{ConnLimits{PerCaller: 0, Unauthenticated: 1}, "--max-conns-per-client is 0"},
		{ConnLimits{PerCaller: 1, Unauthenticated: 0}, "--max-unauthenticated-conns is 0"},
		{ConnLimits{PerCaller: -1, Unauthenticated: 5}, "--max-conns-per-client is -1"},
	} {
		err := tt.limits.Check()
		if (tt.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want %q", tt.limits, err, tt.want)
		}
	}
}

func TestConnLimitsDefaults(t *testing.T) {
	got := ConnLimits{}.withDefaults()
	if got.PerCaller != DefaultMaxConnsPerCaller || got.Unauthenticated != DefaultMaxUnauthenticatedConns {
		t.Errorf("defaults %+v", got)
	}
	if got := (ConnLimits{PerCaller: 3, Unauthenticated: 5}).withDefaults(); got.PerCaller != 3 || got.Unauthenticated != 5 {
		t.Errorf("set limits changed: %+v", got)
	}
}
