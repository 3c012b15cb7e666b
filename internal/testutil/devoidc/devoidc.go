// Package devoidc is an OpenID Connect provider for local development
// only: zitadel's OP library (discovery, the authorize and token
// endpoints, PKCE, signed ID tokens, the key set, userinfo) over an
// in-memory store with one confidential client and a few users who sign
// in with a password on a small server-rendered page. It lets someone
// who runs the product on their own machine sign in to the dashboard in
// a browser, and lets tests drive the same sign-in. Its users, password
// and keys live in memory and on the command line of the machine it
// runs on: it is never a provider for a real deployment.
package devoidc

import (
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/zitadel/oidc/v3/pkg/op"
)

// Config is the provider's issuer, its one client and its users.
type Config struct {
	// Issuer is the provider's own URL, e.g. http://127.0.0.1:5556.
	Issuer string
	// ClientID and ClientSecret are the one confidential client's.
	ClientID, ClientSecret string
	// RedirectURIs are the client's callbacks, compared exactly.
	RedirectURIs []string
	// Users may sign in with Password.
	Users    []User
	Password string
	// Log receives the library's log (nil: discarded).
	Log *slog.Logger
	// AccessTokenAudience, when set, makes access tokens JWTs (RFC 9068)
	// whose audience is the client and these: the URLs of the protected
	// resources that accept them (an MCP server checks its own is named,
	// RFC 8707), as real providers are configured with an API's audience.
	// The tokens carry the user's email and groups.
	AccessTokenAudience []string
}

// User is one development user. Their email is both the name typed on
// the login page and the ID token's subject.
type User struct {
	Email  string
	Groups []string
	// Unverified makes the ID token's email_verified false, as for an
	// address the provider never checked.
	Unverified bool
}

// Lifetimes of what the provider hands out.
const (
	requestTTL = 10 * time.Minute // from the authorize request to the code's exchange
	tokenTTL   = 5 * time.Minute  // ID and access tokens
)

// Provider is the OpenID Connect provider with its login page.
type Provider struct {
	handler http.Handler
	store   *storage
}

// New checks cfg and builds the provider.
func New(cfg Config) (*Provider, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	var cryptoKey [32]byte
	if _, err := rand.Read(cryptoKey[:]); err != nil {
		return nil, err
	}
	users := make(map[string]User, len(cfg.Users))
	for _, u := range cfg.Users {
		users[u.Email] = u
	}
	s := &storage{
		client:   &client{id: cfg.ClientID, redirects: slices.Clone(cfg.RedirectURIs), jwt: len(cfg.AccessTokenAudience) > 0},
		audience: slices.Clone(cfg.AccessTokenAudience),
		secret:   cfg.ClientSecret,
		password: cfg.Password,
		users:    users,
		key:      signingKey{key: key, id: randomID()},
		requests: map[string]*authRequest{},
		codes:    map[string]string{},
		tokens:   map[string]time.Time{},
		now:      time.Now,
	}
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	o, err := op.NewProvider(&op.Config{CryptoKey: cryptoKey, CodeMethodS256: true, AuthMethodPost: true},
		s, op.StaticIssuer(cfg.Issuer), op.WithAllowInsecure(), op.WithLogger(log))
	if err != nil {
		return nil, fmt.Errorf("the provider: %w", err)
	}
	mux := http.NewServeMux()
	l := &loginPage{store: s, callback: op.AuthCallbackURL(o), formAction: formAction(cfg.RedirectURIs)}
	mux.Handle("/login", op.NewIssuerInterceptor(o.IssuerFromRequest).Handler(l))
	mux.HandleFunc("GET /login.css", serveCSS)
	mux.Handle("/", o)
	return &Provider{handler: mux, store: s}, nil
}

// Handler serves the provider: its OpenID Connect endpoints and the login page.
func (p *Provider) Handler() http.Handler { return p.handler }

func (c Config) check() error {
	u, err := url.Parse(c.Issuer)
	switch {
	case err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https"):
		return fmt.Errorf("issuer %q is not an http(s) URL with a host", c.Issuer)
	case c.ClientID == "":
		return errors.New("a client ID is required")
	case len(c.ClientSecret) < 16:
		return errors.New("the client secret must be 16 characters or more")
	case len(c.RedirectURIs) == 0:
		return errors.New("at least one redirect URI is required")
	case len(c.Users) == 0:
		return errors.New("at least one user is required")
	case len(c.Password) < 8:
		return errors.New("the users' password must be 8 characters or more")
	}
	for _, r := range c.RedirectURIs {
		ru, err := url.Parse(r)
		if err != nil || ru.Host == "" || (ru.Scheme != "http" && ru.Scheme != "https") || ru.Fragment != "" {
			return fmt.Errorf("redirect URI %q is not an absolute http(s) URL without a fragment", r)
		}
	}
	for _, u := range c.Users {
		if !strings.Contains(u.Email, "@") || strings.ContainsAny(u.Email, " :,") {
			return fmt.Errorf("user %q: an email address is required (no spaces, colons or commas)", u.Email)
		}
	}
	return nil
}

// formAction lets the login form's redirects reach the client's
// callbacks: browsers hold a form's whole redirect chain to form-action.
func formAction(redirects []string) string {
	sources := []string{"'self'"}
	for _, r := range redirects {
		u, _ := url.Parse(r) // checked in Config.check
		if o := u.Scheme + "://" + u.Host; !slices.Contains(sources, o) {
			sources = append(sources, o)
		}
	}
	return strings.Join(sources, " ")
}

// storage is the provider's state: the one client, the users, pending
// authorization requests with their codes, and the tokens handed out.
type storage struct {
	client   *client
	secret   string
	password string
	users    map[string]User
	key      signingKey
	audience []string // access tokens' audience besides the client (Config.AccessTokenAudience)

	mu       sync.Mutex
	requests map[string]*authRequest
	codes    map[string]string    // code -> request ID
	tokens   map[string]time.Time // access token ID -> expiry
	now      func() time.Time
}
