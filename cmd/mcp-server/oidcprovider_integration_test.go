//go:build integration

package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/testutil/devoidc"
)

// testProvider is the development OpenID Connect provider (internal/testutil/devoidc:
// zitadel's OP library, its login form and password check) on 127.0.0.1
// for the sign-in's integration tests. For the tests that play the
// browser with an HTTP client, opening its login page signs in the user
// the test chose, by posting that user's email and password to the
// provider's own form handler; with no user chosen (Chromium), the page
// is served as a person sees it.
type testProvider struct {
	URL      string
	Password string

	mu   sync.Mutex
	next string // the email the login page signs in, if any
}

const (
	providerClientID     = "cwac-dashboard"
	providerClientSecret = "dashboard-secret-0123456789"
)

func startProvider(t *testing.T, redirectURL string, users []devoidc.User) *testProvider {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	srv.Start()
	t.Cleanup(srv.Close)
	p := &testProvider{URL: srv.URL, Password: "development-password"}
	provider, err := devoidc.New(devoidc.Config{Issuer: srv.URL, ClientID: providerClientID, ClientSecret: providerClientSecret,
		RedirectURIs: []string{redirectURL}, Users: users, Password: p.Password})
	if err != nil {
		t.Fatal(err)
	}
	h := provider.Handler()
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		next := p.next
		p.mu.Unlock()
		if next != "" && r.Method == http.MethodGet && r.URL.Path == "/login" {
			form := url.Values{"authRequestID": {r.URL.Query().Get("authRequestID")}, "email": {next}, "password": {p.Password}}
			post := r.Clone(r.Context())
			post.Method, post.URL = http.MethodPost, &url.URL{Path: "/login"}
			post.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			post.Body, post.ContentLength = io.NopCloser(strings.NewReader(form.Encode())), int64(len(form.Encode()))
			r = post
		}
		h.ServeHTTP(w, r)
	})
	return p
}

// signInAs makes the login page sign in this user next.
func (p *testProvider) signInAs(email string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.next = email
}
