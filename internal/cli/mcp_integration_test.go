//go:build integration

package cli

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// unusedMCP fails the test if the command tries to reach the MCP server.
type unusedMCP struct{ t *testing.T }

func (u unusedMCP) Connect(context.Context, *rest.Config, string) (*MCPConn, error) {
	u.t.Error("the MCP server was contacted")
	return nil, io.ErrUnexpectedEOF
}

// fakeMCP is the MCP server's REST route as docs/mcp.md describes it:
// POST /execute with a bearer token, answering {status, output, error}.
type fakeMCP struct {
	token string // the only token it accepts
	// refuse answers 403 with this message (a SubjectAccessReview's no).
	refuse string

	mu    sync.Mutex
	calls []fakeCall
}

type fakeCall struct {
	Token    string
	ToolName string
	Args     map[string]any
}

// A row of testdata's real axe_core_audit.csv, as cwac_get_results returns it.
var fakeRow = map[string]any{
	"audit_type": "axe_core_audit", "organisation": "CWAC Test Org", "sector": "Test Sector", "page_title": "Home - CWAC test site",
	"base_url": "http://127.0.0.1:8765/", "url": "http://127.0.0.1:8765/", "viewport_size": map[string]any{"width": 320, "height": 450},
	"audit_id": "1_small", "page_id": "1", "audit_class": "AxeCoreAudit", "issue_id": "ccff8a6995", "id": "color-contrast",
	"impact": "serious", "num_issues": "1", "target": "/html/body/main/p", "help": "Elements must meet minimum color contrast ratio thresholds",
}

func (f *fakeMCP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	answer := func(code int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_ = json.NewEncoder(w).Encode(v)
	}
	if r.Method != http.MethodPost || r.URL.Path != "/execute" || r.Header.Get("Content-Type") != "application/json" {
		answer(http.StatusNotFound, map[string]any{"status": "error", "error": "not the route: " + r.Method + " " + r.URL.Path})
		return
	}
	token, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	var req struct {
		ToolName  string         `json:"tool_name"`
		Arguments map[string]any `json:"arguments"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		answer(http.StatusBadRequest, map[string]any{"status": "error", "error": err.Error()})
		return
	}
	f.mu.Lock()
	f.calls = append(f.calls, fakeCall{Token: token, ToolName: req.ToolName, Args: req.Arguments})
	f.mu.Unlock()
	if token != f.token {
		answer(http.StatusUnauthorized, map[string]any{"status": "error", "error": "unauthenticated: the token was not accepted"})
		return
	}
	if f.refuse != "" {
		answer(http.StatusForbidden, map[string]any{"status": "error", "error": f.refuse})
		return
	}
	var out any
	switch req.ToolName {
	case "cwac_get_results":
		out = map[string]any{"scan_id": req.Arguments["scan_id"], "audit_type": "axe_core_audit", "total_results": 12,
			"returned_results": 1, "results": []any{fakeRow}, "note": "use offset=1 to read on."}
	case "cwac_compare_scans":
		out = map[string]any{"scan_id": req.Arguments["scan_id"], "baseline_id": "weekly-prev", "source": "diff.json",
			"counts": map[string]any{"baseline": "weekly-prev", "new": 3, "fixed": 5, "unchanged": 14, "unstable": 1, "new_by_impact": map[string]any{"serious": 3}},
			"change": "new", "total_rows": 3, "returned_rows": 1,
			"rows": []any{map[string]any{"change": "new", "audit": "axe_core_audit", "organisation": "CWAC Test Org", "url": "http://127.0.0.1:8765/form.html",
				"viewport_width": 320, "rule": "label", "impact": "critical", "issues": 1}}}
	case "cwac_generate_report":
		out = map[string]any{"scan_id": req.Arguments["scan_id"], "generated": true, "report_html_content": "<!doctype html><title>CWAC report</title>"}
	default:
		answer(http.StatusNotFound, map[string]any{"status": "error", "error": "unknown tool"})
		return
	}
	answer(http.StatusOK, map[string]any{"status": "success", "output": out, "execution_time_ms": 3})
}

func (f *fakeMCP) recorded() []fakeCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeCall(nil), f.calls...)
}

// serviceAccountToken creates a service account allowed to read scans in
// the MCP server's namespace and returns a token of it.
func serviceAccountToken(t *testing.T, c *cluster, name string) string {
	t.Helper()
	ctx := t.Context()
	if err := c.admin.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: defaultMCPNamespace, Name: name}}); err != nil {
		t.Fatal(err)
	}
	c.grant(t, defaultMCPNamespace, name, rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: defaultMCPNamespace, Name: name}, "get", "list", "watch")
	cs, err := kubernetes.NewForConfig(c.cfg)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := cs.CoreV1().ServiceAccounts(defaultMCPNamespace).CreateToken(ctx, name, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tr.Status.Token
}

func TestResultFilesThroughMCP(t *testing.T) {
	c := envtestCluster(t)
	token := serviceAccountToken(t, c, "ci")
	c.createScan(t, defaultMCPNamespace, "weekly-abc12")
	fake := &fakeMCP{token: token}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	mcp := StaticMCP{URL: srv.URL, Client: srv.Client()}
	tokenKC := c.authKubeconfig(t, "ci", &clientcmdapi.AuthInfo{Token: token})
	credential, err := json.Marshal(map[string]any{"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential",
		"status": map[string]any{"token": token}})
	if err != nil {
		t.Fatal(err)
	}
	execKC := c.authKubeconfig(t, "ci-exec", &clientcmdapi.AuthInfo{Exec: &clientcmdapi.ExecConfig{
		APIVersion: "client.authentication.k8s.io/v1", Command: "sh", Args: []string{"-c", "printf '%s' '" + string(credential) + "'"},
		InteractiveMode: clientcmdapi.NeverExecInteractiveMode}})
	tokenFile := filepath.Join(t.TempDir(), "token")
	writeFile(t, tokenFile, token+"\n")
	tokenFileKC := c.authKubeconfig(t, "ci-file", &clientcmdapi.AuthInfo{TokenFile: tokenFile})
	reportFile := filepath.Join(t.TempDir(), "report.html")

	tests := []struct {
		name       string
		kubeconfig string
		args       []string
		wantTool   string
		wantArgs   map[string]any
		wantOut    []string
	}{
		{"results table with filters", tokenKC,
			[]string{"results", "weekly-abc12", "--audit", "axe_core_audit", "--impact", "serious", "--issues-only", "--limit", "1", "--offset", "2"},
			"cwac_get_results", map[string]any{"scan_id": "weekly-abc12", "audit_type": "axe_core_audit", "impact": "serious",
				"issues_only": true, "limit": 1.0, "offset": 2.0},
			[]string{"AUDIT", "axe_core_audit", "CWAC Test Org", "320x450", "color-contrast", "serious"}},
		{"results csv", tokenKC, []string{"results", "weekly-abc12", "-o", "csv"},
			"cwac_get_results", map[string]any{"scan_id": "weekly-abc12"},
			[]string{"audit_type,organisation,sector,page_title,base_url,url,viewport_size,id,impact,num_issues,", "axe_core_audit,CWAC Test Org,Test Sector"}},
		{"results json via an exec plugin's token", execKC, []string{"results", "weekly-abc12", "-o", "json"},
			"cwac_get_results", map[string]any{"scan_id": "weekly-abc12"}, []string{`"total_results": 12`, `"id": "color-contrast"`}},
		{"results via a token file", tokenFileKC, []string{"results", "weekly-abc12", "--impact", "minor"},
			"cwac_get_results", map[string]any{"scan_id": "weekly-abc12", "impact": "minor"}, []string{"color-contrast"}},
		{"diff", tokenKC, []string{"diff", "weekly-abc12", "--baseline", "weekly-prev", "--change", "new", "--impact", "critical", "--limit", "5"},
			"cwac_compare_scans", map[string]any{"scan_id": "weekly-abc12", "baseline_id": "weekly-prev", "change": "new", "impact": "critical", "limit": 5.0},
			[]string{"weekly-abc12 compared with weekly-prev (diff.json): 3 new, 5 fixed, 14 unchanged, 1 unstable", "1 of 3 new rows", "label", "critical"}},
		{"report to a file", tokenKC, []string{"report", "weekly-abc12", "--output", reportFile},
			"cwac_generate_report", map[string]any{"scan_id": "weekly-abc12", "regenerate": true}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(fake.recorded())
			o := &Options{MCP: mcp, OpenBrowser: func(string) error { t.Error("a browser was opened"); return nil }}
			r := runCLI(t.Context(), o, tt.kubeconfig, append(tt.args, "-n", defaultMCPNamespace)...)
			if r.code != ExitOK {
				t.Fatalf("%+v", r)
			}
			calls := fake.recorded()[before:]
			if len(calls) != 1 || calls[0].ToolName != tt.wantTool || calls[0].Token != token {
				t.Fatalf("calls %+v, want one %s with the user's token", calls, tt.wantTool)
			}
			for k, v := range tt.wantArgs {
				if calls[0].Args[k] != v {
					t.Errorf("argument %s = %v, want %v (all: %v)", k, calls[0].Args[k], v, calls[0].Args)
				}
			}
			for _, want := range tt.wantOut {
				if !strings.Contains(r.stdout, want) {
					t.Errorf("output lacks %q:\n%s", want, r.stdout)
				}
			}
		})
	}
	if data, err := os.ReadFile(reportFile); err != nil || string(data) != "<!doctype html><title>CWAC report</title>" {
		t.Errorf("report file: %q %v", data, err)
	}
}

func TestResultFilesRefusals(t *testing.T) {
	c := envtestCluster(t)
	token := serviceAccountToken(t, c, "viewer")
	c.createScan(t, defaultMCPNamespace, "refusals")
	tokenKC := c.authKubeconfig(t, "viewer", &clientcmdapi.AuthInfo{Token: token})
	tests := []struct {
		name       string
		kubeconfig string
		fake       *fakeMCP
		args       []string
		want       string
		wantCalls  int
	}{
		{"client certificate only", c.adminKubeconfig, &fakeMCP{token: token}, []string{"results", "refusals", "-n", defaultMCPNamespace},
			`needs a bearer token to check your permissions`, 0},
		{"certificate only, report", c.adminKubeconfig, &fakeMCP{token: token}, []string{"report", "refusals", "-n", defaultMCPNamespace, "-o", "x.html"},
			`--token "$(kubectl create token <service account> -n <namespace>)"`, 0},
		{"impersonation", c.adminKubeconfig, &fakeMCP{token: token},
			[]string{"results", "refusals", "-n", defaultMCPNamespace, "--token", "t", "--as", "someone", "--as-group", "system:masters"},
			"cannot be read while impersonating", 0},
		{"scan in another namespace", c.adminKubeconfig, &fakeMCP{token: token}, []string{"results", "s1", "-n", "team-a", "--token", "t"},
			"the MCP server in namespace cwac-system, which serves scans of that namespace only, and this scan is in team-a", 0},
		{"MCP server refuses", tokenKC, &fakeMCP{token: token, refuse: `User "system:serviceaccount:cwac-system:viewer" cannot list cwacscans`},
			[]string{"results", "refusals", "-n", defaultMCPNamespace},
			`the MCP server refused cwac_get_results (403 Forbidden): User "system:serviceaccount:cwac-system:viewer" cannot list cwacscans`, 1},
		{"MCP server rejects the token", tokenKC, &fakeMCP{token: "another"}, []string{"diff", "refusals", "-n", defaultMCPNamespace, "--baseline", "x"},
			"the MCP server did not accept your token (401 Unauthorized): unauthenticated", 1},
		{"no baseline", tokenKC, &fakeMCP{token: token}, []string{"diff", "refusals", "-n", defaultMCPNamespace},
			"scan refusals has no spec.baseline: name one with --baseline", 0},
		{"report not on a terminal", tokenKC, &fakeMCP{token: token}, []string{"report", "refusals", "-n", defaultMCPNamespace},
			"not on a terminal: give --output FILE", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.fake)
			defer srv.Close()
			o := &Options{MCP: StaticMCP{URL: srv.URL, Client: srv.Client()}, OpenBrowser: func(string) error { t.Error("a browser was opened"); return nil }}
			r := runCLI(t.Context(), o, tt.kubeconfig, tt.args...)
			if r.code != ExitError || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("got %+v\nwant exit 1 and %q", r, tt.want)
			}
			if n := len(tt.fake.recorded()); n != tt.wantCalls {
				t.Errorf("%d calls to the MCP server, want %d", n, tt.wantCalls)
			}
		})
	}
}

func TestReportOpensBrowserOnTerminal(t *testing.T) {
	c := envtestCluster(t)
	token := serviceAccountToken(t, c, "browser")
	c.createScan(t, defaultMCPNamespace, "browse")
	t.Setenv("TMPDIR", t.TempDir())
	srv := httptest.NewServer(&fakeMCP{token: token})
	defer srv.Close()
	var opened string
	o := &Options{MCP: StaticMCP{URL: srv.URL, Client: srv.Client()}, IsTerminal: func(io.Writer) bool { return true },
		OpenBrowser: func(p string) error { opened = p; return nil }}
	r := runCLI(t.Context(), o, c.authKubeconfig(t, "browser", &clientcmdapi.AuthInfo{Token: token}), "report", "browse", "-n", defaultMCPNamespace)
	if r.code != ExitOK || opened == "" {
		t.Fatalf("%+v, opened %q", r, opened)
	}
	if data, err := os.ReadFile(opened); err != nil || !strings.Contains(string(data), "CWAC report") {
		t.Errorf("opened file %s: %q %v", opened, data, err)
	}
	// With --output, never a browser, even on a terminal.
	opened = ""
	out := filepath.Join(t.TempDir(), "r.html")
	kc := c.authKubeconfig(t, "browser2", &clientcmdapi.AuthInfo{Token: token})
	if r := runCLI(t.Context(), o, kc, "report", "browse", "-n", defaultMCPNamespace, "--output", out); r.code != ExitOK || opened != "" {
		t.Fatalf("%+v, opened %q", r, opened)
	}
}
