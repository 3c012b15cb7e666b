//go:build integration

package mcpserver

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

func execute(t *testing.T, url, token, body string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url+"/execute", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer closeReadOnly(resp.Body)
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

func scanCount(t *testing.T, ns string) int {
	t.Helper()
	list := &cwacv1alpha1.CwacScanList{}
	if err := k8s.List(context.Background(), list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	return len(list.Items)
}

func TestStaticTokenAuth(t *testing.T) {
	h := newHarness(t)
	srv := httptest.NewServer(h.srv.Handler(HTTPOptions{Auth: StaticTokenAuth{Token: "s3cret-token"}}))
	defer srv.Close()
	list := `{"tool_name":"cwac_list_scans","arguments":{}}`
	for _, tt := range []struct {
		name, token string
		code        int
	}{{"no token", "", 401}, {"wrong token", "guess", 401}, {"right token", "s3cret-token", 200}} {
		code, out := execute(t, srv.URL, tt.token, list)
		if code != tt.code {
			t.Errorf("%s: HTTP %d %v, want %d", tt.name, code, out, tt.code)
		}
	}
	// The MCP endpoint too: a client without the token cannot even initialize.
	_, err := mcp.NewClient(&mcp.Implementation{Name: "no-token"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp"}, nil)
	if err == nil {
		t.Error("an MCP client without the token connected")
	}
	withToken := &http.Client{Transport: bearerTransport{"s3cret-token"}}
	session, err := mcp.NewClient(&mcp.Implementation{Name: "token"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", HTTPClient: withToken}, nil)
	if err != nil {
		t.Fatalf("with the token: %v", err)
	}
	// Connecting was the test; how the session closes is not.
	_ = session.Close()
	// /health needs no token (probes).
	resp, err := http.Get(srv.URL + "/health")
	if err != nil || resp.StatusCode != 200 {
		t.Errorf("health: %v %v", err, resp)
	}
}

type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// serviceAccountToken makes a service account with the given verbs on
// cwacscans in ns and returns a token for it.
func serviceAccountToken(t *testing.T, cs kubernetes.Interface, ns, name string, verbs ...string) string {
	t.Helper()
	ctx := context.Background()
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := cs.CoreV1().ServiceAccounts(ns).Create(ctx, sa, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if len(verbs) > 0 {
		role := &rbacv1.Role{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
			Rules:      []rbacv1.PolicyRule{{APIGroups: []string{"cwac.a11y.dev"}, Resources: []string{"cwacscans"}, Verbs: verbs}},
		}
		if err := k8s.Create(ctx, role); err != nil {
			t.Fatal(err)
		}
		rb := &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
			RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: name},
			Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: name, Namespace: ns}},
		}
		if err := k8s.Create(ctx, rb); err != nil {
			t.Fatal(err)
		}
	}
	tr, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(ctx, name, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("token for %s: %v", name, err)
	}
	return tr.Status.Token
}

// TestKubernetesAuth: tokens are checked with TokenReview and every call with
// SubjectAccessReview, so a caller can do only what their own RBAC allows.
func TestKubernetesAuth(t *testing.T) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	auth := &KubernetesAuth{Clientset: cs}
	h := newHarness(t, func(c *Config) { c.Authorizer = auth })
	srv := httptest.NewServer(h.srv.Handler(HTTPOptions{Auth: auth}))
	defer srv.Close()
	nobody := serviceAccountToken(t, cs, h.ns, "nobody")
	reader := serviceAccountToken(t, cs, h.ns, "reader", "get", "list")
	writer := serviceAccountToken(t, cs, h.ns, "writer", "get", "list", "create")
	scan := `{"tool_name":"cwac_scan","arguments":{"urls":["https://www.example.govt.nz/"],"audit_name":"authz"}}`
	list := `{"tool_name":"cwac_list_scans","arguments":{}}`

	if code, _ := execute(t, srv.URL, "", list); code != 401 {
		t.Errorf("no token: HTTP %d", code)
	}
	if code, _ := execute(t, srv.URL, "not-a-real-token", list); code != 401 {
		t.Errorf("bad token: HTTP %d", code)
	}
	code, out := execute(t, srv.URL, nobody, list)
	forbidden := "Forbidden: system:serviceaccount:" + h.ns + ":nobody may not list cwacscans"
	if code != 200 || out["status"] != "error" || !strings.Contains(out["error"].(string), forbidden) {
		t.Errorf("valid token without RBAC: %d %v", code, out)
	}
	if code, out := execute(t, srv.URL, reader, list); code != 200 || out["status"] != "success" {
		t.Errorf("reader list: %d %v", code, out)
	}
	code, out = execute(t, srv.URL, reader, scan)
	if out["status"] != "error" || !strings.Contains(out["error"].(string), "may not create cwacscans in namespace "+h.ns) {
		t.Errorf("reader scan: %d %v", code, out)
	}
	if n := scanCount(t, h.ns); n != 0 {
		t.Fatalf("refused callers created %d scans", n)
	}
	code, out = execute(t, srv.URL, writer, scan)
	if out["status"] != "success" {
		t.Fatalf("writer scan: %d %v", code, out)
	}
	id := out["output"].(map[string]any)["scan_id"].(string)
	created := getScanObj(t, h.ns, id)
	wantCaller := "kubernetes:system:serviceaccount:" + h.ns + ":writer"
	if created.Annotations[AnnotationCaller] != wantCaller {
		t.Errorf("caller annotation = %q, want %q", created.Annotations[AnnotationCaller], wantCaller)
	}
	events := &eventsv1.EventList{}
	_ = k8s.List(context.Background(), events, client.InNamespace(h.ns))
	found := false
	for _, e := range events.Items {
		if e.Reason == "CreatedViaMCP" && e.Regarding.Name == id && strings.Contains(e.Note, wantCaller) {
			found = true
		}
	}
	if !found {
		t.Errorf("no CreatedViaMCP event naming %s: %+v\n%s", wantCaller, events.Items, h.audit.String())
	}
	if !strings.Contains(h.audit.String(), `"outcome":"forbidden"`) || !strings.Contains(h.audit.String(), `"caller":"`+wantCaller+`"`) {
		t.Errorf("audit log lacks the forbidden call or the caller:\n%s", h.audit.String())
	}
}

func TestReadOnlyMode(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.ReadOnly = true })
	res, err := h.session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(res.Tools))
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	// Every reading tool stays (cwac_generate_report only reads); the two that change anything go.
	if len(names) != len(h.srv.ToolNames()) || slices.Contains(names, "cwac_scan") || slices.Contains(names, "cwac_cancel_scan") ||
		!slices.Contains(names, "cwac_generate_report") {
		t.Errorf("read-only tools = %v", names)
	}
	srv := httptest.NewServer(h.srv.Handler(HTTPOptions{Auth: AnonymousAuth{}}))
	defer srv.Close()
	if code, _ := execute(t, srv.URL, "", `{"tool_name":"cwac_scan","arguments":{"urls":["https://a.example/"]}}`); code != 404 {
		t.Errorf("cwac_scan in read-only mode: HTTP %d", code)
	}
}

func TestScanRateLimitPerCaller(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.ScansPerMinute = 1; c.ScanBurst = 2 })
	for i := 0; i < 2; i++ {
		h.mustCall("cwac_scan", map[string]any{"urls": []any{"https://a.example/"}})
	}
	_, errText := h.call("cwac_scan", map[string]any{"urls": []any{"https://a.example/"}})
	if !strings.HasPrefix(errText, "Rate limit: too many scans from stdio; try again in") {
		t.Errorf("third scan: %q", errText)
	}
	if n := scanCount(t, h.ns); n != 2 {
		t.Errorf("%d scans, want 2", n)
	}
	// Other callers have their own budget.
	srv := httptest.NewServer(h.srv.Handler(HTTPOptions{Auth: AnonymousAuth{}}))
	defer srv.Close()
	if _, out := execute(t, srv.URL, "", `{"tool_name":"cwac_scan","arguments":{"urls":["https://a.example/"]}}`); out["status"] != "success" {
		t.Errorf("another caller was limited: %v", out)
	}
}

type anyPublic struct{}

func (anyPublic) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if host == "metadata.attacker.example" {
		return []netip.Addr{netip.MustParseAddr("169.254.169.254")}, nil
	}
	return []netip.Addr{netip.MustParseAddr("151.101.0.9")}, nil
}

// TestHostileScanTargets: every refused target is refused with the rule
// named, and nothing is created.
func TestHostileScanTargets(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.Policy = urlpolicy.New(urlpolicy.Config{Resolver: anyPublic{}}) })
	for url, rule := range map[string]string{
		"http://127.0.0.1:8080/":                     "loopback",
		"http://2130706433/":                         "loopback",
		"http://0x7f.1/":                             "loopback",
		"http://0177.0.0.1/":                         "loopback",
		"http://[::ffff:127.0.0.1]/":                 "loopback",
		"http://0.0.0.0/":                            "unspecified",
		"http://[::]/":                               "unspecified",
		"http://169.254.169.254/":                    "link-local",
		"http://metadata.attacker.example/":          "link-local",
		"http://10.0.0.1/":                           "private",
		"http://[fd00::1]/":                          "private",
		"http://kubernetes.default.svc/":             "cluster-internal-name",
		"http://redis.cache.svc.cluster.local:6379/": "cluster-internal-name",
		"http://localhost/":                          "cluster-internal-name",
	} {
		_, errText := h.call("cwac_scan", map[string]any{"urls": []any{"https://www.example.govt.nz/", url}})
		if !strings.Contains(errText, "URL "+url+" is not allowed ("+rule+")") {
			t.Errorf("%s: %q, want rule %s", url, errText, rule)
		}
	}
	if n := scanCount(t, h.ns); n != 0 {
		t.Errorf("hostile targets created %d scans", n)
	}
}

func TestOversizedRequestsRefusedBeforeParsing(t *testing.T) {
	h := newHarness(t)
	srv := httptest.NewServer(h.srv.Handler(HTTPOptions{Auth: AnonymousAuth{}, MaxRequestBytes: 4096}))
	defer srv.Close()
	big := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call",` +
		`"params":{"name":"cwac_scan","arguments":{"urls":["https://a.example/` + strings.Repeat("x", 8192) + `"]}}}`)
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", big)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	closeReadOnly(resp.Body)
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("oversized MCP request: HTTP %d", resp.StatusCode)
	}
	if n := scanCount(t, h.ns); n != 0 {
		t.Errorf("%d scans created", n)
	}
}

func TestIdentityHeaderCannotBeForged(t *testing.T) {
	h := newHarness(t)
	srv := httptest.NewServer(h.srv.Handler(HTTPOptions{Auth: AnonymousAuth{}}))
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/execute", strings.NewReader(`{"tool_name":"cwac_scan","arguments":{"urls":["https://a.example/"]}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(IdentityHeader, encodeIdentity(&Identity{User: "system:admin", Method: "kubernetes"}))
	req.Header.Set(CallerHeader, "kubernetes:system:admin")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	closeReadOnly(resp.Body)
	id := out["output"].(map[string]any)["scan_id"].(string)
	if got := getScanObj(t, h.ns, id).Annotations[AnnotationCaller]; !strings.HasPrefix(got, "anonymous@127.0.0.1") {
		t.Errorf("a forged identity was believed: caller %q", got)
	}
}
