package devoidc

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

const (
	testSecret   = "client-secret-0123456789"
	testPassword = "dev-password"
	testRedirect = "http://127.0.0.1:8090/oauth2/callback"
)

type fixture struct {
	p      *Provider
	url    string
	client *http.Client // follows no redirect
	oauth  oauth2.Config
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	srv.Start()
	t.Cleanup(srv.Close)
	p, err := New(Config{Issuer: srv.URL, ClientID: "dash", ClientSecret: testSecret, RedirectURIs: []string{testRedirect},
		Password: testPassword, Users: []User{
			{Email: "dev@example.org", Groups: []string{"viewers", "ops"}},
			{Email: "new@example.org", Unverified: true},
		}})
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = p.Handler()
	c := &http.Client{Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &fixture{p: p, url: srv.URL, client: c, oauth: oauth2.Config{ClientID: "dash", ClientSecret: testSecret,
		RedirectURL: testRedirect, Scopes: []string{"openid", "email", "groups"},
		Endpoint: oauth2.Endpoint{AuthURL: srv.URL + "/authorize", TokenURL: srv.URL + "/oauth/token"}}}
}

func (f *fixture) do(t *testing.T, method, u string, form url.Values) (*http.Response, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	res, err := f.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = res.Body.Close() }()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

// toLogin starts an authorization and returns the login page's request ID.
func (f *fixture) toLogin(t *testing.T, authURL string) string {
	t.Helper()
	res, _ := f.do(t, http.MethodGet, authURL, nil)
	loc, err := res.Location()
	if err != nil || loc.Path != "/login" {
		t.Fatalf("authorize: %d to %v (want the login page)", res.StatusCode, loc)
	}
	id := loc.Query().Get("authRequestID")
	res, body := f.do(t, http.MethodGet, f.url+"/login?authRequestID="+url.QueryEscape(id), nil)
	if res.StatusCode != http.StatusOK || !strings.Contains(body, `value="`+id+`"`) || !strings.Contains(body, "For local development only") {
		t.Fatalf("login page: %d\n%s", res.StatusCode, body)
	}
	return id
}

// signIn posts the login form and follows the provider's redirects to
// the client's callback, returned unvisited.
func (f *fixture) signIn(t *testing.T, id, email string) *url.URL {
	t.Helper()
	res, body := f.do(t, http.MethodPost, f.url+"/login", url.Values{"authRequestID": {id}, "email": {email}, "password": {testPassword}})
	for range 5 {
		loc, err := res.Location()
		if err != nil {
			t.Fatalf("sign-in: %d without a redirect\n%s", res.StatusCode, body)
		}
		if loc.String() == testRedirect || strings.HasPrefix(loc.String(), testRedirect+"?") {
			return loc
		}
		res, body = f.do(t, http.MethodGet, loc.String(), nil)
	}
	t.Fatal("no redirect to the client")
	return nil
}

func TestSignInWithPKCE(t *testing.T) {
	f := newFixture(t)
	ctx := oidc.ClientContext(context.Background(), &http.Client{Timeout: 10 * time.Second})
	verifier := oauth2.GenerateVerifier()
	id := f.toLogin(t, f.oauth.AuthCodeURL("the-state", oauth2.S256ChallengeOption(verifier), oidc.Nonce("the-nonce")))

	// A wrong password, or a user who does not exist: the same message,
	// the email kept, nothing signed in.
	for _, tc := range [][2]string{{"dev@example.org", "wrong"}, {"nobody@example.org", testPassword}} {
		res, body := f.do(t, http.MethodPost, f.url+"/login", url.Values{"authRequestID": {id}, "email": {tc[0]}, "password": {tc[1]}})
		if res.StatusCode != http.StatusBadRequest || !strings.Contains(body, msgWrongPassword) ||
			!strings.Contains(body, `value="`+tc[0]+`"`) || !strings.Contains(body, `aria-invalid="true" aria-describedby="error" autofocus`) ||
			!strings.Contains(body, `role="alert"`) {
			t.Errorf("%s/%s: %d\n%s", tc[0], tc[1], res.StatusCode, body)
		}
	}

	cb := f.signIn(t, id, "dev@example.org")
	if cb.Query().Get("state") != "the-state" || cb.Query().Get("code") == "" {
		t.Fatalf("callback %s", cb)
	}
	code := cb.Query().Get("code")
	if _, err := f.oauth.Exchange(ctx, code, oauth2.VerifierOption("not-the-verifier-"+verifier)); err == nil {
		t.Error("the code was exchanged with a wrong PKCE verifier")
	}
	// The failed exchange spent the code: sign in again for a fresh one.
	verifier = oauth2.GenerateVerifier()
	cb = f.signIn(t, f.toLogin(t, f.oauth.AuthCodeURL("s2", oauth2.S256ChallengeOption(verifier), oidc.Nonce("n2"))), "dev@example.org")
	code = cb.Query().Get("code")
	tok, err := f.oauth.Exchange(ctx, code, oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatalf("exchange: %v", err)
	}
	if _, err := f.oauth.Exchange(ctx, code, oauth2.VerifierOption(verifier)); err == nil {
		t.Error("a code was exchanged twice")
	}

	provider, idt := f.verifyIDToken(ctx, t, tok)
	var claims struct {
		Email    string   `json:"email"`
		Verified *bool    `json:"email_verified"`
		Groups   []string `json:"groups"`
		Nonce    string   `json:"nonce"`
	}
	if err := idt.Claims(&claims); err != nil {
		t.Fatal(err)
	}
	if idt.Subject != "dev@example.org" || claims.Email != "dev@example.org" || claims.Verified == nil || !*claims.Verified ||
		strings.Join(claims.Groups, ",") != "viewers,ops" || claims.Nonce != "n2" {
		t.Errorf("claims: sub %q %+v", idt.Subject, claims)
	}
	info, err := provider.UserInfo(ctx, oauth2.StaticTokenSource(tok))
	if err != nil || info.Email != "dev@example.org" {
		t.Errorf("userinfo: %+v %v", info, err)
	}
}

func TestUnverifiedEmail(t *testing.T) {
	f := newFixture(t)
	ctx := oidc.ClientContext(context.Background(), &http.Client{Timeout: 10 * time.Second})
	verifier := oauth2.GenerateVerifier()
	cb := f.signIn(t, f.toLogin(t, f.oauth.AuthCodeURL("s", oauth2.S256ChallengeOption(verifier))), "new@example.org")
	tok, err := f.oauth.Exchange(ctx, cb.Query().Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatal(err)
	}
	_, idt := f.verifyIDToken(ctx, t, tok)
	var claims map[string]any
	_ = idt.Claims(&claims)
	if v, ok := claims["email_verified"]; !ok || v != false {
		t.Errorf("email_verified = %v (present %v), want false", v, ok)
	}
	if _, ok := claims["groups"]; ok {
		t.Errorf("a user without groups has a groups claim: %v", claims)
	}
}

func TestRefusals(t *testing.T) {
	f := newFixture(t)
	// Without PKCE: back to the client with invalid_request.
	res, _ := f.do(t, http.MethodGet, f.oauth.AuthCodeURL("s"), nil)
	loc, _ := res.Location()
	if loc == nil || !strings.HasPrefix(loc.String(), testRedirect+"?") || loc.Query().Get("error") != "invalid_request" ||
		!strings.Contains(loc.Query().Get("error_description"), "PKCE") {
		t.Errorf("no PKCE: %d to %v", res.StatusCode, loc)
	}
	// A redirect URI not registered exactly: never redirected to.
	for _, r := range []string{testRedirect + "/more", testRedirect + "?x=1", "http://127.0.0.1:8091/oauth2/callback"} {
		c := f.oauth
		c.RedirectURL = r
		res, _ := f.do(t, http.MethodGet, c.AuthCodeURL("s", oauth2.S256ChallengeOption(oauth2.GenerateVerifier())), nil)
		if loc, _ := res.Location(); loc != nil && strings.HasPrefix(loc.String(), r) {
			t.Errorf("redirect URI %s: sent there (%d)", r, res.StatusCode)
		}
	}
	// Another client.
	c := f.oauth
	c.ClientID = "other"
	if res, _ := f.do(t, http.MethodGet, c.AuthCodeURL("s", oauth2.S256ChallengeOption(oauth2.GenerateVerifier())), nil); res.StatusCode == http.StatusFound {
		if loc, _ := res.Location(); loc.Path == "/login" {
			t.Errorf("an unknown client reached the login page")
		}
	}

	// A wrong client secret at the token endpoint.
	verifier := oauth2.GenerateVerifier()
	cb := f.signIn(t, f.toLogin(t, f.oauth.AuthCodeURL("s", oauth2.S256ChallengeOption(verifier))), "dev@example.org")
	bad := f.oauth
	bad.ClientSecret = "not-the-secret-0123456789"
	if _, err := bad.Exchange(context.Background(), cb.Query().Get("code"), oauth2.VerifierOption(verifier)); err == nil {
		t.Error("a wrong client secret was accepted")
	}

	// The login page for a request that does not exist, or has expired.
	if res, body := f.do(t, http.MethodGet, f.url+"/login?authRequestID=nope", nil); res.StatusCode != http.StatusBadRequest ||
		!strings.Contains(body, msgUnknownRequest) || strings.Contains(body, "<form") {
		t.Errorf("unknown request: %d\n%s", res.StatusCode, body)
	}
	id := f.toLogin(t, f.oauth.AuthCodeURL("s", oauth2.S256ChallengeOption(oauth2.GenerateVerifier())))
	f.p.store.now = func() time.Time { return time.Now().Add(requestTTL + time.Minute) }
	res, body := f.do(t, http.MethodPost, f.url+"/login", url.Values{"authRequestID": {id}, "email": {"dev@example.org"}, "password": {testPassword}})
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(body, msgUnknownRequest) {
		t.Errorf("expired request: %d\n%s", res.StatusCode, body)
	}
	if res, _ := f.do(t, http.MethodDelete, f.url+"/login", nil); res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("DELETE /login: %d", res.StatusCode)
	}
}

func TestLoginPageHeaders(t *testing.T) {
	f := newFixture(t)
	res, body := f.do(t, http.MethodGet, f.url+"/login?authRequestID=nope", nil)
	csp := res.Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "style-src 'self'", "form-action 'self' http://127.0.0.1:8090;", "frame-ancestors 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(body, "<script") || !regexp.MustCompile(`<html lang="en">`).MatchString(body) {
		t.Errorf("page:\n%s", body)
	}
	if res, css := f.do(t, http.MethodGet, f.url+"/login.css", nil); res.StatusCode != http.StatusOK || !strings.Contains(css, ":focus-visible") {
		t.Errorf("login.css: %d", res.StatusCode)
	}
}

func TestConfigRefusals(t *testing.T) {
	good := Config{Issuer: "http://127.0.0.1:5556", ClientID: "c", ClientSecret: testSecret, RedirectURIs: []string{testRedirect},
		Users: []User{{Email: "dev@example.org"}}, Password: testPassword}
	if _, err := New(good); err != nil {
		t.Fatalf("good config: %v", err)
	}
	for name, tc := range map[string]struct {
		change func(*Config)
		want   string
	}{
		"issuer":          {func(c *Config) { c.Issuer = "127.0.0.1:5556" }, "issuer"},
		"client ID":       {func(c *Config) { c.ClientID = "" }, "client ID"},
		"short secret":    {func(c *Config) { c.ClientSecret = "short" }, "16 characters"},
		"no redirect":     {func(c *Config) { c.RedirectURIs = nil }, "redirect URI is required"},
		"relative":        {func(c *Config) { c.RedirectURIs = []string{"/cb"} }, `"/cb"`},
		"no users":        {func(c *Config) { c.Users = nil }, "user is required"},
		"not an email":    {func(c *Config) { c.Users = []User{{Email: "dev"}} }, `user "dev"`},
		"short password":  {func(c *Config) { c.Password = "pw" }, "8 characters"},
		"fragment":        {func(c *Config) { c.RedirectURIs = []string{testRedirect + "#x"} }, "fragment"},
		"colon in a name": {func(c *Config) { c.Users = []User{{Email: "a:b@example.org"}} }, "colons"},
	} {
		c := good
		tc.change(&c)
		if _, err := New(c); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v (want %q)", name, err, tc.want)
		}
	}
}

// verifyIDToken checks tok's ID token as a relying party does (the
// provider's discovery and keys, the client's audience) and returns both.
func (f *fixture) verifyIDToken(ctx context.Context, t *testing.T, tok *oauth2.Token) (*oidc.Provider, *oidc.IDToken) {
	t.Helper()
	provider, err := oidc.NewProvider(ctx, f.url)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := tok.Extra("id_token").(string)
	idt, err := provider.Verifier(&oidc.Config{ClientID: "dash"}).Verify(ctx, raw)
	if err != nil {
		t.Fatalf("ID token: %v", err)
	}
	return provider, idt
}
