package dashboard

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/a11y-dev/cwac-operator/internal/websession"
)

// SignInOptions configure sign-in with an OpenID Connect provider.
type SignInOptions struct {
	// Issuer is the provider's issuer URL (discovery at
	// Issuer/.well-known/openid-configuration).
	Issuer string
	// ClientID and ClientSecret are the dashboard's client at the provider.
	ClientID, ClientSecret string
	// RedirectURL is the callback registered at the provider: https, or
	// http on a loopback address (a port-forward). Its path is the
	// callback's route.
	RedirectURL string
	// Scopes asked for; "openid" is always asked.
	Scopes []string
	// Claims maps the ID token's claims to the Kubernetes user and groups
	// the SubjectAccessReviews name (kube-apiserver's --oidc-* rules).
	Claims websession.ClaimMapping
	// Sealer seals the session and sign-in cookies.
	Sealer *websession.Sealer
	// SessionTTL is how long a sign-in lasts (websession.DefaultSessionTTL
	// when zero).
	SessionTTL time.Duration
	// HTTPClient reaches the provider (discovery, keys, the code
	// exchange); nil: a client with a 30-second timeout.
	HTTPClient *http.Client
	// Now is the clock (tests); nil: time.Now.
	Now func() time.Time
}

// SignIn is the dashboard's OpenID Connect sign-in: the authorization
// code flow with PKCE (S256), state and nonce, ending in a sealed
// session cookie (see docs/dashboard.md#signing-in).
type SignIn struct {
	opts     SignInOptions
	callback string // the redirect URL's path

	mu       sync.Mutex
	provider *oidc.Provider // discovered on first need, then kept
}

// The sign-in's own routes beside the callback.
const (
	signInPath    = "/sign-in"
	signOutPath   = "/sign-out"
	signedOutPath = "/signed-out"
)

// NewSignIn checks the options; it does not reach the provider (Discover
// does, and every sign-in until one discovery succeeds).
func NewSignIn(opts SignInOptions) (*SignIn, error) {
	if opts.Issuer == "" || opts.ClientID == "" {
		return nil, errors.New("sign-in needs the provider's issuer URL and the dashboard's client ID")
	}
	if iss, err := url.Parse(opts.Issuer); err != nil || !websession.SecureURL(iss) {
		return nil, fmt.Errorf("issuer %q: an absolute https URL is needed (http only on a loopback address)", opts.Issuer)
	}
	u, err := url.Parse(opts.RedirectURL)
	if err != nil || !websession.SecureURL(u) || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("redirect URL %q: an absolute https URL without query is needed (http only on a loopback address)", opts.RedirectURL)
	}
	path := u.EscapedPath()
	if path == "" || path == "/" || slices.Contains([]string{signInPath, signOutPath, signedOutPath}, path) || !safeRoute(path) {
		return nil, fmt.Errorf("redirect URL %q: its path must be the callback's own (e.g. /oauth2/callback)", opts.RedirectURL)
	}
	if opts.Sealer == nil {
		return nil, errors.New("sign-in needs the session key (a Sealer)")
	}
	opts.Claims.Issuer = opts.Issuer
	if err := opts.Claims.Validate(); err != nil {
		return nil, err
	}
	if opts.SessionTTL == 0 {
		opts.SessionTTL = websession.DefaultSessionTTL
	}
	if opts.SessionTTL < time.Minute || opts.SessionTTL > websession.MaxSessionTTL {
		return nil, fmt.Errorf("session lifetime %s: between 1m and %s", opts.SessionTTL, websession.MaxSessionTTL)
	}
	if !slices.Contains(opts.Scopes, oidc.ScopeOpenID) {
		opts.Scopes = append([]string{oidc.ScopeOpenID}, opts.Scopes...)
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{Timeout: 30 * time.Second}
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &SignIn{opts: opts, callback: path}, nil
}

// safeRoute is a path a ServeMux pattern can hold literally.
func safeRoute(p string) bool {
	return strings.HasPrefix(p, "/") && !strings.ContainsAny(p, "{}% \t") && !strings.HasSuffix(p, "/")
}

// Discover reaches the provider's discovery document and keeps it. The
// server calls it at start to report a wrong issuer early; a failure
// there is retried by the next sign-in.
func (s *SignIn) Discover(ctx context.Context) error {
	_, err := s.discover(ctx)
	return err
}

func (s *SignIn) discover(ctx context.Context) (*oidc.Provider, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.provider != nil {
		return s.provider, nil
	}
	// The provider keeps this context's client for its key set: a
	// background context, so keys can be fetched after this request.
	p, err := oidc.NewProvider(oidc.ClientContext(context.WithoutCancel(ctx), s.opts.HTTPClient), s.opts.Issuer)
	if err != nil {
		return nil, fmt.Errorf("discovering the OpenID Connect provider %s: %w", s.opts.Issuer, err)
	}
	s.provider = p
	return p, nil
}

func (s *SignIn) oauth2(p *oidc.Provider) *oauth2.Config {
	return &oauth2.Config{ClientID: s.opts.ClientID, ClientSecret: s.opts.ClientSecret, Endpoint: p.Endpoint(),
		RedirectURL: s.opts.RedirectURL, Scopes: s.opts.Scopes}
}

// SessionUser is the Principal.Subject of a user signed in with a
// session cookie: the Kubernetes user and groups the claim mapping gave,
// for the Access's SubjectAccessReviews.
type SessionUser struct {
	User   string
	Groups []string
}

// session reads the request's session cookie: ErrUnauthenticated when
// there is none, or it is tampered with, sealed with a retired key or
// expired (and stale says to delete it).
func (s *SignIn) session(r *http.Request) (p Principal, stale bool, err error) {
	c, err := r.Cookie(websession.SessionCookie)
	if err != nil {
		return Principal{}, false, fmt.Errorf("%w: sign in, or send a Kubernetes bearer token", ErrUnauthenticated)
	}
	sess, err := s.opts.Sealer.OpenSession(c.Value, s.opts.Now())
	if err != nil {
		return Principal{}, true, fmt.Errorf("%w: the session cookie was refused (%v): sign in again", ErrUnauthenticated, err)
	}
	return Principal{Name: sess.User, Subject: SessionUser{User: sess.User, Groups: sess.Groups}, SignOutToken: sess.CSRF}, false, nil
}
