//go:build integration

package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/oauth2"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/a11y-dev/cwac-operator/internal/testutil/devoidc"
	"github.com/a11y-dev/cwac-operator/internal/websession"
)

const (
	oauthClientID     = "mcp-client"
	oauthClientSecret = "mcp-client-secret-0123456789"
	oauthPassword     = "development-password"
	oauthCallback     = "http://127.0.0.1:9/callback" // never reached: the test reads the code off the redirect
)

// startOAuthProvider runs the development provider on 127.0.0.1, its access
// tokens for audience (none: opaque tokens, as a provider not configured
// for the resource gives).
func startOAuthProvider(t *testing.T, audience ...string) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	srv.Start()
	t.Cleanup(srv.Close)
	p, err := devoidc.New(devoidc.Config{Issuer: srv.URL, ClientID: oauthClientID, ClientSecret: oauthClientSecret,
		RedirectURIs: []string{oauthCallback}, Password: oauthPassword, AccessTokenAudience: audience,
		Users: []devoidc.User{{Email: "alice@example.org", Groups: []string{"auditors"}}, {Email: "bob@example.org"}}})
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = p.Handler()
	return srv.URL
}

// signInForToken runs the authorization code flow with PKCE as an MCP
// client does (RFC 8707's resource parameter included), signing in as
// email on the provider's login form, and returns the tokens.
func signInForToken(t *testing.T, issuer, resource, email string) *oauth2.Token {
	t.Helper()
	conf := &oauth2.Config{ClientID: oauthClientID, ClientSecret: oauthClientSecret, RedirectURL: oauthCallback,
		Scopes:   []string{"openid", "email", "groups"},
		Endpoint: oauth2.Endpoint{AuthURL: issuer + "/authorize", TokenURL: issuer + "/oauth/token"}}
	verifier := oauth2.GenerateVerifier()
	state := rand.Text()
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	next := conf.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", resource))
	for range 10 {
		var res *http.Response
		var err error
		if u, _ := url.Parse(next); u.Path == "/login" {
			form := url.Values{"authRequestID": {u.Query().Get("authRequestID")}, "email": {email}, "password": {oauthPassword}}
			res, err = c.PostForm(issuer+"/login", form)
		} else {
			res, err = c.Get(next)
		}
		if err != nil {
			t.Fatal(err)
		}
		_ = res.Body.Close()
		loc, err := res.Location()
		if err != nil {
			t.Fatalf("%s: %d without a redirect", next, res.StatusCode)
		}
		if !loc.IsAbs() {
			loc = res.Request.URL.ResolveReference(loc)
		}
		if strings.HasPrefix(loc.String(), oauthCallback) {
			if loc.Query().Get("state") != state {
				t.Fatalf("callback state %q", loc.Query().Get("state"))
			}
			tok, err := conf.Exchange(context.Background(), loc.Query().Get("code"), oauth2.VerifierOption(verifier))
			if err != nil {
				t.Fatal(err)
			}
			return tok
		}
		next = loc.String()
	}
	t.Fatal("the sign-in did not reach the callback")
	return nil
}

// TestOAuthProtectedResource: with a provider configured for the server's
// resource URL, the server publishes RFC 9728 metadata naming the
// provider, names it in every 401, accepts the provider's access tokens
// for its resource and authorises their users by RBAC exactly as
// Kubernetes users (the claim mapping of the dashboard's sign-in); tokens
// for anything else are refused, and Kubernetes tokens keep working.
func TestOAuthProtectedResource(t *testing.T) {
	h, k, cs := kubernetesAuthHarness(t)
	// The resource URL is the server's own: known once it listens.
	pr := &ProtectedResource{}
	auth := &OIDCTokenAuth{Kubernetes: k,
		Claims: websession.ClaimMapping{UsernameClaim: "email", UsernamePrefix: "oidc:", GroupsClaim: "groups", GroupsPrefix: "oidc:"}}
	srv := httptest.NewUnstartedServer(nil)
	srv.Start()
	t.Cleanup(srv.Close)
	resource := srv.URL + "/mcp"
	issuer := startOAuthProvider(t, resource)
	*pr = ProtectedResource{Resource: resource, Issuer: issuer, Scopes: []string{"openid", "email", "groups"}}
	auth.Resource, auth.Claims.Issuer = *pr, issuer
	if err := pr.Check(); err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = h.srv.Handler(HTTPOptions{Auth: auth, ProtectedResource: pr})

	// alice may read the namespace's scans (her user, mapped); bob nothing.
	ctx := context.Background()
	if err := k8s.Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "readers", Namespace: h.ns},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{"cwac.a11y.dev"}, Resources: []string{"cwacscans"}, Verbs: []string{"get", "list"}}}}); err != nil {
		t.Fatal(err)
	}
	if err := k8s.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "readers", Namespace: h.ns},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "readers"},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "oidc:alice@example.org"}}}); err != nil {
		t.Fatal(err)
	}

	// The metadata, where RFC 9728 puts it for this resource.
	res, body := oauthGet(t, srv.URL+"/.well-known/oauth-protected-resource/mcp", "")
	var md struct {
		Resource string   `json:"resource"`
		Servers  []string `json:"authorization_servers"`
		Methods  []string `json:"bearer_methods_supported"`
	}
	if res.StatusCode != http.StatusOK || json.Unmarshal([]byte(body), &md) != nil || md.Resource != resource ||
		len(md.Servers) != 1 || md.Servers[0] != issuer || len(md.Methods) != 1 || md.Methods[0] != "header" {
		t.Fatalf("metadata: %d %s", res.StatusCode, body)
	}

	// No token: 401 naming the metadata.
	res, _ = oauthExecute(t, srv.URL, "")
	if want := `resource_metadata="` + srv.URL + `/.well-known/oauth-protected-resource/mcp"`; res.StatusCode != http.StatusUnauthorized ||
		!strings.Contains(res.Header.Get("WWW-Authenticate"), want) {
		t.Fatalf("no token: %d %q, want 401 with %s", res.StatusCode, res.Header.Get("WWW-Authenticate"), want)
	}
	if _, body := oauthExecute(t, srv.URL, ""); !strings.Contains(body, "an access token from "+issuer) {
		t.Errorf("no token: %s, want it to name the provider", body)
	}
	// The refusal is in the audit trail: from where, what, why.
	if !strings.Contains(h.audit.String(), `"msg":"request refused","audit":true,"remote":"127.0.0.1","method":"POST","path":"/execute"`) {
		t.Errorf("no audit line for the refused request:\n%s", h.audit.String())
	}

	// alice's access token: her tools answer.
	alice := signInForToken(t, issuer, resource, "alice@example.org")
	res, body = oauthExecute(t, srv.URL, alice.AccessToken)
	if res.StatusCode != http.StatusOK || !strings.Contains(body, `"status":"success"`) {
		t.Fatalf("alice: %d %s", res.StatusCode, body)
	}
	// bob is signed in but granted nothing: refused by RBAC, by name.
	bob := signInForToken(t, issuer, resource, "bob@example.org")
	res, body = oauthExecute(t, srv.URL, bob.AccessToken)
	if !strings.Contains(body, "Forbidden: oidc:bob@example.org may not list cwacscans") {
		t.Fatalf("bob: %d %s", res.StatusCode, body)
	}
	// A token the same provider issued for another resource: refused.
	other := startOAuthProvider(t, "https://other.example.org/mcp")
	srv2 := serveOIDC(t, h, k, resource, other, auth.Claims)
	foreign := signInForToken(t, other, "https://other.example.org/mcp", "alice@example.org")
	if res, body = oauthExecute(t, srv2, foreign.AccessToken); res.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "audience") {
		t.Fatalf("a token for another resource: %d %s", res.StatusCode, body)
	}
	// A provider not configured for the resource: its access tokens are
	// not JWTs (and go to Kubernetes, which refuses them), and its ID
	// tokens are for the client alone.
	plain := startOAuthProvider(t)
	srv3 := serveOIDC(t, h, k, resource, plain, auth.Claims)
	tok := signInForToken(t, plain, resource, "alice@example.org")
	if res, body = oauthExecute(t, srv3, tok.AccessToken); res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("an opaque access token: %d %s", res.StatusCode, body)
	}
	idToken, _ := tok.Extra("id_token").(string)
	if idToken == "" {
		t.Fatal("no ID token")
	}
	if res, body = oauthExecute(t, srv3, idToken); res.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "audience") {
		t.Fatalf("an ID token: %d %s", res.StatusCode, body)
	}
	// A Kubernetes token still works beside the provider's.
	sa := serviceAccountToken(t, cs, h.ns, "kube-caller", "get", "list")
	if res, body = oauthExecute(t, srv.URL, sa); res.StatusCode != http.StatusOK || !strings.Contains(body, `"status":"success"`) {
		t.Fatalf("a Kubernetes token: %d %s", res.StatusCode, body)
	}
}

// serveOIDC serves h's server with tokens from issuer for resource.
func serveOIDC(t *testing.T, h *harness, k *KubernetesAuth, resource, issuer string, claims websession.ClaimMapping) string {
	t.Helper()
	claims.Issuer = issuer
	a := &OIDCTokenAuth{Kubernetes: k, Resource: ProtectedResource{Resource: resource, Issuer: issuer}, Claims: claims}
	srv := httptest.NewServer(h.srv.Handler(HTTPOptions{Auth: a, ProtectedResource: &a.Resource}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func oauthGet(t *testing.T, u, token string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return oauthDo(t, req)
}

// oauthExecute lists the namespace's scans through REST /execute.
func oauthExecute(t *testing.T, base, token string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/execute", strings.NewReader(`{"tool_name":"cwac_list_scans","arguments":{}}`))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return oauthDo(t, req)
}

func oauthDo(t *testing.T, req *http.Request) (*http.Response, string) {
	t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = res.Body.Close() }()
	body, _ := io.ReadAll(res.Body)
	return res, string(body)
}
