package websession

import (
	"bytes"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// The cookies' names. The __Host- prefix makes a browser keep them only
// when Secure, with Path=/ and no Domain: nothing on another host or
// subdomain can set, overwrite or read them.
const (
	SessionCookie = "__Host-cwac-session"
	FlowCookie    = "__Host-cwac-signin"
)

// Limits of a session and of one sign-in's round trip.
const (
	// DefaultSessionTTL is how long a sign-in lasts unless configured.
	DefaultSessionTTL = 8 * time.Hour
	// MaxSessionTTL bounds the configured lifetime: a session is not
	// revoked when the provider disables the user, so it must end.
	MaxSessionTTL = 7 * 24 * time.Hour
	// FlowTTL is how long a sign-in may take at the provider.
	FlowTTL = 10 * time.Minute
	// tokenBytes is the entropy of the CSRF token, state, nonce and
	// PKCE verifier (43 characters of base64url: a valid verifier).
	tokenBytes = 32
)

// Errors of OpenSession and OpenFlow beside the Sealer's.
var (
	ErrExpired      = errors.New("expired")
	ErrInvalid      = errors.New("not a valid value")
	ErrStateMissing = errors.New("the sign-in's state does not match (started in another tab or browser, or replayed)")
	ErrCSRF         = errors.New("the form's CSRF token does not match the session")
)

// Session is what a sign-in leaves in the session cookie: who the user
// is for Kubernetes (after the claim mapping), the token every
// state-changing form must carry, and when it ends. Never the ID token.
type Session struct {
	User    string   `json:"u"`
	Groups  []string `json:"g,omitempty"`
	CSRF    string   `json:"c"`
	Expires int64    `json:"e"` // Unix seconds
}

// NewSession starts a session for user and groups at now, ending after ttl.
func NewSession(user string, groups []string, now time.Time, ttl time.Duration) (Session, error) {
	if user == "" {
		return Session{}, errors.New("a session needs a user")
	}
	if ttl <= 0 || ttl > MaxSessionTTL {
		return Session{}, fmt.Errorf("session lifetime %s: between 1s and %s", ttl, MaxSessionTTL)
	}
	csrf, err := randomToken()
	if err != nil {
		return Session{}, err
	}
	return Session{User: user, Groups: groups, CSRF: csrf, Expires: now.Add(ttl).Unix()}, nil
}

// ExpiresAt is the session's end.
func (s Session) ExpiresAt() time.Time { return time.Unix(s.Expires, 0) }

// CheckCSRF compares a form's token with the session's in constant time.
func (s Session) CheckCSRF(token string) error {
	if s.CSRF == "" || subtle.ConstantTimeCompare([]byte(s.CSRF), []byte(token)) != 1 {
		return ErrCSRF
	}
	return nil
}

// SealSession seals a session for the session cookie.
func (k *Sealer) SealSession(s Session) (string, error) {
	data, err := json.Marshal(s)
	if err != nil {
		return "", err
	}
	return k.Seal(SessionCookie, data)
}

// OpenSession opens the session cookie's value: a session this server
// sealed, whole and not expired at now.
func (k *Sealer) OpenSession(value string, now time.Time) (Session, error) {
	var s Session
	if err := k.open(SessionCookie, value, &s); err != nil {
		return Session{}, err
	}
	if s.User == "" || len(s.CSRF) != tokenChars {
		return Session{}, fmt.Errorf("session: %w", ErrInvalid)
	}
	if !now.Before(s.ExpiresAt()) {
		return Session{}, fmt.Errorf("session: %w at %s", ErrExpired, s.ExpiresAt().UTC().Format(time.RFC3339))
	}
	return s, nil
}

// Flow is one sign-in's round trip to the provider, kept in a
// short-lived cookie of the browser that started it: the state the
// callback must bring back, the nonce the ID token must carry, the PKCE
// verifier of the code challenge sent, and the page to return to.
type Flow struct {
	State    string `json:"s"`
	Nonce    string `json:"n"`
	Verifier string `json:"v"`
	Return   string `json:"r"`
	Expires  int64  `json:"e"`
}

// NewFlow starts a round trip at now that returns to returnTo (made safe
// with SafeReturn).
func NewFlow(returnTo string, now time.Time) (Flow, error) {
	var toks [3]string
	for i := range toks {
		t, err := randomToken()
		if err != nil {
			return Flow{}, err
		}
		toks[i] = t
	}
	return Flow{State: toks[0], Nonce: toks[1], Verifier: toks[2], Return: SafeReturn(returnTo), Expires: now.Add(FlowTTL).Unix()}, nil
}

// CheckState compares the state the provider sent back, in constant time.
func (f Flow) CheckState(state string) error {
	if subtle.ConstantTimeCompare([]byte(f.State), []byte(state)) != 1 {
		return ErrStateMissing
	}
	return nil
}

// SealFlow seals a round trip for its cookie.
func (k *Sealer) SealFlow(f Flow) (string, error) {
	data, err := json.Marshal(f)
	if err != nil {
		return "", err
	}
	return k.Seal(FlowCookie, data)
}

// OpenFlow opens the round trip's cookie: whole, and not expired at now.
func (k *Sealer) OpenFlow(value string, now time.Time) (Flow, error) {
	var f Flow
	if err := k.open(FlowCookie, value, &f); err != nil {
		return Flow{}, err
	}
	if len(f.State) != tokenChars || len(f.Nonce) != tokenChars || len(f.Verifier) != tokenChars || f.Return != SafeReturn(f.Return) {
		return Flow{}, fmt.Errorf("sign-in state: %w", ErrInvalid)
	}
	if !now.Before(time.Unix(f.Expires, 0)) {
		return Flow{}, fmt.Errorf("sign-in state: %w (a sign-in must finish within %s)", ErrExpired, FlowTTL)
	}
	return f, nil
}

// open opens a sealed value and decodes its JSON strictly.
func (k *Sealer) open(name, value string, v any) error {
	plain, err := k.Open(name, value)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(plain))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil || dec.More() {
		return fmt.Errorf("%w: its content is not what this server seals", ErrInvalid)
	}
	return nil
}

// tokenChars is the length of a token: tokenBytes in unpadded base64url.
var tokenChars = base64.RawURLEncoding.EncodedLen(tokenBytes)

func randomToken() (string, error) {
	b := make([]byte, tokenBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("random token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// Cookie is a cookie of the sign-in: __Host- (Secure, Path=/, no
// Domain), HttpOnly (no script reads it; none is served anyway) and
// SameSite=Lax (sent on the provider's top-level redirect back, never on
// another site's POST or sub-request), ending after maxAge.
func Cookie(name, value string, maxAge time.Duration) *http.Cookie {
	return &http.Cookie{Name: name, Value: value, Path: "/", MaxAge: int(maxAge.Seconds()),
		Secure: true, HttpOnly: true, SameSite: http.SameSiteLaxMode}
}

// Clear is the cookie that deletes a sign-in cookie.
func Clear(name string) *http.Cookie {
	c := Cookie(name, "", 0)
	c.MaxAge = -1
	return c
}
