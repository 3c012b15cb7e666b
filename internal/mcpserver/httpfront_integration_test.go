//go:build integration

package mcpserver

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanspec"
)

// serveAsTheBinaryDoes runs NewHTTPServer (the binary's server: its
// timeouts and connection limits) on a loopback port.
func serveAsTheBinaryDoes(t *testing.T, h *harness, opts HTTPOptions) (*HTTPServer, string) {
	t.Helper()
	hs := h.srv.NewHTTPServer(opts)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = hs.Serve(l) }()
	t.Cleanup(func() { _ = hs.Close() })
	return hs, "http://" + l.Addr().String()
}

func kubernetesAuthHarness(t *testing.T) (*harness, *KubernetesAuth, kubernetes.Interface) {
	t.Helper()
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	auth := &KubernetesAuth{Clientset: cs}
	return newHarness(t, func(c *Config) { c.Authorizer = auth }), auth, cs
}

// TestHealthPollersDoNotLockOutCallers: every port-forwarded client
// arrives from 127.0.0.1. With 100 connections from that address polling
// /health and holding their connections between polls, and 200 more that
// never finish their request headers, a caller with a token from the same
// address gets every request through, over REST and MCP.
func TestHealthPollersDoNotLockOutCallers(t *testing.T) {
	h, auth, cs := kubernetesAuthHarness(t)
	token := serviceAccountToken(t, cs, h.ns, "port-forwarded", "get", "list")
	hs, base := serveAsTheBinaryDoes(t, h, HTTPOptions{Auth: auth})
	addr := strings.TrimPrefix(base, "http://")

	stop := make(chan struct{})
	var wg sync.WaitGroup
	defer func() { close(stop); wg.Wait() }()
	hold := func(c net.Conn) {
		select {
		case <-stop:
		case <-time.After(time.Second): // the poll interval (60 s in the field)
		}
		_ = c.Close()
	}
	for range 100 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				c, err := net.Dial("tcp", addr)
				if err != nil {
					continue
				}
				_, _ = io.WriteString(c, "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
				if resp, err := http.ReadResponse(bufio.NewReader(c), nil); err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					_ = resp.Body.Close()
				}
				_ = c.Close()
				// Then a connection held open, idle, until the next poll.
				if c, err = net.Dial("tcp", addr); err == nil {
					hold(c)
				}
			}
		})
	}
	for range 200 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if c, err := net.Dial("tcp", addr); err == nil {
					_, _ = io.WriteString(c, "GET /tools HTTP/1.1\r\nHost: 127.0.0.1\r\n") // never finished
					hold(c)
				}
			}
		})
	}
	time.Sleep(time.Second)
	hs.limiter.mu.Lock()
	held := hs.limiter.unauthenticated
	hs.limiter.mu.Unlock()
	if held < 2*DefaultMaxConnsPerCaller {
		t.Fatalf("only %d unauthenticated connections are open: the test proves nothing", held)
	}

	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	for i := range 6 {
		req, _ := http.NewRequest(http.MethodGet, base+"/tools", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("request %d of 6 with %d unauthenticated connections open: %v", i+1, held, err)
		}
		closeReadOnly(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("request %d of 6: HTTP %d", i+1, resp.StatusCode)
		}
		time.Sleep(200 * time.Millisecond)
	}
	session, err := mcp.NewClient(&mcp.Implementation{Name: "port-forwarded"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: bearerTransport{token}}}, nil)
	if err != nil {
		t.Fatalf("MCP client with a token, among the held connections: %v", err)
	}
	defer func() { _ = session.Close() }()
	res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "cwac_list_scans", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Errorf("cwac_list_scans among the held connections: %v %+v", err, res)
	}
	t.Logf("%d unauthenticated connections open from 127.0.0.1; the caller's 6 requests and MCP call all answered", held)
}

// TestInitializeFloodKeepsNothing: 5,000 initialize calls with the token
// of a service account that has no RBAC leave no session behind and the
// heap where it was: the server is stateless, so an initialize costs only
// its own request.
func TestInitializeFloodKeepsNothing(t *testing.T) {
	h, auth, cs := kubernetesAuthHarness(t)
	nobody := serviceAccountToken(t, cs, h.ns, "nobody")
	_, base := serveAsTheBinaryDoes(t, h, HTTPOptions{Auth: auth})
	sessions := func() int {
		n := 0
		for range h.srv.MCP().Sessions() {
			n++
		}
		return n
	}
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapInuse
	}
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize",` +
		`"params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"flood","version":"1"}}}`
	post := func(client *http.Client, body string) (*http.Response, string) {
		req, _ := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+nobody)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := client.Do(req)
		if err != nil {
			t.Error(err)
			return nil, ""
		}
		data, _ := io.ReadAll(resp.Body)
		closeReadOnly(resp.Body)
		return resp, string(data)
	}

	resp, body := post(http.DefaultClient, initialize)
	if resp == nil || resp.StatusCode != http.StatusOK || !strings.Contains(body, `"protocolVersion"`) {
		t.Fatalf("initialize: %v %s", resp, body)
	}
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
		t.Errorf("initialize issued session %q", id)
	}
	sessionsBefore, heapBefore := sessions(), heap()
	const flood, callers = 5000, 8
	var wg sync.WaitGroup
	for range callers {
		wg.Go(func() {
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
			for range flood / callers {
				if resp, _ := post(client, initialize); resp != nil && resp.StatusCode != http.StatusOK {
					t.Errorf("initialize in the flood: HTTP %d", resp.StatusCode)
					return
				}
			}
		})
	}
	wg.Wait()
	sessionsAfter, heapAfter := sessions(), heap()
	t.Logf("%d initialize calls: sessions %d → %d, heap in use %d → %d MiB", flood, sessionsBefore, sessionsAfter, heapBefore>>20, heapAfter>>20)
	if sessionsAfter != sessionsBefore {
		t.Errorf("%d sessions after %d initialize calls, %d before", sessionsAfter, flood, sessionsBefore)
	}
	// Kept sessions cost about 6 KiB each (30 MiB for these); none at all
	// leaves the heap within noise.
	if grown := int64(heapAfter) - int64(heapBefore); grown > 12<<20 {
		t.Errorf("the heap grew %d MiB over %d initialize calls", grown>>20, flood)
	}

	// No session to use or end: a session ID is neither needed nor read.
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	if resp, body := post(http.DefaultClient, list); resp == nil || resp.StatusCode != http.StatusOK || !strings.Contains(body, "cwac_scan_status") {
		t.Errorf("tools/list without initialize or session: %v %s", resp, body)
	}
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		req, _ := http.NewRequest(method, base+"/mcp", nil)
		req.Header.Set("Authorization", "Bearer "+nobody)
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", "made-up")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		closeReadOnly(resp.Body)
		if resp.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("%s /mcp: HTTP %d, want 405 (no sessions)", method, resp.StatusCode)
		}
	}
}

// TestProgressOverStatelessHTTP: without sessions, a long call's progress
// notifications still reach the caller, on the stream that answers it.
func TestProgressOverStatelessHTTP(t *testing.T) {
	h := newHarness(t)
	srv := httptest.NewServer(h.srv.Handler(HTTPOptions{Auth: AnonymousAuth{}}))
	defer srv.Close()
	id := h.mustCall("cwac_scan", map[string]any{"urls": []any{"https://a.example/"}, "audit_name": "wait-http"})["scan_id"].(string)
	scan := getScanObj(t, h.ns, id)
	rel := scanspec.ScanDir(scan) + "/2026-11-21_23-18-23_" + scanspec.AuditName(scan)
	copyFixture(t, h.root+"/"+rel)
	now := metav1.Now()
	h.setStatus(id, cwacv1alpha1.CwacScanStatus{Phase: cwacv1alpha1.PhaseRunning, ResultsPath: rel, StartTime: &now})

	var mu sync.Mutex
	var notes []string
	client := mcp.NewClient(&mcp.Implementation{Name: "waiter"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			notes = append(notes, req.Params.Message)
		},
	})
	session, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = session.Close() }()
	go func() {
		time.Sleep(3 * time.Second)
		h.completeScan(id)
	}()
	params := &mcp.CallToolParams{Name: "cwac_scan_status", Arguments: map[string]any{"scan_id": id, "wait_seconds": 20}}
	params.SetProgressToken("wait-http")
	res, err := session.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		t.Fatalf("cwac_scan_status over HTTP: %v %+v", err, res)
	}
	if got := res.StructuredContent.(map[string]any)["status"]; got != "complete" {
		t.Errorf("status %v, want complete", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(notes) < 2 || !strings.Contains(notes[0], "pages") {
		t.Errorf("progress notifications over HTTP %q, want one per look while it ran", notes)
	}
	t.Logf("%d progress notifications over stateless HTTP", len(notes))
}
