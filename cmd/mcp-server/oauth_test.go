package main

import (
	"strings"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/mcpserver"
)

// TestOAuthFlags: --oauth-resource-url is refused, by name, where it cannot
// work, and otherwise builds an authenticator for the dashboard's provider
// with its claim mapping.
func TestOAuthFlags(t *testing.T) {
	k := &mcpserver.KubernetesAuth{}
	signIn := signInFlags{issuer: "https://id.example.org", usernameClaim: "email", groupsClaim: "groups", groupsPrefix: "oidc:",
		scopes: "openid,email,groups"}
	for _, tc := range []struct {
		name     string
		resource string
		signIn   signInFlags
		mode     string
		want     string
	}{
		{"off", "", signIn, "kubernetes", ""},
		{"static token", "https://cwac.example.org/mcp", signIn, "token", "needs --auth=kubernetes (not token)"},
		{"no provider", "https://cwac.example.org/mcp", signInFlags{}, "kubernetes", "needs --dashboard-oidc-issuer"},
		{"plain http", "http://cwac.example.org/mcp", signIn, "kubernetes", "must be https"},
		{"groups prefix without claim", "https://cwac.example.org/mcp", signInFlags{issuer: "https://id.example.org", groupsPrefix: "x:"},
			"kubernetes", "groups prefix needs a groups claim"},
		{"on", "https://cwac.example.org/mcp", signIn, "kubernetes", ""},
	} {
		kube := k
		if tc.mode != "kubernetes" {
			kube = nil
		}
		a, err := oauthFlags{resourceURL: tc.resource}.build(tc.signIn, tc.mode, kube)
		switch {
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want == "" && tc.resource == "" && a != nil:
			t.Errorf("%s: OAuth on without a resource URL", tc.name)
		case tc.want == "" && tc.resource != "" && (a == nil || a.Resource.Issuer != signIn.issuer || a.Claims.GroupsPrefix != "oidc:" || a.Kubernetes != k ||
			strings.Join(a.Resource.Scopes, " ") != "openid email groups"):
			t.Errorf("%s: %+v", tc.name, a)
		}
	}
}
