package egress

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

// The tests' network is loopback only: the site the policy allows is on
// 127.0.0.1 (opened by the policy's allow-list, as for tests on one
// machine), and the address it refuses is 127.0.0.2, where a listener
// counts every connection that reaches it: none ever may.

// names answers like a DNS server for the tests' names; a name with
// several answers gives the next one each time it is asked (a rebinding
// server).
type names struct {
	mu      sync.Mutex
	answers map[string][]string
	asked   map[string]int
}

func newNames(answers map[string][]string) *names {
	return &names{answers: answers, asked: map[string]int{}}
}

func (n *names) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	a, ok := n.answers[host]
	if !ok {
		return nil, errors.New("no such host")
	}
	i := min(n.asked[host], len(a)-1)
	n.asked[host]++
	return []netip.Addr{netip.MustParseAddr(a[i])}, nil
}

// testPolicy allows 127.0.0.1 and nothing else that the built-in rules refuse.
func testPolicy(r urlpolicy.Resolver) *urlpolicy.Policy {
	allow, _ := urlpolicy.ParseCIDRs("127.0.0.1/32")
	return urlpolicy.New(urlpolicy.Config{Resolver: r, AllowCIDRs: allow, Timeout: 2 * time.Second})
}

// refusedListener listens on 127.0.0.2 and counts the connections that reach it.
type refusedListener struct {
	ln      net.Listener
	reached atomic.Int64
}

func newRefusedListener(t *testing.T) *refusedListener { return refusedListenerOn(t, "127.0.0.2:0") }

func refusedListenerOn(t *testing.T, addr string) *refusedListener {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listening on %s: %v", addr, err)
	}
	r := &refusedListener{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			r.reached.Add(1)
			_ = c.Close()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		if n := r.reached.Load(); n != 0 {
			t.Errorf("%d connections reached the refused listener", n)
		}
	})
	return r
}

func (r *refusedListener) port() string {
	_, p, _ := net.SplitHostPort(r.ln.Addr().String())
	return p
}

// logBuffer collects the proxy's log.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func startProxy(t *testing.T, cfg Config) (*Proxy, *logBuffer) {
	t.Helper()
	logs := &logBuffer{}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	p, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p, logs
}

// rawRequest sends text to the proxy on a new connection and reads one
// answer; conn stays open for what follows (a tunnel).
func rawRequest(t *testing.T, p *Proxy, text string) (*http.Response, net.Conn, *bufio.Reader) {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(p.URL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(conn, text); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	method := strings.SplitN(text, " ", 2)[0]
	resp, err := http.ReadResponse(br, &http.Request{Method: method})
	if err != nil {
		t.Fatalf("%q: %v", firstLine(text), err)
	}
	return resp, conn, br
}

// rawNoAnswer sends a request and returns whatever the proxy answers
// before closing the connection ("" when it closed without answering).
func rawNoAnswer(t *testing.T, p *Proxy, text string) string {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(p.URL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(conn, text); err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(conn)
	if err != nil {
		t.Fatalf("%q: %v (want the connection closed)", firstLine(text), err)
	}
	return string(b)
}

func firstLine(s string) string { return strings.SplitN(s, "\r\n", 2)[0] }

func body(t *testing.T, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// serveLoopback listens on loopback and hands each connection to serve in
// its own goroutine until the test ends; it returns the address.
func serveLoopback(t *testing.T, serve func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go serve(c)
		}
	}()
	return ln.Addr().String()
}
