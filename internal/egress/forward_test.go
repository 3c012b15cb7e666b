package egress

import (
	"bufio"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/testutil/freeport"
)

// rawSite answers every request on 127.0.0.1 with the bytes given, as a
// server a page chose might.
func rawSite(t *testing.T, answer string) string {
	t.Helper()
	return serveLoopback(t, func(c net.Conn) {
		defer func() { _ = c.Close() }()
		if _, err := http.ReadRequest(bufio.NewReader(c)); err != nil {
			return
		}
		_, _ = io.WriteString(c, answer)
	})
}

// Answers pass through as the destination framed them, hop-by-hop fields
// removed; interim answers are skipped; what cannot be passed on is a 502.
func TestForwardedAnswers(t *testing.T) {
	bigHeader := "HTTP/1.1 200 OK\r\nX-Big: " + strings.Repeat("b", 4096) + "\r\nContent-Length: 2\r\n\r\nok"
	tests := []struct {
		name, answer, method string
		status               int
		body                 string
		header, noHeader     string
	}{
		{name: "length", answer: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-Site: 1\r\n\r\nhello", status: 200, body: "hello", header: "X-Site"},
		{name: "chunked", answer: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n", status: 200, body: "abcde"},
		{name: "until close", answer: "HTTP/1.1 200 OK\r\n\r\nto the end", status: 200, body: "to the end"},
		{name: "head", method: "HEAD", answer: "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n", status: 200, body: ""},
		{name: "not found", answer: "HTTP/1.1 404 Not Found\r\nContent-Length: 4\r\n\r\nnope", status: 404, body: "nope"},
		{
			name:   "hop fields",
			answer: "HTTP/1.1 200 OK\r\nConnection: X-Hop\r\nX-Hop: 1\r\nKeep-Alive: timeout=5\r\nProxy-Authenticate: Basic\r\nContent-Length: 2\r\n\r\nok",
			status: 200, body: "ok", noHeader: "X-Hop,Keep-Alive,Proxy-Authenticate",
		},
		{name: "early hints", answer: "HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", status: 200, body: "ok"},
		{
			name:   "too many interim answers",
			answer: strings.Repeat("HTTP/1.1 103 Early Hints\r\n\r\n", maxInterimAnswers) + "HTTP/1.1 200 OK\r\n\r\n", status: 502, body: "interim answers",
		},
		{name: "upgrade", answer: "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n", status: 502, body: "switched protocols"},
		{name: "header over the limit", answer: bigHeader, status: 502, body: "over 2048 bytes"},
		{name: "not http", answer: "SSH-2.0-OpenSSH\r\n", status: 502, body: "reading the answer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			addr := rawSite(t, tt.answer)
			p, _ := startProxy(t, Config{Policy: testPolicy(newNames(nil)), Limits: Limits{MaxHeaderBytes: 2048}})
			method := tt.method
			if method == "" {
				method = "GET"
			}
			resp, _, _ := rawRequest(t, p, method+" http://"+addr+"/ HTTP/1.1\r\nHost: "+addr+"\r\n\r\n")
			got := body(t, resp)
			if resp.StatusCode != tt.status || tt.status == 200 && got != tt.body || tt.status != 200 && !strings.Contains(got, tt.body) {
				t.Errorf("%s %q, want %d %q", resp.Status, got, tt.status, tt.body)
			}
			if tt.header != "" && resp.Header.Get(tt.header) == "" {
				t.Errorf("%s was not passed on: %v", tt.header, resp.Header)
			}
			for _, h := range strings.Split(tt.noHeader, ",") {
				if h != "" && resp.Header.Get(h) != "" {
					t.Errorf("hop-by-hop %s was passed on", h)
				}
			}
			if p.Blocked() != nil {
				t.Error("recorded as a refusal")
			}
		})
	}
}

// An allowed destination that does not answer is never a refusal: a tunnel
// is answered 502 (what clients take for a failed connection), and a
// plain-http request gets no answer at all, as it would without the proxy
// (CWAC then records "no answer", not a 502 the site never sent).
func TestUnreachableIsNoRefusal(t *testing.T) {
	addr := freeport.Refused(t)
	p, _ := startProxy(t, Config{Policy: testPolicy(newNames(nil))})
	resp, _, _ := rawRequest(t, p, "CONNECT "+addr+" HTTP/1.1\r\nHost: "+addr+"\r\n\r\n")
	if text := body(t, resp); resp.StatusCode != http.StatusBadGateway || !strings.Contains(text, "cannot reach "+addr) {
		t.Errorf("CONNECT: %s %q, want 502 naming %s", resp.Status, text, addr)
	}
	if answer := rawNoAnswer(t, p, "GET http://"+addr+"/ HTTP/1.1\r\nHost: "+addr+"\r\n\r\n"); answer != "" {
		t.Errorf("GET of a closed port: answered %q, want the connection closed without an answer", answer)
	}
	if p.Blocked() != nil {
		t.Error("recorded as a refusal")
	}
}

// A site that closes the connection without answering is passed on the same
// way: no answer.
func TestSiteClosingWithoutAnswer(t *testing.T) {
	addr := rawSite(t, "") // reads the request, answers nothing, closes
	p, _ := startProxy(t, Config{Policy: testPolicy(newNames(nil))})
	if answer := rawNoAnswer(t, p, "GET http://"+addr+"/ HTTP/1.1\r\nHost: "+addr+"\r\n\r\n"); answer != "" {
		t.Errorf("answered %q, want the connection closed without an answer", answer)
	}
}

// Each refusal is logged up to the limit, then one line says the rest are
// counted only; the count goes on.
func TestRefusalLogLimit(t *testing.T) {
	for _, n := range []int{2, 3, 4} {
		p, logs := startProxy(t, Config{Policy: testPolicy(newNames(nil)), Limits: Limits{MaxLogged: 3}})
		for range n {
			resp, _, _ := rawRequest(t, p, "CONNECT 169.254.169.254:80 HTTP/1.1\r\nHost: 169.254.169.254:80\r\n\r\n")
			_ = body(t, resp)
		}
		log := logs.String()
		logged, further := strings.Count(log, `msg="blocked by policy"`), strings.Count(log, "further refusals")
		if logged != min(n, 3) || further != max(0, min(n-3, 1)) || p.Blocked().Total != int64(n) {
			t.Errorf("%d refusals: %d logged, %d notes, %d counted\n%s", n, logged, further, p.Blocked().Total, log)
		}
	}
}

// The upstream setting's own failure is a 502, not a refusal.
func TestUpstreamSettingFails(t *testing.T) {
	p, _ := startProxy(t, Config{
		Policy:   testPolicy(newNames(nil)),
		Upstream: func(*url.URL) (*url.URL, error) { return nil, errors.New("bad setting") },
	})
	for _, req := range []string{
		"CONNECT 127.0.0.1:1 HTTP/1.1\r\nHost: 127.0.0.1:1\r\n\r\n",
		"GET http://127.0.0.1:1/ HTTP/1.1\r\nHost: 127.0.0.1:1\r\n\r\n",
	} {
		resp, _, _ := rawRequest(t, p, req)
		if text := body(t, resp); resp.StatusCode != http.StatusBadGateway || !strings.Contains(text, "bad setting") {
			t.Errorf("%q: %s %q", firstLine(req), resp.Status, text)
		}
	}
}

func TestStart(t *testing.T) {
	if _, err := Start(Config{}); err == nil || !strings.Contains(err.Error(), "no policy") {
		t.Errorf("no policy: %v", err)
	}
	if _, err := Start(Config{Policy: testPolicy(nil), Addr: "256.0.0.1:0"}); err == nil {
		t.Error("a bad address was listened on")
	}
	p, err := Start(Config{Policy: testPolicy(nil), Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p.URL(), "http://127.0.0.1:") || p.URL() == "http://127.0.0.1:0" {
		t.Errorf("URL %s, want loopback on a port the kernel picked", p.URL())
	}
	if err := p.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if _, err := net.DialTimeout("tcp", strings.TrimPrefix(p.URL(), "http://"), time.Second); err == nil {
		t.Error("the proxy still accepts after Close")
	}
	p, err = Start(Config{Policy: testPolicy(nil)}) // no log: discarded
	if err != nil {
		t.Fatal(err)
	}
	_ = p.Close()
}

// Zero limits take the defaults; set ones are kept.
func TestLimitDefaults(t *testing.T) {
	d := DefaultLimits()
	if got := (Limits{}).orDefaults(); got != d {
		t.Errorf("zero limits: %+v, want %+v", got, d)
	}
	set := Limits{MaxConns: 1, MaxConnsPerClient: 7, MaxHeaderBytes: 2, HeaderTimeout: 3, DialTimeout: 4, IdleTimeout: 5,
		MinBytes: 8, RateWindow: 9, MaxLogged: 6}
	if got := set.orDefaults(); got != set {
		t.Errorf("set limits: %+v", got)
	}
	neg := Limits{MaxConns: -1, MaxConnsPerClient: -1, MaxHeaderBytes: -1, HeaderTimeout: -1, DialTimeout: -1, IdleTimeout: -1,
		MinBytes: -1, RateWindow: -1, MaxLogged: -1}
	if got := neg.orDefaults(); got != d {
		t.Errorf("negative limits: %+v, want the defaults", got)
	}
}
