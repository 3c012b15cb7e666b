package egress

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// site is an http server on 127.0.0.1 that says who asked for what.
func site(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Seen-Host", r.Host)
		w.Header().Set("X-Seen-URI", r.RequestURI)
		var leaked []string
		for _, h := range []string{"Proxy-Authorization", "Proxy-Connection", "X-Hop", "Keep-Alive", "Expect", "X-Forwarded-For", "Forwarded"} {
			if r.Header.Get(h) != "" {
				leaked = append(leaked, h)
			}
		}
		w.Header().Set("X-Leaked", strings.Join(leaked, ","))
		_, _ = io.WriteString(w, "hello from the site")
	}))
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	return port
}

// Plain http through the proxy reaches an allowed site, by name and by
// address, in origin form, without hop-by-hop or proxy fields.
func TestForwardsPlainHTTP(t *testing.T) {
	port := site(t)
	p, _ := startProxy(t, Config{Policy: testPolicy(newNames(map[string][]string{"site.example.org": {"127.0.0.1"}}))})
	for _, host := range []string{"site.example.org:" + port, "127.0.0.1:" + port} {
		resp, _, _ := rawRequest(t, p, "GET http://"+host+"/a/b?c=d HTTP/1.1\r\nHost: "+host+"\r\n"+
			"Proxy-Authorization: Basic eDp5\r\nProxy-Connection: keep-alive\r\nConnection: X-Hop\r\nX-Hop: 1\r\nExpect: 100-continue\r\n\r\n")
		if got := body(t, resp); resp.StatusCode != http.StatusOK || got != "hello from the site" {
			t.Fatalf("%s: %s %q", host, resp.Status, got)
		}
		if h := resp.Header; h.Get("X-Seen-Host") != host || h.Get("X-Seen-URI") != "/a/b?c=d" || h.Get("X-Leaked") != "" {
			t.Errorf("%s: the site saw Host %q, URI %q, and %q", host, h.Get("X-Seen-Host"), h.Get("X-Seen-URI"), h.Get("X-Leaked"))
		}
	}
	if b := p.Blocked(); b != nil {
		t.Errorf("refusals recorded: %+v", b)
	}
}

// An https site is reached through CONNECT, the tunnel carrying TLS end to
// end: a real client, as CWAC's Python and Chrome use the proxy.
func TestTunnelsHTTPS(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = fmt.Fprintf(w, "tls to %s", r.Host)
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	p, _ := startProxy(t, Config{Policy: testPolicy(newNames(map[string][]string{"secure.example.org": {"127.0.0.1"}}))})
	proxyURL, _ := url.Parse(p.URL())
	client := &http.Client{Transport: &http.Transport{
		Proxy: http.ProxyURL(proxyURL), TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // the test server's own certificate
	}}
	for i := range 2 { // a second request reuses the tunnel
		resp, err := client.Get("https://secure.example.org:" + port + "/")
		if err != nil {
			t.Fatal(err)
		}
		if got := body(t, resp); got != "tls to secure.example.org:"+port {
			t.Errorf("request %d: %q", i, got)
		}
	}
}

// Everything the policy refuses is answered 403 and recorded, through
// CONNECT and plain http alike, before any connection is made: addresses in
// every form a browser reads, private and metadata ranges, names that
// resolve to them, names that are the cluster's.
func TestRefusals(t *testing.T) {
	refused := newRefusedListener(t)
	port := refused.port()
	p, logs := startProxy(t, Config{Policy: testPolicy(newNames(map[string][]string{
		"metadata.example.org": {"169.254.169.254"},
		"refused.example.org":  {"127.0.0.2"},
		"private.example.org":  {"10.0.0.5"},
	}))})
	tests := []struct{ target, rule string }{
		{"169.254.169.254:80", "link-local"},
		{"metadata.example.org:80", "link-local"},
		{"10.0.0.5:443", "private"},
		{"private.example.org:443", "private"},
		{"192.168.1.1:443", "private"},
		{"100.100.100.200:80", "shared-address-space"},
		{"127.0.0.2:" + port, "loopback"},
		{"refused.example.org:" + port, "loopback"},
		{"0x7f000002:" + port, "loopback"},
		{"2130706434:" + port, "loopback"},
		{"[::1]:" + port, "loopback"},
		{"[::ffff:127.0.0.2]:" + port, "loopback"},
		{"[fd00:ec2::254]:80", "private"},
		// IPv6 zone identifiers: each of these connects where its address
		// does (the kernel ignores a zone on a global address), so they are
		// refused rather than seen as in no range.
		{"[::1%25lo]:" + port, "host"},
		{"[::%25lo]:" + port, "host"},
		{"[fe80::1%25lo]:" + port, "host"},
		{"[fd00:ec2::254%25lo]:80", "host"},
		{"[::ffff:127.0.0.2%25lo]:" + port, "host"},
		{"localhost:" + port, "cluster-internal-name"},
		{"kubernetes.default.svc:443", "cluster-internal-name"},
	}
	for _, tt := range tests {
		for _, req := range []string{
			"CONNECT " + tt.target + " HTTP/1.1\r\nHost: " + tt.target + "\r\n\r\n",
			"GET http://" + tt.target + "/latest/meta-data/ HTTP/1.1\r\nHost: " + tt.target + "\r\n\r\n",
		} {
			resp, _, _ := rawRequest(t, p, req)
			text := body(t, resp)
			if resp.StatusCode != http.StatusForbidden || !strings.Contains(text, "blocked by policy: "+strings.Replace(tt.target, "%25", "%", 1)+" ("+tt.rule+")") {
				t.Errorf("%q: %s %q, want 403 naming rule %s", firstLine(req), resp.Status, text, tt.rule)
			}
		}
	}
	// A name that does not resolve is not refused: it leads nowhere, and
	// is answered as unreachable (a tunnel 502, a plain request no answer),
	// not counted as blocked by policy.
	resp, _, _ := rawRequest(t, p, "CONNECT nosuch.example.org:443 HTTP/1.1\r\nHost: nosuch.example.org:443\r\n\r\n")
	if text := body(t, resp); resp.StatusCode != http.StatusBadGateway || strings.Contains(text, "blocked by policy") {
		t.Errorf("CONNECT nosuch.example.org: %s %q, want 502 unreachable, not a refusal", resp.Status, text)
	}
	if answer := rawNoAnswer(t, p, "GET http://nosuch.example.org/ HTTP/1.1\r\nHost: nosuch.example.org\r\n\r\n"); answer != "" {
		t.Errorf("GET http://nosuch.example.org/: answered %q, want no answer, not a refusal", answer)
	}
	b := p.Blocked()
	if b == nil || b.Total != int64(2*len(tests)) || len(b.Hosts) != len(tests) || b.Hosts[0].Host != "169.254.169.254:80" || b.Hosts[0].Count != 2 {
		t.Fatalf("record: %+v", b)
	}
	log := logs.String()
	for _, want := range []string{"blocked by policy", "host=169.254.169.254:80", "url=http://169.254.169.254:80/latest/meta-data/", "rule=link-local"} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %q:\n%s", want, log)
		}
	}
}

// A name that answers an allowed address, then a refused one (DNS
// rebinding), is resolved once per connection and connected to at the
// address checked: the first request reaches the site, the second is
// refused, and nothing ever reaches the refused address.
func TestDNSRebinding(t *testing.T) {
	sitePort := site(t)
	// The same port on the refused address, so that the name leads to
	// one or the other.
	refusedListenerOn(t, "127.0.0.2:"+sitePort)
	dns := newNames(map[string][]string{"rebind.example.org": {"127.0.0.1", "127.0.0.2"}})
	p, _ := startProxy(t, Config{Policy: testPolicy(dns)})
	target := "rebind.example.org:" + sitePort
	resp, _, _ := rawRequest(t, p, "GET http://"+target+"/ HTTP/1.1\r\nHost: "+target+"\r\n\r\n")
	if got := body(t, resp); resp.StatusCode != http.StatusOK || got != "hello from the site" {
		t.Errorf("first answer: %s %q", resp.Status, got)
	}
	for _, req := range []string{
		"GET http://" + target + "/ HTTP/1.1\r\nHost: " + target + "\r\n\r\n",
		"CONNECT " + target + " HTTP/1.1\r\nHost: " + target + "\r\n\r\n",
	} {
		resp, _, _ = rawRequest(t, p, req)
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%q after rebinding: %s", firstLine(req), resp.Status)
		}
	}
	if dns.asked["rebind.example.org"] != 3 {
		t.Errorf("the name was resolved %d times for 3 requests", dns.asked["rebind.example.org"])
	}
}

// The proxy never connects to itself, even where the policy opens its
// address: that would loop until its connections ran out.
func TestRefusesItself(t *testing.T) {
	p, _ := startProxy(t, Config{Policy: testPolicy(newNames(nil))})
	self := strings.TrimPrefix(p.URL(), "http://")
	for _, req := range []string{
		"CONNECT " + self + " HTTP/1.1\r\nHost: " + self + "\r\n\r\n",
		"GET http://" + self + "/ HTTP/1.1\r\nHost: " + self + "\r\n\r\n",
	} {
		resp, _, _ := rawRequest(t, p, req)
		if text := body(t, resp); resp.StatusCode != http.StatusForbidden || !strings.Contains(text, RuleProxyItself) {
			t.Errorf("%q: %s %q", firstLine(req), resp.Status, text)
		}
	}
}

// What is not a proxy request, or names no usable destination, is a bad
// request, recorded as no refusal.
func TestBadRequests(t *testing.T) {
	p, _ := startProxy(t, Config{Policy: testPolicy(newNames(nil))})
	tests := []struct{ req, want string }{
		{"GET / HTTP/1.1\r\nHost: example.org\r\n\r\n", "forward proxy"},
		{"GET https://example.org/ HTTP/1.1\r\nHost: example.org\r\n\r\n", "only http:// URLs"},
		{"GET ftp://example.org/ HTTP/1.1\r\nHost: example.org\r\n\r\n", "only http:// URLs"},
		{"CONNECT example.org HTTP/1.1\r\nHost: example.org\r\n\r\n", "not host:port"},
		{"CONNECT :443 HTTP/1.1\r\nHost: :443\r\n\r\n", "not host:port"},
		{"CONNECT example.org:0 HTTP/1.1\r\nHost: example.org:0\r\n\r\n", "from 1 to 65535"},
		{"CONNECT example.org:65536 HTTP/1.1\r\nHost: example.org:65536\r\n\r\n", "from 1 to 65535"},
		{"CONNECT example.org:https HTTP/1.1\r\nHost: example.org:https\r\n\r\n", ""}, // Go's server refuses it first
		{"GET http://example.org:0/ HTTP/1.1\r\nHost: example.org:0\r\n\r\n", "from 1 to 65535"},
	}
	for _, tt := range tests {
		resp, _, _ := rawRequest(t, p, tt.req)
		if text := body(t, resp); resp.StatusCode != http.StatusBadRequest || !strings.Contains(text, tt.want) {
			t.Errorf("%q: %s %q, want 400 with %q", firstLine(tt.req), resp.Status, text, tt.want)
		}
	}
	if b := p.Blocked(); b != nil {
		t.Errorf("bad requests were recorded as refusals: %+v", b)
	}
}

// The boundaries of what a client can make the proxy hold: a request
// header past the limit, a header never finished, a connection past the
// cap, a tunnel no byte crosses.
func TestLimits(t *testing.T) {
	t.Run("header size", func(t *testing.T) {
		p, _ := startProxy(t, Config{Policy: testPolicy(newNames(nil)), Limits: Limits{MaxHeaderBytes: 1024}})
		big := strings.Repeat("a", 8192)
		resp, _, _ := rawRequest(t, p, "GET http://example.org/ HTTP/1.1\r\nHost: example.org\r\nX-Big: "+big+"\r\n\r\n")
		if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
			t.Errorf("a header of 8 KiB over a limit of 1 KiB: %s", resp.Status)
		}
	})
	t.Run("header time", func(t *testing.T) {
		p, _ := startProxy(t, Config{Policy: testPolicy(newNames(nil)), Limits: Limits{HeaderTimeout: 200 * time.Millisecond}})
		conn, err := net.Dial("tcp", strings.TrimPrefix(p.URL(), "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = conn.Close() }()
		_, _ = io.WriteString(conn, "GET http://example.org/ HTTP/1.1\r\n") // and no more
		_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		start := time.Now()
		_, _ = io.ReadAll(conn)
		if time.Since(start) > 5*time.Second {
			t.Errorf("an unfinished header held the connection %s", time.Since(start))
		}
	})
	t.Run("connections", func(t *testing.T) {
		port := site(t)
		p, _ := startProxy(t, Config{Policy: testPolicy(newNames(nil)), Limits: Limits{MaxConns: 2}})
		addr := strings.TrimPrefix(p.URL(), "http://")
		held := make([]net.Conn, 0, 2)
		for range 2 {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			held = append(held, c)
		}
		// Both slots are taken by connections being served (tunnels): a
		// waiting connection would give its slot to a new one.
		for _, c := range held {
			_, _ = fmt.Fprintf(c, "CONNECT 127.0.0.1:%s HTTP/1.1\r\nHost: 127.0.0.1:%s\r\n\r\n", port, port)
			buf := make([]byte, 12)
			_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
			if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "HTTP/1.1 200" {
				t.Fatalf("a held connection: %q, %v", buf, err)
			}
		}
		third, err := net.Dial("tcp", addr) // the kernel queues it
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = third.Close() }()
		_, _ = fmt.Fprintf(third, "GET http://127.0.0.1:%s/ HTTP/1.1\r\nHost: 127.0.0.1:%s\r\n\r\n", port, port)
		_ = third.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		if n, _ := third.Read(make([]byte, 1)); n != 0 {
			t.Fatal("a third connection was served while two held the cap of 2")
		}
		_ = held[0].Close()
		_ = third.SetReadDeadline(time.Now().Add(10 * time.Second))
		buf := make([]byte, 12)
		if _, err := io.ReadFull(third, buf); err != nil || string(buf) != "HTTP/1.1 200" {
			t.Errorf("the third connection, once a slot was free: %q, %v", buf, err)
		}
		_ = held[1].Close()
	})
	t.Run("idle tunnel", func(t *testing.T) {
		silent, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = silent.Close() }()
		go func() {
			for {
				c, err := silent.Accept()
				if err != nil {
					return
				}
				defer func() { _ = c.Close() }() // held open, silent, until the test ends
			}
		}()
		p, _ := startProxy(t, Config{Policy: testPolicy(newNames(nil)), Limits: Limits{IdleTimeout: 300 * time.Millisecond}})
		target := silent.Addr().String()
		resp, conn, br := rawRequest(t, p, "CONNECT "+target+" HTTP/1.1\r\nHost: "+target+"\r\n\r\n")
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("CONNECT: %s", resp.Status)
		}
		start := time.Now()
		_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err := br.ReadByte(); err == nil || time.Since(start) > 5*time.Second {
			t.Errorf("an idle tunnel: %v after %s, want it closed after about 300ms", err, time.Since(start))
		}
	})
}

// A tunnel where bytes move one way only is in use: the quiet way's reads
// time out, but the tunnel stays open while the other way is busy.
func TestOneWayTunnelStaysOpen(t *testing.T) {
	ticker, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ticker.Close() }()
	go func() {
		c, err := ticker.Accept()
		if err != nil {
			return
		}
		defer func() { _ = c.Close() }()
		for range 25 {
			if _, err := c.Write([]byte("t")); err != nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	}()
	// Ten ticks to an idle time: only a stall of a whole second on a busy
	// machine could end the tunnel early.
	p, _ := startProxy(t, Config{Policy: testPolicy(newNames(nil)), Limits: Limits{IdleTimeout: time.Second}})
	target := ticker.Addr().String()
	resp, conn, br := rawRequest(t, p, "CONNECT "+target+" HTTP/1.1\r\nHost: "+target+"\r\n\r\n")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("CONNECT: %s", resp.Status)
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if got, err := io.ReadAll(br); string(got) != strings.Repeat("t", 25) {
		t.Errorf("2.5 s of one-way bytes through a tunnel idle after 1 s: %q, %v", got, err)
	}
}

// A tunnel passes an end of stream on and still carries the answer back;
// Close ends open tunnels at once.
func TestTunnelEnds(t *testing.T) {
	target := serveLoopback(t, func(c net.Conn) {
		data, _ := io.ReadAll(c) // to the client's end of stream
		_, _ = c.Write([]byte("echo:" + string(data)))
		_ = c.Close()
	})
	p, _ := startProxy(t, Config{Policy: testPolicy(newNames(nil))})
	resp, conn, br := rawRequest(t, p, "CONNECT "+target+" HTTP/1.1\r\nHost: "+target+"\r\n\r\nearly bytes;")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("CONNECT: %s", resp.Status)
	}
	_, _ = io.WriteString(conn, "hello")
	_ = conn.(*net.TCPConn).CloseWrite()
	if got, err := io.ReadAll(br); string(got) != "echo:early bytes;hello" {
		t.Errorf("through the half-closed tunnel: %q, %v", got, err)
	}

	resp, conn, br = rawRequest(t, p, "CONNECT "+target+" HTTP/1.1\r\nHost: "+target+"\r\n\r\n")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("CONNECT: %s", resp.Status)
	}
	closed := make(chan error, 1)
	go func() { _, err := br.ReadByte(); closed <- err }()
	_ = p.Close()
	select {
	case err := <-closed:
		if err == nil {
			t.Error("a byte came through a closed proxy")
		}
	case <-time.After(5 * time.Second):
		t.Error("Close left a tunnel open")
	}
	_ = conn
}
