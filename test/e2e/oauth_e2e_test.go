//go:build integration

package e2e

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/testutil/freeport"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
	"github.com/a11y-dev/cwac-operator/internal/testutil/devoidc"
)

// TestMCPOAuthWithRealClient: the official MCP TypeScript client signs in
// by itself, as AI clients do, against the built mcp-server run with
// --oauth-resource-url and the development OpenID Connect provider
// (zitadel's OP library) on loopback: refused first with the server's
// resource metadata, it discovers the provider, signs the user in, gets
// an access token for the server's resource and calls tools, each
// authorised by that user's RBAC on a real API server.
func TestMCPOAuthWithRealClient(t *testing.T) {
	c := startCluster(t)
	bin := buildMCPServer(t)
	if err := os.MkdirAll(c.root, 0o755); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(nodeClient(t))
	script := filepath.Join(dir, "oauth-client.mjs")

	addr := fmt.Sprintf("127.0.0.1:%d", freeport.Port(t))
	resource := "http://" + addr + "/mcp"
	const (
		clientID, clientSecret = "mcp-e2e-client", "mcp-e2e-client-secret-0123456789"
		redirect               = "http://127.0.0.1:9/oauth/callback" // the client's: never served, the script reads the code off it
		password               = "development-password"
	)
	idp := httptest.NewUnstartedServer(nil)
	idp.Start()
	t.Cleanup(idp.Close)
	p, err := devoidc.New(devoidc.Config{Issuer: idp.URL, ClientID: clientID, ClientSecret: clientSecret,
		RedirectURIs: []string{redirect, "http://" + addr + "/oauth2/callback"}, Password: password, AccessTokenAudience: []string{resource},
		Users: []devoidc.User{{Email: "alice@example.org", Groups: []string{"auditors"}}, {Email: "bob@example.org"},
			{Email: "carol@example.org", Groups: []string{"health-web"}}}})
	if err != nil {
		t.Fatal(err)
	}
	idp.Config.Handler = p.Handler()

	// The auditors group may list the namespace's scans; bob is in none.
	ctx := context.Background()
	if err := c.k8s.Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "auditors", Namespace: c.namespace},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{"cwac.a11y.dev"}, Resources: []string{"cwacscans"}, Verbs: []string{"get", "list"}}}}); err != nil {
		t.Fatal(err)
	}
	if err := c.k8s.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "auditors", Namespace: c.namespace},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "auditors"},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.GroupKind, Name: "oidc:auditors"}}}); err != nil {
		t.Fatal(err)
	}

	// carol's group reads the Ministry of Health by grant, in an issue
	// history of two organisations.
	if err := c.k8s.Create(ctx, &cwacv1alpha1.CwacOrganisationGrant{ObjectMeta: metav1.ObjectMeta{Name: "health", Namespace: c.namespace},
		Spec: cwacv1alpha1.CwacOrganisationGrantSpec{
			Subjects:      []cwacv1alpha1.GrantSubject{{Kind: cwacv1alpha1.GrantSubjectGroup, Name: "oidc:health-web"}},
			Organisations: []string{"Ministry of Health"}}}); err != nil {
		t.Fatal(err)
	}
	history := "sqlite://" + filepath.Join(t.TempDir(), "history.db")
	st, err := store.Open(ctx, history)
	if err != nil {
		t.Fatal(err)
	}
	storetest.TwoAgencies(t, st, c.namespace)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	keyFile := filepath.Join(t.TempDir(), "session-keys")
	if err := os.WriteFile(keyFile, []byte(strings.Repeat("0123456789abcdef", 4)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var logs syncBuf
	srv := exec.Command(bin, "--transport=http", "--listen="+addr, "--auth=kubernetes", "--namespace="+c.namespace,
		"--results-root="+c.root, "--kubeconfig="+c.kubeconfig,
		"--dashboard-oidc-issuer="+idp.URL, "--dashboard-oidc-client-id="+clientID, "--dashboard-oidc-redirect-url=http://"+addr+"/oauth2/callback",
		"--dashboard-session-key-file="+keyFile, "--dashboard-oidc-username-claim=email", "--dashboard-oidc-username-prefix=oidc:",
		"--dashboard-oidc-groups-claim=groups", "--dashboard-oidc-groups-prefix=oidc:", "--oauth-resource-url="+resource,
		"--store="+history)
	srv.Stdout, srv.Stderr = &logs, &logs
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = srv.Process.Kill()
		_ = srv.Wait()
		if t.Failed() {
			t.Logf("mcp-server's log:\n%s", tail(logs.String(), 4000))
		}
	})
	waitHealthy(t, "http://"+addr+"/health")

	env := []string{"MCP_URL=" + resource, "OAUTH_CLIENT_ID=" + clientID, "OAUTH_CLIENT_SECRET=" + clientSecret,
		"OAUTH_REDIRECT=" + redirect, "OAUTH_PASSWORD=" + password}
	alice := observations(runClient(t, script, append(env, "OAUTH_EMAIL=alice@example.org")))
	if alice.str("first") != "unauthorized" || alice.get("asked_to_sign_in") != true {
		t.Fatalf("alice's first connection: %v", alice)
	}
	if host := alice.str("authorization_host"); !strings.HasSuffix(idp.URL, host) {
		t.Errorf("sent to sign in at %q, want the provider %s", host, idp.URL)
	}
	if alice.str("resource_indicator") != resource {
		t.Errorf("resource indicator %q, want %s", alice.str("resource_indicator"), resource)
	}
	if aud, _ := alice.get("audience").([]any); !slices.Contains(aud, any(resource)) {
		t.Errorf("access token audience %v lacks %s", alice.get("audience"), resource)
	}
	if tools, _ := alice.get("tools").([]any); !slices.Contains(tools, any("cwac_list_scans")) {
		t.Errorf("tools %v", alice.get("tools"))
	}
	if alice.get("list_scans", "is_error") != false || !strings.Contains(alice.str("list_scans", "text"), `"scans"`) {
		t.Errorf("alice's cwac_list_scans: %v", alice.get("list_scans"))
	}
	// bob signs in the same way, and RBAC refuses his call by his name.
	bob := observations(runClient(t, script, append(env, "OAUTH_EMAIL=bob@example.org")))
	if bob.get("list_scans", "is_error") != true || !strings.Contains(bob.str("list_scans", "text"), "oidc:bob@example.org may not list cwacscans") {
		t.Errorf("bob's cwac_list_scans: %v", bob.get("list_scans"))
	}
	// carol reads by grant: her organisation's issues, and nothing else.
	calls := `[{"name":"cwac_issue_history","arguments":{}},` +
		`{"name":"cwac_organisation_trend","arguments":{"organisation":"Ministry of Education"}},` +
		`{"name":"cwac_organisation_trend","arguments":{"organisation":"Ministry of Health"}}]`
	carol := observations(runClient(t, script, append(env, "OAUTH_EMAIL=carol@example.org", "MCP_CALLS="+calls)))
	checkGrantedCalls(t, carol)
	// The audit trail names each caller as the provider's user.
	for _, who := range []string{`"caller":"oidc:oidc:alice@example.org"`, `"caller":"oidc:oidc:bob@example.org"`} {
		if !strings.Contains(logs.String(), who) {
			t.Errorf("the audit trail lacks %s", who)
		}
	}
}

// checkGrantedCalls: carol's calls by grant (the client's MCP_CALLS): her
// organisation's issues and trend answer, another organisation's trend
// and the scans are refused.
func checkGrantedCalls(t *testing.T, carol observations) {
	t.Helper()
	got, _ := carol.get("calls").([]any)
	if len(got) != 3 {
		t.Fatalf("carol's calls: %v", carol)
	}
	call := func(i int) (bool, string) {
		m, _ := got[i].(map[string]any)
		text, _ := m["text"].(string)
		return m["is_error"] == true, text
	}
	if isErr, text := call(0); isErr || !strings.Contains(text, `"total":2`) || strings.Contains(text, "Education") {
		t.Errorf("carol's issue history: %s", text)
	}
	if isErr, text := call(1); !isErr || !strings.Contains(text, "CwacOrganisationGrants") {
		t.Errorf("carol's trend of another organisation: %s", text)
	}
	if isErr, text := call(2); isErr || !strings.Contains(text, `"organisation":"Ministry of Health"`) {
		t.Errorf("carol's own trend: %s", text)
	}
	if carol.get("list_scans", "is_error") != true || !strings.Contains(carol.str("list_scans", "text"), "a CwacOrganisationGrant gives only") {
		t.Errorf("carol's cwac_list_scans: %v", carol.get("list_scans"))
	}
}
