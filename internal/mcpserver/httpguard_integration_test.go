//go:build integration

package mcpserver

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func request(t *testing.T, method, url, host, token, contentType, body string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	closeReadOnly(resp.Body)
	return resp, string(data)
}

// Every route but /health checks Host on a loopback server, and
// state-changing routes refuse cross-origin and non-JSON requests: nothing
// is created by them.
func TestRESTRefusesRebindingAndCrossOrigin(t *testing.T) {
	h := newHarness(t)
	srv := httptest.NewServer(h.srv.Handler(HTTPOptions{Auth: AnonymousAuth{}}))
	defer srv.Close()
	scan := `{"tool_name":"cwac_scan","arguments":{"urls":["https://a.example/"]}}`
	tests := []struct {
		name, method, path, host, contentType string
		header                                map[string]string
		want                                  int
	}{
		{name: "tools with a foreign Host", method: http.MethodGet, path: "/tools", host: "evil.example", want: http.StatusForbidden},
		{
			name: "execute with a foreign Host", method: http.MethodPost, path: "/execute", host: "evil.example:8090",
			contentType: "application/json", want: http.StatusForbidden,
		},
		{
			name: "execute as text/plain (a form a web page may send)", method: http.MethodPost, path: "/execute",
			contentType: "text/plain", want: http.StatusUnsupportedMediaType,
		},
		{name: "execute without a content type", method: http.MethodPost, path: "/execute", want: http.StatusUnsupportedMediaType},
		{
			name: "execute from another site's page", method: http.MethodPost, path: "/execute", contentType: "application/json",
			header: map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"}, want: http.StatusForbidden,
		},
		{name: "mcp as text/plain", method: http.MethodPost, path: "/mcp", contentType: "text/plain", want: http.StatusUnsupportedMediaType},
		{name: "tools with localhost", method: http.MethodGet, path: "/tools", host: "localhost", want: http.StatusOK},
		{
			name: "execute from the same origin", method: http.MethodPost, path: "/execute", contentType: "application/json; charset=utf-8",
			header: map[string]string{"Sec-Fetch-Site": "same-origin"}, want: http.StatusOK,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := scanCount(t, h.ns)
			resp, body := request(t, tt.method, srv.URL+tt.path, tt.host, "", tt.contentType, scan, tt.header)
			if resp.StatusCode != tt.want {
				t.Fatalf("HTTP %d (%s), want %d", resp.StatusCode, body, tt.want)
			}
			if created := scanCount(t, h.ns) - before; tt.want != http.StatusOK && created != 0 {
				t.Errorf("a refused request created %d scans", created)
			}
		})
	}
}

// A client that sends its body too slowly is cut off after the body timeout.
func TestSlowBodiesAreCutOff(t *testing.T) {
	h := newHarness(t)
	srv := httptest.NewServer(h.srv.Handler(HTTPOptions{Auth: AnonymousAuth{}, BodyReadTimeout: 300 * time.Millisecond}))
	defer srv.Close()
	c, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer closeReadOnly(c)
	start := time.Now()
	_, _ = fmt.Fprintf(c, "POST /execute HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{")
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	reply, _ := io.ReadAll(c) // returns when the server closes the connection
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("the connection was held %s", took)
	}
	if !strings.Contains(string(reply), "HTTP/1.1 400") {
		t.Errorf("reply to a body that never came: %q", reply)
	}
}
