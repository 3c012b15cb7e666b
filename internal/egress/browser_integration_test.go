//go:build integration

package egress_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/a11y-dev/cwac-operator/internal/egress"
	"github.com/a11y-dev/cwac-operator/internal/runner"
	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

// The browser test: headless Chromium started with the runner's proxy
// flags (runner.ChromeProxyFlags, as CWAC's Chrome gets them) loads pages
// of a site on 127.0.0.1 that lead to 127.0.0.2, which the policy refuses,
// by every means a page has. Nothing may reach 127.0.0.2, by TCP or UDP,
// and the proxy must have logged each refusal. Loopback only.

// counter counts what reaches a refused address.
type counter struct{ n atomic.Int64 }

// refusedTCP listens on 127.0.0.2 (port "0": any) and counts connections.
func refusedTCP(t *testing.T, port string, c *counter) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.2:"+port)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			c.n.Add(1)
			_ = conn.Close()
		}
	}()
	_, p, _ := net.SplitHostPort(ln.Addr().String())
	return p
}

// refusedUDP listens on 127.0.0.2 and counts datagrams (a STUN server's port).
func refusedUDP(t *testing.T, c *counter) string {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.2:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pc.Close() })
	go func() {
		buf := make([]byte, 2048)
		for {
			if _, _, err := pc.ReadFrom(buf); err != nil {
				return
			}
			c.n.Add(1)
		}
	}()
	_, p, _ := net.SplitHostPort(pc.LocalAddr().String())
	return p
}

// rebinding answers 127.0.0.1 the first time it is asked a name, and
// 127.0.0.2 after; other names it knows always answer the same.
type rebinding struct {
	mu    sync.Mutex
	asked map[string]int
}

func (r *rebinding) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch host {
	case "refused.example.org":
		return []netip.Addr{netip.MustParseAddr("127.0.0.2")}, nil
	case "rebind.example.org":
		r.asked[host]++
		if r.asked[host] == 1 {
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		}
		return []netip.Addr{netip.MustParseAddr("127.0.0.2")}, nil
	}
	return nil, errors.New("no such host") // the browser's own background requests
}

type syncLog struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{os.Getenv("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"} {
		if name == "" {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("the browser test needs Chromium (Debian: apt-get install chromium; or set CHROMIUM to the browser's path)")
	return ""
}

func TestBrowserGetsNothingThroughToARefusedAddress(t *testing.T) {
	browserPath := chromium(t)
	var tcp, udp counter
	// The site's own port on the refused address too, so that a name
	// rebound from one to the other would reach it.
	siteLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, sitePort, _ := net.SplitHostPort(siteLn.Addr().String())
	refusedTCP(t, sitePort, &tcp)
	port := refusedTCP(t, "0", &tcp)
	stunPort := refusedUDP(t, &udp)
	refused := "127.0.0.2:" + port

	html := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = fmt.Fprintf(w, "<!doctype html><html><head><title>t</title></head><body>%s</body></html>", body)
		}
	}
	var siteRequests atomic.Int64
	mux := http.NewServeMux()
	mux.Handle("/location", http.RedirectHandler("http://"+refused+"/location", http.StatusFound))
	mux.Handle("/https", http.RedirectHandler("https://"+refused+"/https", http.StatusFound))
	mux.Handle("/name", http.RedirectHandler("http://refused.example.org:"+port+"/name", http.StatusFound))
	mux.HandleFunc("/refresh-header", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Refresh", "0; url=http://"+refused+"/refresh-header")
		html("refreshing")(w, r)
	})
	mux.Handle("/meta", html(`<meta http-equiv="refresh" content="0; url=http://`+refused+`/meta">`))
	mux.Handle("/script", html(`<script>location.href = "http://`+refused+`/script";</script>`))
	mux.Handle("/img", html(`<img alt="x" src="http://`+refused+`/img">`))
	mux.Handle("/iframe", html(`<iframe title="x" src="http://`+refused+`/iframe"></iframe>`))
	mux.Handle("/fetch", html(`<script>fetch("http://`+refused+`/fetch", {mode: "no-cors"}).catch(() => {});</script>`))
	mux.Handle("/websocket", html(`<script>new WebSocket("ws://`+refused+`/websocket");</script>`))
	mux.Handle("/rebind", html(`<script>setTimeout(() => fetch("/rebind-again?" + Date.now()).catch(() => {}), 200);</script>`))
	mux.Handle("/webrtc", html(`<script>
		const pc = new RTCPeerConnection({iceServers: [
			{urls: "stun:127.0.0.2:`+stunPort+`"},
			{urls: "turn:`+refused+`?transport=udp", username: "u", credential: "c"},
		]});
		pc.createDataChannel("d");
		pc.createOffer().then(o => pc.setLocalDescription(o));
	</script>`))
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			siteRequests.Add(1)
			mux.ServeHTTP(w, r)
		}),
		ReadHeaderTimeout: 5 * time.Second,
	}
	go func() { _ = srv.Serve(siteLn) }()
	t.Cleanup(func() { _ = srv.Close() })
	site := "http://127.0.0.1:" + sitePort

	allow, _ := urlpolicy.ParseCIDRs("127.0.0.1/32")
	logs := &syncLog{}
	proxy, err := egress.Start(egress.Config{
		Policy: urlpolicy.New(urlpolicy.Config{Resolver: &rebinding{asked: map[string]int{}}, AllowCIDRs: allow}),
		Log:    slog.New(slog.NewTextHandler(logs, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = proxy.Close() })

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browserPath), chromedp.NoSandbox)
	for _, f := range runner.ChromeProxyFlags(proxy.URL()) {
		name, value, _ := strings.Cut(strings.TrimPrefix(f, "--"), "=")
		opts = append(opts, chromedp.Flag(name, value))
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("starting %s: %v", browserPath, err)
	}

	tests := []struct {
		means, page string
		logged      []string // what the proxy's log must show
	}{
		{"a Location redirect", site + "/location", []string{"url=http://" + refused + "/location"}},
		{"a Location redirect to https", site + "/https", []string{"host=" + refused + " url=" + refused + " rule=loopback"}},
		{"a redirect to a name that resolves to a refused address", site + "/name", []string{"url=http://refused.example.org:" + port + "/name"}},
		{"a Refresh header", site + "/refresh-header", []string{"url=http://" + refused + "/refresh-header"}},
		{"a meta refresh", site + "/meta", []string{"url=http://" + refused + "/meta"}},
		{"a script setting location", site + "/script", []string{"url=http://" + refused + "/script"}},
		{"an image", site + "/img", []string{"url=http://" + refused + "/img"}},
		{"a frame", site + "/iframe", []string{"url=http://" + refused + "/iframe"}},
		{"a fetch", site + "/fetch", []string{"url=http://" + refused + "/fetch"}},
		{"a WebSocket", site + "/websocket", []string{"host=" + refused + " url=" + refused}},
		{"DNS rebinding", "http://rebind.example.org:" + sitePort + "/rebind", []string{"url=http://rebind.example.org:" + sitePort + "/rebind-again?"}},
		{"WebRTC", site + "/webrtc", nil}, // its UDP must not leave; what it tries over the proxy is refused like the rest
	}
	for _, tt := range tests {
		t.Run(tt.means, func(t *testing.T) {
			before := siteRequests.Load()
			ctx, cancel := chromedp.NewContext(bctx)
			defer cancel()
			ctx, cancelTimeout := context.WithTimeout(ctx, 30*time.Second)
			defer cancelTimeout()
			_ = chromedp.Do(ctx, chromedp.Navigate(tt.page)) // a navigation that ends in a refusal is an error page
			deadline := time.Now().Add(10 * time.Second)
			for _, want := range tt.logged {
				for !strings.Contains(logs.String(), want) && time.Now().Before(deadline) {
					time.Sleep(50 * time.Millisecond)
				}
				if !strings.Contains(logs.String(), want) {
					t.Errorf("the proxy did not log %q", want)
				}
			}
			if tt.logged == nil {
				time.Sleep(2 * time.Second) // ICE gathering
			}
			if siteRequests.Load() == before {
				t.Errorf("the page %s was never asked of the site (through the proxy)", tt.page)
			}
		})
	}
	if n := tcp.n.Load(); n != 0 {
		t.Errorf("%d TCP connections reached 127.0.0.2", n)
	}
	if n := udp.n.Load(); n != 0 {
		t.Errorf("%d UDP datagrams reached 127.0.0.2 (WebRTC)", n)
	}
	if b := proxy.Blocked(); b == nil || b.Total < int64(len(tests)-1) {
		t.Errorf("the proxy counted %+v", b)
	}
	if t.Failed() {
		t.Logf("the proxy's log:\n%s", logs.String())
	}
}
