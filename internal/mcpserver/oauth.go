package mcpserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/coreos/go-oidc/v3/oidc"

	"github.com/a11y-dev/cwac-operator/internal/websession"
)

// MethodOIDC is Identity.Method for callers OIDCTokenAuth authenticated
// by a provider's access token.
const MethodOIDC = "oidc"

// metadataPrefix starts the path of OAuth 2.0 Protected Resource Metadata
// (RFC 9728, section 3): the resource's own path follows it.
const metadataPrefix = "/.well-known/oauth-protected-resource"

// ProtectedResource makes the MCP server an OAuth 2.0 protected resource
// (RFC 9728), so that MCP clients find the OpenID Connect provider people
// sign in with and run the OAuth flow themselves, rather than someone
// pasting a token into them: the server publishes its metadata, names it in
// every 401, and accepts the provider's access tokens issued for it
// (OIDCTokenAuth).
type ProtectedResource struct {
	// Resource is the MCP endpoint as clients reach it, e.g.
	// https://cwac.example.org/mcp: the resource they ask tokens for
	// (RFC 8707), which an access token's audience must name.
	Resource string
	// Issuer is the OpenID Connect provider's issuer URL.
	Issuer string
	// Scopes are those a client should ask for (scopes_supported).
	Scopes []string
}

// Check refuses a resource or issuer that is not an https URL (http only on
// a loopback host, websession.SecureURL, as the dashboard's sign-in), or
// one with a query or fragment (RFC 9728 section 1.2).
func (p ProtectedResource) Check() error {
	for _, u := range []struct{ name, raw string }{{"the resource URL", p.Resource}, {"the issuer", p.Issuer}} {
		parsed, err := url.Parse(u.raw)
		switch {
		case err != nil || parsed.Host == "":
			return fmt.Errorf("%s %q is not an absolute URL", u.name, truncate(u.raw, 200))
		case !websession.SecureURL(parsed):
			return fmt.Errorf("%s %q must be https without user information (http only on a loopback address)", u.name, truncate(u.raw, 200))
		case parsed.RawQuery != "" || parsed.Fragment != "":
			return fmt.Errorf("%s %q may not have a query or fragment", u.name, truncate(u.raw, 200))
		}
	}
	return nil
}

// MetadataPath is where the metadata is served: the well-known prefix,
// then the resource URL's path (RFC 9728 section 3.1).
func (p ProtectedResource) MetadataPath() string {
	u, err := url.Parse(p.Resource)
	if err != nil {
		return metadataPrefix
	}
	return metadataPrefix + strings.TrimSuffix(u.EscapedPath(), "/")
}

// MetadataURL is the metadata's URL, as 401 answers name it.
func (p ProtectedResource) MetadataURL() string {
	u, err := url.Parse(p.Resource)
	if err != nil {
		return ""
	}
	return (&url.URL{Scheme: u.Scheme, Host: u.Host}).String() + p.MetadataPath()
}

// challenge is the WWW-Authenticate of a 401: where the metadata is.
func (p *ProtectedResource) challenge() string {
	if p == nil {
		return `Bearer realm="cwac-operator"`
	}
	return fmt.Sprintf(`Bearer realm="cwac-operator", resource_metadata=%q`, p.MetadataURL())
}

// metadata is RFC 9728's document.
type metadata struct {
	Resource               string   `json:"resource"`
	AuthorizationServers   []string `json:"authorization_servers"`
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
	ScopesSupported        []string `json:"scopes_supported,omitempty"`
	ResourceName           string   `json:"resource_name"`
}

// serveMetadata answers the metadata (public: it names no one's data).
func (p *ProtectedResource) serveMetadata(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Cache-Control", "max-age=300")
	writeJSON(w, http.StatusOK, metadata{
		Resource: p.Resource, AuthorizationServers: []string{p.Issuer}, BearerMethodsSupported: []string{"header"},
		ScopesSupported: p.Scopes, ResourceName: "cwac-operator MCP server",
	})
}

// OIDCTokenAuth accepts the provider's access tokens issued for the
// resource, and hands every other bearer token to Kubernetes: a token from
// the issuer (its unverified "iss" says so) is a JWT whose signature (the
// provider's keys), expiry and audience (the resource URL) are checked, and
// whose claims name the user and groups by the dashboard sign-in's claim
// mapping, as kube-apiserver would; that identity is then authorised by
// SubjectAccessReviews like any Kubernetes user's.
type OIDCTokenAuth struct {
	Resource ProtectedResource
	Claims   websession.ClaimMapping
	// HTTPClient reaches the provider (discovery and keys).
	HTTPClient *http.Client
	// Kubernetes checks every other token.
	Kubernetes *KubernetesAuth

	mu       sync.Mutex
	verifier *oidc.IDTokenVerifier // after the first successful discovery
}

// Authenticate implements Authenticator.
func (a *OIDCTokenAuth) Authenticate(ctx context.Context, r *http.Request) (*Identity, error) {
	token, ok := bearer(r)
	if !ok {
		return nil, fmt.Errorf("%w: a bearer token is required: an access token from %s for this server (an MCP client signs in "+
			"there by itself: %s), or a Kubernetes token", errUnauthenticated, a.Resource.Issuer, a.Resource.MetadataURL())
	}
	if issuerOf(token) != a.Resource.Issuer {
		return a.Kubernetes.Authenticate(ctx, r)
	}
	v, err := a.verifierFor(ctx)
	if err != nil {
		return nil, err // not errUnauthenticated: the provider is unreachable (503)
	}
	tok, err := v.Verify(ctx, token)
	if err != nil {
		return nil, fmt.Errorf("%w: the access token was not accepted: %s", errUnauthenticated, truncate(err.Error(), 300))
	}
	var claims map[string]json.RawMessage
	if err := tok.Claims(&claims); err != nil {
		return nil, fmt.Errorf("%w: the access token's claims: %s", errUnauthenticated, truncate(err.Error(), 300))
	}
	user, groups, err := a.Claims.Map(claims)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", errUnauthenticated, truncate(err.Error(), 300))
	}
	return &Identity{User: user, Groups: groups, Method: MethodOIDC}, nil
}

// Authorize implements Authorizer, as Kubernetes does.
func (a *OIDCTokenAuth) Authorize(ctx context.Context, id *Identity, verb, resource, namespace string) error {
	return a.Kubernetes.Authorize(ctx, id, verb, resource, namespace)
}

// AuthorizeNonResource implements NonResourceAuthorizer, as Kubernetes does.
func (a *OIDCTokenAuth) AuthorizeNonResource(ctx context.Context, id *Identity, verb, path string) error {
	return a.Kubernetes.AuthorizeNonResource(ctx, id, verb, path)
}

// verifierFor discovers the provider once; a failed discovery is tried
// again on the next token.
func (a *OIDCTokenAuth) verifierFor(ctx context.Context) (*oidc.IDTokenVerifier, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.verifier != nil {
		return a.verifier, nil
	}
	client := a.HTTPClient
	if client == nil {
		client = http.DefaultClient
	}
	p, err := oidc.NewProvider(oidc.ClientContext(context.WithoutCancel(ctx), client), a.Resource.Issuer)
	if err != nil {
		return nil, fmt.Errorf("reaching the OpenID Connect provider: %w", err)
	}
	// The audience checked is the resource's URL: a token the provider
	// issued for another client or resource (the dashboard's ID token
	// among them) is refused.
	a.verifier = p.VerifierContext(oidc.ClientContext(context.WithoutCancel(ctx), client), &oidc.Config{ClientID: a.Resource.Resource})
	return a.verifier, nil
}

// issuerOf is a JWT's "iss" claim, unverified ("" for anything else): it
// only chooses which check a token gets.
func issuerOf(token string) string {
	parts := strings.Split(token, ".")
	if len(parts) != 3 || len(parts[1]) > maxTokenPayload {
		return ""
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return ""
	}
	var claims struct {
		Issuer string `json:"iss"`
	}
	if json.Unmarshal(payload, &claims) != nil {
		return ""
	}
	return claims.Issuer
}

// maxTokenPayload bounds the JWT payload decoded to read its issuer.
const maxTokenPayload = 16 << 10
