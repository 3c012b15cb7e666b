//go:build integration

package mcpserver

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestDashboardMount: with HTTPOptions.Dashboard, every path the MCP
// routes do not serve goes to the dashboard, behind the Host check; the
// MCP routes and /health are unchanged; without it, / is not served.
func TestDashboardMount(t *testing.T) {
	h := newHarness(t)
	dash := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "dashboard "+r.URL.Path) })
	srv := httptest.NewServer(h.srv.Handler(HTTPOptions{Auth: StaticTokenAuth{Token: "t"}, Dashboard: dash}))
	defer srv.Close()
	get := func(path, host string) (int, string) {
		req, err := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if host != "" {
			req.Host = host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer closeReadOnly(resp.Body)
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	for _, path := range []string{"/", "/organisations/cwac/Alpha%20Agency", "/scans"} {
		if code, body := get(path, ""); code != http.StatusOK || !strings.HasPrefix(body, "dashboard /") {
			t.Errorf("%s: %d %q", path, code, body)
		}
	}
	if code, body := get("/health", ""); code != http.StatusOK || !strings.Contains(body, `"status"`) {
		t.Errorf("/health: %d %q", code, body)
	}
	if code, _ := get("/tools", ""); code != http.StatusUnauthorized {
		t.Errorf("/tools without the token: %d", code)
	}
	if code, body := get("/", "evil.example"); code != http.StatusForbidden || strings.Contains(body, "dashboard") {
		t.Errorf("a rebound Host reached the dashboard: %d %q", code, body)
	}

	plain := httptest.NewServer(h.srv.Handler(HTTPOptions{Auth: AnonymousAuth{}}))
	defer plain.Close()
	resp, err := http.Get(plain.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	closeReadOnly(resp.Body)
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("/ without a dashboard: %d", resp.StatusCode)
	}
}
