package egress

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/testutil/freeport"
)

// fakeUpstream is a proxy on loopback that records what it is asked:
// CONNECT gets 200 (or refused, when told) and an echo; anything else an
// answer saying it came through the upstream.
type fakeUpstream struct {
	ln     net.Listener
	refuse bool
	mu     sync.Mutex
	seen   []string // each request's head, as sent
}

func newFakeUpstream(t *testing.T) *fakeUpstream {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := &fakeUpstream{ln: ln}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go u.serve(c)
		}
	}()
	return u
}

func (u *fakeUpstream) serve(c net.Conn) {
	defer func() { _ = c.Close() }()
	br := bufio.NewReader(c)
	var head strings.Builder
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return
		}
		head.WriteString(line)
		if line == "\r\n" {
			break
		}
	}
	u.mu.Lock()
	u.seen = append(u.seen, head.String())
	u.mu.Unlock()
	connect := strings.HasPrefix(head.String(), "CONNECT ")
	switch {
	case u.refuse:
		_, _ = io.WriteString(c, "HTTP/1.1 403 Forbidden\r\nContent-Length: 7\r\n\r\nrefused")
	case connect:
		_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\n\r\n")
		line, _ := br.ReadString('\n')
		_, _ = io.WriteString(c, "echo:"+line)
	default:
		_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\nvia upstream")
	}
}

func (u *fakeUpstream) requests() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]string(nil), u.seen...)
}

// Through an upstream proxy, the destination is checked all the same and
// the upstream asked for it by name; the upstream's credentials go to it,
// the client's nowhere; refused destinations never reach it.
func TestUpstream(t *testing.T) {
	up := newFakeUpstream(t)
	upURL, _ := url.Parse("http://user:secret@" + up.ln.Addr().String())
	dns := newNames(map[string][]string{"site.example.org": {"127.0.0.1"}, "metadata.example.org": {"169.254.169.254"}})
	p, _ := startProxy(t, Config{Policy: testPolicy(dns), Upstream: func(*url.URL) (*url.URL, error) { return upURL, nil }})

	resp, conn, br := rawRequest(t, p, "CONNECT site.example.org:443 HTTP/1.1\r\nHost: site.example.org:443\r\n\r\n")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("CONNECT through the upstream: %s", resp.Status)
	}
	_, _ = io.WriteString(conn, "ping\n")
	if line, _ := br.ReadString('\n'); line != "echo:ping\n" {
		t.Errorf("through the upstream's tunnel: %q", line)
	}
	resp, _, _ = rawRequest(t, p, "GET http://site.example.org:8080/p?q=1 HTTP/1.1\r\nHost: site.example.org:8080\r\nProxy-Authorization: Basic Y2xpZW50\r\n\r\n")
	if got := body(t, resp); got != "via upstream" {
		t.Errorf("plain http through the upstream: %s %q", resp.Status, got)
	}
	for _, target := range []string{"metadata.example.org:443", "169.254.169.254:80"} {
		resp, _, _ = rawRequest(t, p, "CONNECT "+target+" HTTP/1.1\r\nHost: "+target+"\r\n\r\n")
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("CONNECT %s through the upstream: %s", target, resp.Status)
		}
	}
	seen := up.requests()
	if len(seen) != 2 {
		t.Fatalf("the upstream was asked %d times, want 2", len(seen))
	}
	auth := "Proxy-Authorization: Basic dXNlcjpzZWNyZXQ=\r\n" // user:secret
	for i, want := range []string{"CONNECT site.example.org:443 HTTP/1.1\r\n", "GET http://site.example.org:8080/p?q=1 HTTP/1.1\r\n"} {
		if !strings.HasPrefix(seen[i], want) || strings.Count(seen[i], "Proxy-Authorization") != 1 || !strings.Contains(seen[i], auth) {
			t.Errorf("the upstream was asked:\n%s\nwant %q with its credentials alone", seen[i], want)
		}
	}
	if !strings.Contains(seen[1], "\r\nHost: site.example.org:8080\r\n") {
		t.Errorf("the plain-http request's Host:\n%s", seen[1])
	}
}

// An upstream that refuses a tunnel, cannot be reached, or is not http
// makes a 502; its answer to a plain-http request is passed on. The
// destination was allowed, so neither is a refusal.
func TestUpstreamFails(t *testing.T) {
	up := newFakeUpstream(t)
	up.refuse = true
	closedAddr := freeport.Refused(t)
	connect := "CONNECT site.example.org:443 HTTP/1.1\r\nHost: site.example.org:443\r\n\r\n"
	get := "GET http://site.example.org/ HTTP/1.1\r\nHost: site.example.org\r\n\r\n"
	tests := []struct {
		proxy, req string
		status     int
		want       string
	}{
		{"http://" + up.ln.Addr().String(), connect, http.StatusBadGateway, "answered 403 Forbidden"},
		{"http://" + up.ln.Addr().String(), get, http.StatusForbidden, "refused"},
		{"http://" + closedAddr, connect, http.StatusBadGateway, "cannot reach site.example.org"},
		{"http://" + closedAddr, get, http.StatusBadGateway, "cannot reach site.example.org"},
		{"https://" + up.ln.Addr().String(), connect, http.StatusBadGateway, "only http:// proxies"},
		{"socks5://" + up.ln.Addr().String(), get, http.StatusBadGateway, "only http:// proxies"},
	}
	for _, tt := range tests {
		u, _ := url.Parse(tt.proxy)
		p, _ := startProxy(t, Config{
			Policy:   testPolicy(newNames(map[string][]string{"site.example.org": {"127.0.0.1"}})),
			Upstream: func(*url.URL) (*url.URL, error) { return u, nil },
		})
		resp, _, _ := rawRequest(t, p, tt.req)
		if text := body(t, resp); resp.StatusCode != tt.status || !strings.Contains(text, tt.want) {
			t.Errorf("%s, %q: %s %q, want %d with %q", tt.proxy, firstLine(tt.req), resp.Status, text, tt.status, tt.want)
		}
		if p.Blocked() != nil {
			t.Errorf("%s: an upstream's failure was recorded as a refusal", tt.proxy)
		}
	}
}

// The pod's proxy settings, as curl and Python read them, give the
// upstream; NO_PROXY sends destinations around it.
func TestUpstreamFromEnv(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		target  string
		want    string
		wantErr string
	}{
		{name: "none", env: nil},
		{name: "https only", env: map[string]string{"HTTPS_PROXY": "http://proxy.corp:3128"}, target: "https://a.example.org", want: "http://proxy.corp:3128"},
		{name: "https only, plain http", env: map[string]string{"HTTPS_PROXY": "http://proxy.corp:3128"}, target: "http://a.example.org", want: ""},
		{name: "lower case", env: map[string]string{"http_proxy": "http://proxy.corp:3128"}, target: "http://a.example.org", want: "http://proxy.corp:3128"},
		{
			name: "upper case first", env: map[string]string{"HTTP_PROXY": "http://upper:1", "http_proxy": "http://lower:2"},
			target: "http://a.example.org", want: "http://upper:1",
		},
		{name: "no scheme", env: map[string]string{"HTTPS_PROXY": "proxy.corp:3128"}, target: "https://a.example.org", want: "http://proxy.corp:3128"},
		{
			name: "NO_PROXY", env: map[string]string{"HTTPS_PROXY": "http://proxy.corp:3128", "NO_PROXY": "internal.example.org"},
			target: "https://www.internal.example.org", want: "",
		},
		{name: "https proxy", env: map[string]string{"HTTPS_PROXY": "https://proxy.corp:3128"}, wantErr: "HTTPS_PROXY: the upstream proxy must be an http:// URL"},
		{name: "socks", env: map[string]string{"HTTP_PROXY": "socks5://user:pw@proxy.corp:1080"}, wantErr: "socks5://user:xxxxx@proxy.corp:1080"},
		{name: "no host", env: map[string]string{"HTTP_PROXY": "http://"}, wantErr: "HTTP_PROXY"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := UpstreamFromEnv(func(k string) string { return tt.env[k] })
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || strings.Contains(err.Error(), ":pw@") {
					t.Fatalf("%v, want an error with %q and no password", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.env == nil {
				if f != nil {
					t.Error("an upstream with no setting")
				}
				return
			}
			target, _ := url.Parse(tt.target)
			got, err := f(target)
			if err != nil {
				t.Fatal(err)
			}
			if s := ""; got != nil {
				s = got.String()
				if s != tt.want {
					t.Errorf("%s: %s, want %q", tt.target, s, tt.want)
				}
			} else if tt.want != "" {
				t.Errorf("%s: direct, want %q", tt.target, tt.want)
			}
		})
	}
}
