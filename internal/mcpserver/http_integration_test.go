//go:build integration

package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

func post(t *testing.T, url, body string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer closeReadOnly(resp.Body)
	var out map[string]any
	data, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("answer is not JSON: %s", data)
	}
	return resp.StatusCode, out
}

func TestRESTInterface(t *testing.T) {
	h := newHarness(t)
	srv := httptest.NewServer(h.srv.Handler(HTTPOptions{MaxRequestBytes: 64 * 1024, Auth: AnonymousAuth{}}))
	defer srv.Close()

	resp, err := http.Get(srv.URL + "/tools")
	if err != nil {
		t.Fatal(err)
	}
	var tools struct {
		Tools []map[string]any `json:"tools"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&tools)
	closeReadOnly(resp.Body)
	if len(tools.Tools) != len(h.srv.ToolNames()) || tools.Tools[0]["input_schema"] == nil || tools.Tools[0]["name"] != h.srv.ToolNames()[0] {
		t.Fatalf("GET /tools = %v", tools)
	}

	tests := []struct {
		name       string
		body       string
		wantCode   int
		wantStatus string
		wantErr    string
	}{
		{"unknown tool", `{"tool_name":"rm_rf","arguments":{}}`, 404, "error", `unknown tool "rm_rf"`},
		{"wrong argument type", `{"tool_name":"cwac_get_results","arguments":{"scan_id":5}}`, 400, "error", "invalid arguments"},
		{"unknown argument", `{"tool_name":"cwac_scan_status","arguments":{"scan_id":"x","cmd":"id"}}`, 400, "error", "invalid arguments"},
		{"not JSON", `{"tool_name":`, 400, "error", "invalid request"},
		{"unknown request field", `{"tool_name":"cwac_list_scans","arguments":{},"shell":true}`, 400, "error", "invalid request"},
		{"negative timeout", `{"tool_name":"cwac_list_scans","arguments":{},"timeout":-1}`, 400, "error", "invalid timeout"},
		{"tool error", `{"tool_name":"cwac_scan_status","arguments":{"scan_id":"nope"}}`, 200, "error", "No scan found with ID: nope"},
		{"refused scan", `{"tool_name":"cwac_scan","arguments":{"urls":[]}}`, 200, "error", "At least one URL is required"},
		{"success", `{"tool_name":"cwac_list_scans","arguments":{}}`, 200, "success", ""},
		{
			"oversized body", `{"tool_name":"cwac_scan","arguments":{"urls":["https://a.example/` + strings.Repeat("x", 70*1024) + `"]}}`,
			413, "error", "larger than 65536 bytes",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out := post(t, srv.URL+"/execute", tt.body)
			if code != tt.wantCode || out["status"] != tt.wantStatus {
				t.Fatalf("HTTP %d %v, want %d %s", code, out, tt.wantCode, tt.wantStatus)
			}
			if errText, _ := out["error"].(string); !strings.Contains(errText, tt.wantErr) {
				t.Errorf("error %q, want %q", errText, tt.wantErr)
			}
			if _, ok := out["execution_time_ms"]; !ok {
				t.Error("no execution_time_ms")
			}
		})
	}
}

func TestHealth(t *testing.T) {
	h := newHarness(t)
	srv := httptest.NewServer(h.srv.Handler(HTTPOptions{Auth: AnonymousAuth{}}))
	defer srv.Close()
	get := func() (int, map[string]any) {
		resp, err := http.Get(srv.URL + "/health")
		if err != nil {
			t.Fatal(err)
		}
		defer closeReadOnly(resp.Body)
		var out map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	if code, out := get(); code != 200 || out["status"] != "ok" {
		t.Errorf("healthy: %d %v", code, out)
	}
	if err := os.RemoveAll(h.root); err != nil {
		t.Fatal(err)
	}
	if code, out := get(); code != 503 || out["api_server"] != "ok" || !strings.HasPrefix(out["results_root"].(string), "unreadable") {
		t.Errorf("without results root: %d %v", code, out)
	}
}

// TestCallTimeout: a tool whose API call hangs is cut off by the per-call
// timeout, with a clear error and an audit line saying so.
func TestCallTimeout(t *testing.T) {
	withWatch, err := client.NewWithWatch(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	slow := interceptor.NewClient(withWatch, interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			<-ctx.Done()
			return ctx.Err()
		},
	})
	h := newHarness(t, func(c *Config) { c.Client = slow; c.CallTimeout = 300 * time.Millisecond })
	_, errText := h.call("cwac_scan_status", map[string]any{"scan_id": "hangs"})
	if !strings.Contains(errText, "timed out after 300ms") {
		t.Errorf("error = %q", errText)
	}
	if !strings.Contains(h.audit.String(), `"outcome":"timeout"`) {
		t.Errorf("audit log: %s", h.audit.String())
	}
}

// TestResponseCap: results larger than the response cap are cut with a note.
func TestResponseCap(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.MaxResponseBytes = 8 * 1024 })
	id := h.mustCall("cwac_scan", map[string]any{"urls": []any{"https://a.example/"}, "audit_name": "cap"})["scan_id"].(string)
	h.completeScan(id)
	out := h.mustCall("cwac_get_results", map[string]any{"scan_id": id, "limit": 1000})
	data, _ := json.Marshal(out)
	if len(data) > 8*1024 || out["truncated"] != true || out["total_results"] != 50.0 || !strings.Contains(out["note"].(string), "Response capped at 8192 bytes") {
		t.Errorf("capped answer: %d bytes, truncated %v, total %v, note %v", len(data), out["truncated"], out["total_results"], out["note"])
	}
}

// TestStreamableHTTP drives the server over its HTTP transport with the Go
// SDK's client, and checks DNS-rebinding protection and the caller header.
func TestStreamableHTTP(t *testing.T) {
	h := newHarness(t)
	srv := httptest.NewServer(h.srv.Handler(HTTPOptions{Auth: AnonymousAuth{}}))
	defer srv.Close()
	session, err := mcp.NewClient(&mcp.Implementation{Name: "http-test"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Teardown only: the test has its answers, and a failed close changes none.
	defer func() { _ = session.Close() }()
	res, err := session.CallTool(context.Background(), &mcp.CallToolParams{
		Name:      "cwac_scan",
		Arguments: map[string]any{"urls": []string{"https://a.example/"}, "audit_name": "over-http"},
	})
	if err != nil || res.IsError {
		t.Fatalf("cwac_scan over HTTP: %v %v", err, res)
	}
	id := res.StructuredContent.(map[string]any)["scan_id"].(string)
	scan := getScanObj(t, h.ns, id)
	if !strings.HasPrefix(scan.Annotations[AnnotationCaller], "anonymous@127.0.0.1") {
		t.Errorf("caller annotation = %q", scan.Annotations[AnnotationCaller])
	}

	// A request to a loopback server naming another host is refused (DNS rebinding).
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", bytes.NewReader([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)))
	req.Host = "evil.example:80"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	closeReadOnly(resp.Body)
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("rebinding request: HTTP %d, want 403", resp.StatusCode)
	}
}
