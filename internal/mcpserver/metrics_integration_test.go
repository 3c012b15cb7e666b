//go:build integration

package mcpserver

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/a11y-dev/cwac-operator/internal/metrics"
)

// getMetrics GETs /metrics with the bearer token, if any.
func getMetrics(t *testing.T, url, token string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, url+MetricsPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer closeReadOnly(resp.Body)
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// onlyResources authorises tool calls but knows nothing of non-resource URLs.
type onlyResources struct{}

func (onlyResources) Authorize(context.Context, *Identity, string, string, string) error { return nil }

// denyAll refuses every tool call.
type denyAll struct{}

func (denyAll) Authorize(context.Context, *Identity, string, string, string) error {
	return errors.New("Forbidden: nobody may")
}

// metricsReader binds the service account to a ClusterRole allowing GET
// /metrics, as the chart's metrics-reader role does.
func metricsReader(t *testing.T, ns, name string) {
	t.Helper()
	ctx := context.Background()
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: ns + "-" + name},
		Rules:      []rbacv1.PolicyRule{{NonResourceURLs: []string{MetricsPath}, Verbs: []string{"get"}}},
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: ns + "-" + name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: ns}},
	}
	if err := k8s.Create(ctx, role); err != nil {
		t.Fatal(err)
	}
	if err := k8s.Create(ctx, binding); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(context.Background(), binding); _ = k8s.Delete(context.Background(), role) })
}

// TestMetricsRouteKubernetesAuth: /metrics needs a Kubernetes token (401
// without one) and the right to GET the non-resource URL /metrics (403
// without it: rights on cwacscans are not enough).
func TestMetricsRouteKubernetesAuth(t *testing.T) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	auth := &KubernetesAuth{Clientset: cs}
	h := newHarness(t, func(c *Config) { c.Authorizer = auth })
	srv := httptest.NewServer(h.srv.Handler(HTTPOptions{Auth: auth}))
	defer srv.Close()
	scanUser := serviceAccountToken(t, cs, h.ns, "scan-user", "get", "list", "create")
	scraper := serviceAccountToken(t, cs, h.ns, "scraper")
	metricsReader(t, h.ns, "scraper")

	tests := []struct {
		name, token string
		want        int
	}{
		{"no token", "", http.StatusUnauthorized},
		{"a token the API server rejects", "not-a-token", http.StatusUnauthorized},
		{"rights on cwacscans only", scanUser, http.StatusForbidden},
		{"GET /metrics granted", scraper, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := getMetrics(t, srv.URL, tt.token)
			if code != tt.want {
				t.Fatalf("HTTP %d, want %d: %.300s", code, tt.want, body)
			}
			if has := strings.Contains(body, "cwac_mcp_tool_calls_total"); has != (tt.want == http.StatusOK) {
				t.Errorf("metrics in the answer: %v, want %v: %.300s", has, tt.want == http.StatusOK, body)
			}
		})
	}

	// A call counts under its tool and outcome: the scraper may not list scans.
	list := `{"tool_name":"cwac_list_scans","arguments":{}}`
	if code, out := execute(t, srv.URL, scraper, list); code != 200 || out["status"] != executeError {
		t.Fatalf("scraper's list: %d %v", code, out)
	}
	if code, out := execute(t, srv.URL, scanUser, list); code != 200 || out["status"] != executeSuccess {
		t.Fatalf("scan user's list: %d %v", code, out)
	}
	_, body := getMetrics(t, srv.URL, scraper)
	for _, series := range []string{
		`cwac_mcp_tool_calls_total{outcome="forbidden",tool="cwac_list_scans"} 1`,
		`cwac_mcp_tool_calls_total{outcome="ok",tool="cwac_list_scans"} 1`,
		`cwac_mcp_tool_calls_total{outcome="ok",tool="cwac_scan"} 0`,
		`cwac_mcp_tool_call_duration_seconds_count{tool="cwac_list_scans"} 2`,
	} {
		if !strings.Contains(body, series+"\n") {
			t.Errorf("no %s in:\n%s", series, grepLines(body, "cwac_mcp_tool_calls_total"))
		}
	}
}

func grepLines(body, prefix string) string {
	var out []string
	for _, l := range strings.Split(body, "\n") {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestMetricsRouteOtherAuth: with a static token, the token is all /metrics
// needs; an authoriser that cannot judge non-resource URLs refuses scrapes.
func TestMetricsRouteOtherAuth(t *testing.T) {
	tests := []struct {
		name       string
		authorizer Authorizer
		auth       Authenticator
		token      string
		want       int
	}{
		{"static token: none sent", nil, StaticTokenAuth{Token: "s3cret"}, "", http.StatusUnauthorized},
		{"static token: wrong one", nil, StaticTokenAuth{Token: "s3cret"}, "guess", http.StatusUnauthorized},
		{"static token: right one", nil, StaticTokenAuth{Token: "s3cret"}, "s3cret", http.StatusOK},
		{"an authoriser without non-resource URLs", onlyResources{}, StaticTokenAuth{Token: "s3cret"}, "s3cret", http.StatusForbidden},
		{"no authentication configured", nil, nil, "", http.StatusUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, func(c *Config) { c.Authorizer = tt.authorizer })
			srv := httptest.NewServer(h.srv.Handler(HTTPOptions{Auth: tt.auth}))
			defer srv.Close()
			if code, body := getMetrics(t, srv.URL, tt.token); code != tt.want {
				t.Errorf("HTTP %d, want %d: %.300s", code, tt.want, body)
			}
		})
	}
}

// TestToolCallMetrics: every path of invoke counts once, under the tool's
// registered name and the audit line's outcome.
func TestToolCallMetrics(t *testing.T) {
	h := newHarness(t)
	srv := httptest.NewServer(h.srv.Handler(HTTPOptions{Auth: AnonymousAuth{}}))
	defer srv.Close()
	denied := newHarness(t, func(c *Config) { c.Authorizer = denyAll{} })
	deniedSrv := httptest.NewServer(denied.srv.Handler(HTTPOptions{Auth: AnonymousAuth{}}))
	defer deniedSrv.Close()

	tests := []struct {
		name, url, body string
		srv             *Server
		tool, outcome   string
	}{
		{"ok", srv.URL, `{"tool_name":"cwac_list_scans","arguments":{}}`, h.srv, "cwac_list_scans", metrics.OutcomeOK},
		{"a tool's error", srv.URL, `{"tool_name":"cwac_scan_status","arguments":{"scan_id":"nope"}}`, h.srv, "cwac_scan_status", metrics.OutcomeError},
		{"forbidden", deniedSrv.URL, `{"tool_name":"cwac_get_summary","arguments":{"scan_id":"x"}}`, denied.srv, "cwac_get_summary", metrics.OutcomeForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := callCount(t, tt.srv, tt.tool, tt.outcome)
			execute(t, tt.url, "", tt.body)
			if got := callCount(t, tt.srv, tt.tool, tt.outcome); got != before+1 {
				t.Errorf("calls{%s,%s}: %v → %v, want one more", tt.tool, tt.outcome, before, got)
			}
		})
	}
	// An unknown tool is refused before it runs: no series for the caller's name.
	execute(t, srv.URL, "", `{"tool_name":"rm_rf","arguments":{}}`)
	if strings.Contains(gathered(t, h.srv), "rm_rf") {
		t.Error("a caller's tool name became a label")
	}
}

func callCount(t *testing.T, s *Server, tool, outcome string) float64 {
	t.Helper()
	want := `cwac_mcp_tool_calls_total{outcome="` + outcome + `",tool="` + tool + `"} `
	for _, l := range strings.Split(gathered(t, s), "\n") {
		if v, ok := strings.CutPrefix(l, want); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
	}
	t.Fatalf("no series %s", want)
	return 0
}

// gathered is the server's registry in the text exposition format.
func gathered(t *testing.T, s *Server) string {
	t.Helper()
	rec := httptest.NewRecorder()
	promhttp.HandlerFor(s.Registry(), promhttp.HandlerOpts{}).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, MetricsPath, nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("gathering: HTTP %d %s", rec.Code, rec.Body)
	}
	return rec.Body.String()
}
