package devoidc

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// authRequest is one authorization request, from the authorize endpoint
// until its code is exchanged or it expires.
type authRequest struct {
	oidc.AuthRequest
	id, userID string
	audience   []string // besides the client
	done       bool
	created    time.Time
	authTime   time.Time
}

func (a *authRequest) GetID() string                      { return a.id }
func (a *authRequest) GetACR() string                     { return "" }
func (a *authRequest) GetAMR() []string                   { return []string{"pwd"} }
func (a *authRequest) GetAudience() []string              { return append([]string{a.ClientID}, a.audience...) }
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
	return &oidc.CodeChallenge{Challenge: a.CodeChallenge, Method: a.CodeChallengeMethod}
}

// randomID is 128 random bits, base64url: request IDs double as the
// login form's proof that the browser started this sign-in.
func randomID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}

// CreateAuthRequest keeps a request the library has checked (client,
// exact redirect URI, response type), refusing one without PKCE (S256):
// the client is confidential, but this provider requires PKCE anyway.
func (s *storage) CreateAuthRequest(_ context.Context, r *oidc.AuthRequest, _ string) (op.AuthRequest, error) {
	if r.CodeChallenge == "" || r.CodeChallengeMethod != oidc.CodeChallengeMethodS256 {
		return nil, oidc.ErrInvalidRequest().WithDescription("PKCE is required: send code_challenge with code_challenge_method=S256")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prune()
	req := &authRequest{AuthRequest: *r, id: randomID(), created: s.now(), audience: s.audience}
	s.requests[req.id] = req
	return req, nil
}

// prune forgets expired requests, their codes and tokens (s.mu held).
func (s *storage) prune() {
	now := s.now()
	for id, r := range s.requests {
		if now.Sub(r.created) > requestTTL {
			s.deleteRequest(id)
		}
	}
	for id, exp := range s.tokens {
		if now.After(exp) {
			delete(s.tokens, id)
		}
	}
}

func (s *storage) deleteRequest(id string) {
	delete(s.requests, id)
	for code, rid := range s.codes {
		if rid == id {
			delete(s.codes, code)
		}
	}
}

// request is a pending request by ID, unexpired (s.mu held).
func (s *storage) request(id string) (*authRequest, bool) {
	r, ok := s.requests[id]
	if !ok || s.now().Sub(r.created) > requestTTL {
		return nil, false
	}
	return r, true
}

// signIn checks a user's password and, if right, marks the request
// signed in as them. The comparison takes the same time whatever the
// user or password.
func (s *storage) signIn(requestID, email, password string) (known bool, ok bool) {
	_, isUser := s.users[email]
	passOK := subtle.ConstantTimeCompare([]byte(password), []byte(s.password)) == 1
	s.mu.Lock()
	defer s.mu.Unlock()
	r, known := s.request(requestID)
	if !known || !isUser || !passOK {
		return known, false
	}
	r.userID, r.done, r.authTime = email, true, s.now()
	return true, true
}

func (s *storage) AuthRequestByID(_ context.Context, id string) (op.AuthRequest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.request(id); ok {
		return r, nil
	}
	return nil, errors.New("authorization request not found or expired")
}

func (s *storage) AuthRequestByCode(ctx context.Context, code string) (op.AuthRequest, error) {
	s.mu.Lock()
	id, ok := s.codes[code]
	s.mu.Unlock()
	if !ok {
		return nil, errors.New("code invalid or used")
	}
	return s.AuthRequestByID(ctx, id)
}

func (s *storage) SaveAuthCode(_ context.Context, id, code string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.codes[code] = id
	return nil
}

func (s *storage) DeleteAuthRequest(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.deleteRequest(id)
	return nil
}

func (s *storage) CreateAccessToken(context.Context, op.TokenRequest) (string, time.Time, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, exp := randomID(), s.now().Add(tokenTTL)
	s.tokens[id] = exp
	return id, exp, nil
}

// Refresh tokens, sessions to end and revocation are not offered: a
// development sign-in lasts as long as the client's own session.

func (s *storage) CreateAccessAndRefreshTokens(context.Context, op.TokenRequest, string) (string, string, time.Time, error) {
	return "", "", time.Time{}, errors.New("refresh tokens are not offered")
}

func (s *storage) TokenRequestByRefreshToken(context.Context, string) (op.RefreshTokenRequest, error) {
	return nil, op.ErrInvalidRefreshToken
}
func (s *storage) TerminateSession(context.Context, string, string) error { return nil }
func (s *storage) RevokeToken(context.Context, string, string, string) *oidc.Error {
	return oidc.ErrServerError().WithDescription("revocation is not offered")
}
func (s *storage) GetRefreshTokenInfo(context.Context, string, string) (string, string, error) {
	return "", "", op.ErrInvalidRefreshToken
}

// signingKey is the provider's RSA key, made at start: ID tokens signed
// before a restart no longer verify, so sign in again after one.
type signingKey struct {
	key *rsa.PrivateKey
	id  string
}

func (k signingKey) SignatureAlgorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (k signingKey) Key() any                                    { return k.key }
func (k signingKey) ID() string                                  { return k.id }

type publicKey struct{ signingKey }

func (k publicKey) Algorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (k publicKey) Use() string                        { return "sig" }
func (k publicKey) Key() any                           { return &k.key.PublicKey }

func (s *storage) SigningKey(context.Context) (op.SigningKey, error) { return s.key, nil }
func (s *storage) SignatureAlgorithms(context.Context) ([]jose.SignatureAlgorithm, error) {
	return []jose.SignatureAlgorithm{jose.RS256}, nil
}
func (s *storage) KeySet(context.Context) ([]op.Key, error) { return []op.Key{publicKey{s.key}}, nil }

func (s *storage) GetClientByClientID(_ context.Context, id string) (op.Client, error) {
	if id != s.client.id {
		return nil, oidc.ErrInvalidClient().WithDescription("unknown client")
	}
	return s.client, nil
}

func (s *storage) AuthorizeClientIDSecret(_ context.Context, id, secret string) error {
	if id != s.client.id || subtle.ConstantTimeCompare([]byte(secret), []byte(s.secret)) != 1 {
		return oidc.ErrInvalidClient().WithDescription("wrong client ID or secret")
	}
	return nil
}

// setClaims fills the user's claims: subject, email (and whether it is
// verified, false too) and groups.
func (s *storage) setClaims(info *oidc.UserInfo, userID string) error {
	u, ok := s.users[userID]
	if !ok {
		return errors.New("no such user")
	}
	info.Subject = userID
	info.Email, info.EmailVerified = u.Email, oidc.Bool(!u.Unverified)
	info.AppendClaims("email_verified", !u.Unverified) // the field alone leaves false out
	if len(u.Groups) > 0 {
		info.AppendClaims("groups", u.Groups)
	}
	return nil
}

// SetUserinfoFromScopes puts the user's claims in the ID token.
func (s *storage) SetUserinfoFromScopes(_ context.Context, info *oidc.UserInfo, userID, _ string, _ []string) error {
	return s.setClaims(info, userID)
}

// SetUserinfoFromToken answers the userinfo endpoint for an access token
// this provider issued and that has not expired.
func (s *storage) SetUserinfoFromToken(_ context.Context, info *oidc.UserInfo, tokenID, subject, _ string) error {
	s.mu.Lock()
	exp, ok := s.tokens[tokenID]
	s.mu.Unlock()
	if !ok || s.now().After(exp) {
		return errors.New("access token unknown or expired")
	}
	return s.setClaims(info, subject)
}

func (s *storage) SetIntrospectionFromToken(context.Context, *oidc.IntrospectionResponse, string, string, string) error {
	return errors.New("introspection is not offered")
}

// GetPrivateClaimsFromScopes puts the user's email and groups in a JWT
// access token, as a resource maps them to its users (the ID token's
// claims, from setClaims).
func (s *storage) GetPrivateClaimsFromScopes(_ context.Context, userID, _ string, _ []string) (map[string]any, error) {
	var info oidc.UserInfo
	if err := s.setClaims(&info, userID); err != nil {
		return nil, err
	}
	claims := map[string]any{"email": info.Email, "email_verified": bool(info.EmailVerified)}
	if g, ok := info.Claims["groups"]; ok {
		claims["groups"] = g
	}
	return claims, nil
}
func (s *storage) GetKeyByIDAndClientID(context.Context, string, string) (*jose.JSONWebKey, error) {
	return nil, errors.New("client keys are not offered")
}
func (s *storage) ValidateJWTProfileScopes(context.Context, string, []string) ([]string, error) {
	return nil, errors.New("the JWT profile is not offered")
}
func (s *storage) Health(context.Context) error { return nil }

// client is the one confidential web client, with its exact redirect URIs.
type client struct {
	id        string
	redirects []string
	jwt       bool // access tokens are JWTs (Config.AccessTokenAudience)
}

func (c *client) GetID() string                       { return c.id }
func (c *client) RedirectURIs() []string              { return c.redirects }
func (c *client) PostLogoutRedirectURIs() []string    { return nil }
func (c *client) ApplicationType() op.ApplicationType { return op.ApplicationTypeWeb }
func (c *client) AuthMethod() oidc.AuthMethod         { return oidc.AuthMethodBasic }
func (c *client) ResponseTypes() []oidc.ResponseType {
	return []oidc.ResponseType{oidc.ResponseTypeCode}
}
func (c *client) GrantTypes() []oidc.GrantType { return []oidc.GrantType{oidc.GrantTypeCode} }
func (c *client) LoginURL(id string) string    { return "/login?authRequestID=" + id }
func (c *client) AccessTokenType() op.AccessTokenType {
	if c.jwt {
		return op.AccessTokenTypeJWT
	}
	return op.AccessTokenTypeBearer
}
func (c *client) IDTokenLifetime() time.Duration       { return tokenTTL }
func (c *client) DevMode() bool                        { return false }
func (c *client) IsScopeAllowed(string) bool           { return true }
func (c *client) IDTokenUserinfoClaimsAssertion() bool { return true }
func (c *client) ClockSkew() time.Duration             { return 0 }
func (c *client) RestrictAdditionalIdTokenScopes() func([]string) []string { //nolint:revive // the library's name
	return func(s []string) []string { return s }
}
func (c *client) RestrictAdditionalAccessTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}
