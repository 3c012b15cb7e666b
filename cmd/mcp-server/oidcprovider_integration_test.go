//go:build integration

package main

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// testProvider is a real OpenID Connect provider for the sign-in's
// integration test: zitadel's OP library (discovery, the authorize and
// token endpoints, PKCE, signed ID tokens, its key set), over an
// in-memory store holding one confidential client and a few users. Only
// its login page is the test's own: it signs in whichever user the test
// chose, where a real provider would ask for a password.
type testProvider struct {
	URL    string
	server *httptest.Server

	mu       sync.Mutex
	next     string // the user the login page signs in
	users    map[string]testUser
	requests map[string]*authRequest
	codes    map[string]string
	client   *testClient
	key      *rsa.PrivateKey
	n        int
}

type testUser struct {
	email    string
	verified bool
	groups   []string
}

const (
	providerClientID     = "cwac-dashboard"
	providerClientSecret = "dashboard-secret"
)

func startProvider(t *testing.T, redirectURL string, users map[string]testUser) *testProvider {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	p := &testProvider{users: users, requests: map[string]*authRequest{}, codes: map[string]string{}, key: key,
		client: &testClient{redirect: redirectURL}}
	p.server = httptest.NewUnstartedServer(nil)
	p.server.Start()
	t.Cleanup(p.server.Close)
	p.URL = p.server.URL
	provider, err := op.NewProvider(&op.Config{CryptoKey: sha256.Sum256([]byte("test")), CodeMethodS256: true, AuthMethodPost: true},
		p, op.StaticIssuer(p.URL), op.WithAllowInsecure())
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	login := op.NewIssuerInterceptor(provider.IssuerFromRequest).HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.URL.Query().Get("authRequestID")
		p.mu.Lock()
		req, ok := p.requests[id]
		if ok {
			req.userID, req.done, req.authTime = p.next, true, time.Now()
		}
		p.mu.Unlock()
		if !ok {
			http.Error(w, "unknown auth request", http.StatusBadRequest)
			return
		}
		http.Redirect(w, r, op.AuthCallbackURL(provider)(r.Context(), id), http.StatusFound)
	})
	mux.Handle("/login", login)
	mux.Handle("/", provider)
	p.server.Config.Handler = mux
	return p
}

// signInAs makes the login page sign in this user next.
func (p *testProvider) signInAs(user string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.next = user
}

// authRequest is one authorization request the provider keeps.
type authRequest struct {
	oidc.AuthRequest
	id, userID string
	done       bool
	authTime   time.Time
}

func (a *authRequest) GetID() string                      { return a.id }
func (a *authRequest) GetACR() string                     { return "" }
func (a *authRequest) GetAMR() []string                   { return []string{"pwd"} }
func (a *authRequest) GetAudience() []string              { return []string{a.ClientID} }
func (a *authRequest) GetAuthTime() time.Time             { return a.authTime }
func (a *authRequest) GetClientID() string                { return a.ClientID }
func (a *authRequest) GetNonce() string                   { return a.Nonce }
func (a *authRequest) GetRedirectURI() string             { return a.RedirectURI }
func (a *authRequest) GetScopes() []string                { return a.Scopes }
func (a *authRequest) GetState() string                   { return a.State }
func (a *authRequest) GetSubject() string                 { return a.userID }
func (a *authRequest) Done() bool                         { return a.done }
func (a *authRequest) GetResponseType() oidc.ResponseType { return a.ResponseType }
func (a *authRequest) GetResponseMode() oidc.ResponseMode { return a.ResponseMode }
func (a *authRequest) GetCodeChallenge() *oidc.CodeChallenge {
	if a.CodeChallenge == "" {
		return nil
	}
	return &oidc.CodeChallenge{Challenge: a.CodeChallenge, Method: a.CodeChallengeMethod}
}

// The storage: authorization requests, codes and the signing key.

func (p *testProvider) CreateAuthRequest(_ context.Context, r *oidc.AuthRequest, _ string) (op.AuthRequest, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	req := &authRequest{AuthRequest: *r, id: fmt.Sprintf("req-%d", p.n)}
	p.requests[req.id] = req
	return req, nil
}

func (p *testProvider) AuthRequestByID(_ context.Context, id string) (op.AuthRequest, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if r, ok := p.requests[id]; ok {
		return r, nil
	}
	return nil, errors.New("request not found")
}

func (p *testProvider) AuthRequestByCode(ctx context.Context, code string) (op.AuthRequest, error) {
	p.mu.Lock()
	id, ok := p.codes[code]
	p.mu.Unlock()
	if !ok {
		return nil, errors.New("code invalid or used")
	}
	return p.AuthRequestByID(ctx, id)
}

func (p *testProvider) SaveAuthCode(_ context.Context, id, code string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.codes[code] = id
	return nil
}

func (p *testProvider) DeleteAuthRequest(_ context.Context, id string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.requests, id)
	for code, rid := range p.codes {
		if rid == id {
			delete(p.codes, code)
		}
	}
	return nil
}

func (p *testProvider) CreateAccessToken(context.Context, op.TokenRequest) (string, time.Time, error) {
	return fmt.Sprintf("at-%d", time.Now().UnixNano()), time.Now().Add(5 * time.Minute), nil
}

func (p *testProvider) CreateAccessAndRefreshTokens(context.Context, op.TokenRequest, string) (string, string, time.Time, error) {
	return "", "", time.Time{}, errors.New("no refresh tokens")
}

func (p *testProvider) TokenRequestByRefreshToken(context.Context, string) (op.RefreshTokenRequest, error) {
	return nil, errors.New("no refresh tokens")
}
func (p *testProvider) TerminateSession(context.Context, string, string) error { return nil }
func (p *testProvider) RevokeToken(context.Context, string, string, string) *oidc.Error {
	return nil
}
func (p *testProvider) GetRefreshTokenInfo(context.Context, string, string) (string, string, error) {
	return "", "", op.ErrInvalidRefreshToken
}

type signingKey struct{ key *rsa.PrivateKey }

func (k signingKey) SignatureAlgorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (k signingKey) Key() any                                    { return k.key }
func (k signingKey) ID() string                                  { return "test-key" }

type publicKey struct{ key *rsa.PrivateKey }

func (k publicKey) ID() string                         { return "test-key" }
func (k publicKey) Algorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (k publicKey) Use() string                        { return "sig" }
func (k publicKey) Key() any                           { return &k.key.PublicKey }

func (p *testProvider) SigningKey(context.Context) (op.SigningKey, error) {
	return signingKey{p.key}, nil
}
func (p *testProvider) SignatureAlgorithms(context.Context) ([]jose.SignatureAlgorithm, error) {
	return []jose.SignatureAlgorithm{jose.RS256}, nil
}
func (p *testProvider) KeySet(context.Context) ([]op.Key, error) {
	return []op.Key{publicKey{p.key}}, nil
}

func (p *testProvider) GetClientByClientID(_ context.Context, id string) (op.Client, error) {
	if id != providerClientID {
		return nil, errors.New("client not found")
	}
	return p.client, nil
}

func (p *testProvider) AuthorizeClientIDSecret(_ context.Context, id, secret string) error {
	if id != providerClientID || secret != providerClientSecret {
		return errors.New("invalid client")
	}
	return nil
}

// SetUserinfoFromScopes puts the user's email and groups in the ID token.
func (p *testProvider) SetUserinfoFromScopes(_ context.Context, info *oidc.UserInfo, userID, _ string, _ []string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	u, ok := p.users[userID]
	if !ok {
		return errors.New("no such user")
	}
	info.Subject = userID
	info.Email, info.EmailVerified = u.email, oidc.Bool(u.verified)
	info.AppendClaims("groups", u.groups)
	info.AppendClaims("email_verified", u.verified) // false too (the field alone omits it)
	return nil
}

func (p *testProvider) SetUserinfoFromToken(context.Context, *oidc.UserInfo, string, string, string) error {
	return nil
}
func (p *testProvider) SetIntrospectionFromToken(context.Context, *oidc.IntrospectionResponse, string, string, string) error {
	return nil
}
func (p *testProvider) GetPrivateClaimsFromScopes(context.Context, string, string, []string) (map[string]any, error) {
	return nil, nil
}
func (p *testProvider) GetKeyByIDAndClientID(context.Context, string, string) (*jose.JSONWebKey, error) {
	return nil, errors.New("no client keys")
}
func (p *testProvider) ValidateJWTProfileScopes(context.Context, string, []string) ([]string, error) {
	return nil, errors.New("no JWT profile")
}
func (p *testProvider) Health(context.Context) error { return nil }

// testClient is the dashboard's registration: a confidential web client
// with one redirect URI.
type testClient struct{ redirect string }

func (c *testClient) GetID() string                       { return providerClientID }
func (c *testClient) RedirectURIs() []string              { return []string{c.redirect} }
func (c *testClient) PostLogoutRedirectURIs() []string    { return nil }
func (c *testClient) ApplicationType() op.ApplicationType { return op.ApplicationTypeWeb }
func (c *testClient) AuthMethod() oidc.AuthMethod         { return oidc.AuthMethodBasic }
func (c *testClient) ResponseTypes() []oidc.ResponseType {
	return []oidc.ResponseType{oidc.ResponseTypeCode}
}
func (c *testClient) GrantTypes() []oidc.GrantType         { return []oidc.GrantType{oidc.GrantTypeCode} }
func (c *testClient) LoginURL(id string) string            { return "/login?authRequestID=" + id }
func (c *testClient) AccessTokenType() op.AccessTokenType  { return op.AccessTokenTypeBearer }
func (c *testClient) IDTokenLifetime() time.Duration       { return 5 * time.Minute }
func (c *testClient) DevMode() bool                        { return false }
func (c *testClient) IsScopeAllowed(string) bool           { return true }
func (c *testClient) IDTokenUserinfoClaimsAssertion() bool { return true }
func (c *testClient) ClockSkew() time.Duration             { return 0 }
func (c *testClient) RestrictAdditionalIdTokenScopes() func([]string) []string { //nolint:revive // the library's name
	return func(s []string) []string { return s }
}
func (c *testClient) RestrictAdditionalAccessTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}
