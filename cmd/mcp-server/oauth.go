package main

import (
	"errors"
	"flag"
	"fmt"

	"github.com/a11y-dev/cwac-operator/internal/mcpserver"
	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
	"github.com/a11y-dev/cwac-operator/internal/websession"
)

// oauthFlags make the MCP endpoint an OAuth 2.0 protected resource of the
// dashboard's OpenID Connect provider (docs/mcp.md#signing-in-with-oauth).
type oauthFlags struct {
	resourceURL string
}

func (f *oauthFlags) bind(flags *flag.FlagSet) {
	flags.StringVar(&f.resourceURL, "oauth-resource-url", "",
		"the MCP endpoint's URL as clients reach it (e.g. https://cwac.example.org/mcp): MCP clients then sign in with the "+
			"dashboard's OpenID Connect provider (--dashboard-oidc-issuer, its claim mapping and CA), whose access tokens "+
			"must name this URL in their audience; needs --auth=kubernetes")
}

// build is the authenticator and authoriser that accept the provider's
// access tokens besides Kubernetes tokens, and the resource they are for;
// nil when --oauth-resource-url is not given.
func (f oauthFlags) build(signIn signInFlags, authMode string, k *mcpserver.KubernetesAuth) (*mcpserver.OIDCTokenAuth, error) {
	if f.resourceURL == "" {
		return nil, nil //nolint:nilnil // OAuth off is not an error
	}
	switch {
	case authMode != mcpserver.MethodKubernetes || k == nil:
		return nil, fmt.Errorf("--oauth-resource-url needs --auth=kubernetes (not %s): a signed-in client's calls are authorised "+
			"by SubjectAccessReviews, as a token's", authMode)
	case signIn.issuer == "":
		return nil, errors.New("--oauth-resource-url needs --dashboard-oidc-issuer: the provider MCP clients sign in with")
	}
	// The scopes clients are told to ask for are the dashboard's: those
	// that make the provider put the mapped claims in its tokens.
	pr := mcpserver.ProtectedResource{Resource: f.resourceURL, Issuer: signIn.issuer, Scopes: urlpolicy.SplitList(signIn.scopes)}
	if err := pr.Check(); err != nil {
		return nil, fmt.Errorf("--oauth-resource-url: %w", err)
	}
	claims := websession.ClaimMapping{Issuer: signIn.issuer, UsernameClaim: signIn.usernameClaim, UsernamePrefix: signIn.usernamePrefix,
		GroupsClaim: signIn.groupsClaim, GroupsPrefix: signIn.groupsPrefix}
	if err := claims.Validate(); err != nil {
		return nil, fmt.Errorf("--oauth-resource-url: the claim mapping: %w", err)
	}
	client, err := providerClient(signIn.caFile)
	if err != nil {
		return nil, err
	}
	return &mcpserver.OIDCTokenAuth{Resource: pr, Claims: claims, HTTPClient: client, Kubernetes: k}, nil
}
