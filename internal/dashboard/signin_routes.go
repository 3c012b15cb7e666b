package dashboard

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/a11y-dev/cwac-operator/internal/textcap"
	"github.com/a11y-dev/cwac-operator/internal/websession"
)

// maxSignOutForm bounds the sign-out form's body (one token).
const maxSignOutForm = 4 << 10

// signInRoutes mounts the sign-in's routes when sign-in is configured;
// none of them needs a signed-in viewer.
func (h *Handler) signInRoutes() {
	s := h.opts.SignIn
	if s == nil {
		return
	}
	h.mux.HandleFunc("GET "+signInPath, func(w http.ResponseWriter, r *http.Request) { h.startSignIn(w, r, s) })
	h.mux.HandleFunc("GET "+s.callback, func(w http.ResponseWriter, r *http.Request) { h.finishSignIn(w, r, s) })
	h.mux.HandleFunc("POST "+signOutPath, func(w http.ResponseWriter, r *http.Request) { h.signOut(w, r, s) })
	h.mux.HandleFunc("GET "+signedOutPath, func(w http.ResponseWriter, r *http.Request) {
		h.render(w, r, http.StatusOK, "signedout", page{Title: "Signed out"})
	})
}

// startSignIn sends the browser to the provider with a new round trip's
// state, nonce and PKCE challenge, kept sealed in a cookie of its own.
func (h *Handler) startSignIn(w http.ResponseWriter, r *http.Request, s *SignIn) {
	if err := checkQuery(r.URL.Query(), "next"); err != nil {
		h.badRequest(w, r, nil, err.Error())
		return
	}
	next := websession.SafeReturn(r.URL.Query().Get("next"))
	if isSignInRoute(next, s) {
		next = "/"
	}
	p, err := s.discover(r.Context())
	if err != nil {
		h.opts.Log.Error("dashboard: sign-in", "err", err)
		h.fail(w, r, nil, http.StatusServiceUnavailable, "Sign-in unavailable",
			"The sign-in provider could not be reached just now. Try again shortly; if it persists, ask the dashboard's administrators to check its issuer URL.")
		return
	}
	flow, err := websession.NewFlow(next, s.opts.Now())
	if err == nil {
		var v string
		if v, err = s.opts.Sealer.SealFlow(flow); err == nil {
			http.SetCookie(w, websession.Cookie(websession.FlowCookie, v, websession.FlowTTL))
		}
	}
	if err != nil {
		h.opts.Log.Error("dashboard: starting a sign-in", "err", err)
		h.fail(w, r, nil, http.StatusInternalServerError, "Sign-in failed", "The sign-in could not be started. The error is in the server's log.")
		return
	}
	to := s.oauth2(p).AuthCodeURL(flow.State, oidc.Nonce(flow.Nonce), oauth2.S256ChallengeOption(flow.Verifier))
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// isSignInRoute is a return path that would start another sign-in.
func isSignInRoute(path string, s *SignIn) bool {
	p, _, _ := strings.Cut(path, "?")
	return p == signInPath || p == s.callback || p == signOutPath
}

// finishSignIn is the provider's redirect back: the state must be the
// one this browser's round trip sent, the code is exchanged with its
// PKCE verifier, the ID token must verify and carry its nonce; then the
// claims give the user and groups, kept in a sealed session cookie.
func (h *Handler) finishSignIn(w http.ResponseWriter, r *http.Request, s *SignIn) {
	// The round trip is used once, whatever happens.
	http.SetCookie(w, websession.Clear(websession.FlowCookie))
	refuse := func(code int, msg string) {
		h.fail(w, r, nil, code, "Sign-in failed", msg+" Start again from the dashboard's home page.")
	}
	q := r.URL.Query()
	for k, v := range q {
		if len(v) > 1 {
			refuse(http.StatusBadRequest, fmt.Sprintf("The provider's answer repeats %q.", textcap.Head(k, 32)))
			return
		}
	}
	c, err := r.Cookie(websession.FlowCookie)
	if err != nil {
		refuse(http.StatusBadRequest, "This browser did not start this sign-in (or its cookies are off).")
		return
	}
	flow, err := s.opts.Sealer.OpenFlow(c.Value, s.opts.Now())
	if err != nil {
		refuse(http.StatusBadRequest, "This sign-in's state was refused: "+err.Error()+".")
		return
	}
	if err := flow.CheckState(q.Get("state")); err != nil {
		refuse(http.StatusBadRequest, "The provider's answer does not belong to this browser's sign-in: "+err.Error()+".")
		return
	}
	if e := q.Get("error"); e != "" {
		refuse(http.StatusForbidden, fmt.Sprintf("The provider refused the sign-in: %s %s", textcap.Head(e, 64), textcap.Head(q.Get("error_description"), 256)))
		return
	}
	if q.Get("code") == "" {
		refuse(http.StatusBadRequest, "The provider's answer carries no authorization code.")
		return
	}
	user, groups, err := s.exchange(r, flow, q.Get("code"))
	var claimsErr claimsError
	switch {
	case errors.As(err, &claimsErr):
		refuse(http.StatusForbidden, "You signed in at the provider, but the dashboard cannot use its answer: "+claimsErr.Error()+".")
		return
	case err != nil:
		h.opts.Log.Error("dashboard: finishing a sign-in", "err", err)
		refuse(http.StatusBadGateway, "The provider's answer could not be checked. The error is in the server's log.")
		return
	}
	sess, err := websession.NewSession(user, groups, s.opts.Now(), s.opts.SessionTTL)
	var v string
	if err == nil {
		v, err = s.opts.Sealer.SealSession(sess)
	}
	if errors.Is(err, websession.ErrTooLong) {
		refuse(http.StatusForbidden, fmt.Sprintf("%s is in %d groups, more than a session cookie holds: "+
			"ask the administrators for a groups claim that names fewer.", user, len(groups)))
		return
	}
	if err != nil {
		h.opts.Log.Error("dashboard: sealing a session", "err", err)
		refuse(http.StatusInternalServerError, "The session could not be made. The error is in the server's log.")
		return
	}
	h.opts.Log.Info("dashboard: signed in", "user", user, "groups", groups)
	http.SetCookie(w, websession.Cookie(websession.SessionCookie, v, s.opts.SessionTTL))
	http.Redirect(w, r, flow.Return, http.StatusSeeOther)
}

// claimsError is a sign-in the provider completed whose ID token gives no
// user here (a claim missing, an unverified email, a reserved name).
type claimsError struct{ error }

// exchange trades the code for tokens (with the PKCE verifier), verifies
// the ID token (signature, issuer, audience, expiry) and its nonce, and
// maps its claims.
func (s *SignIn) exchange(r *http.Request, flow websession.Flow, code string) (string, []string, error) {
	p, err := s.discover(r.Context())
	if err != nil {
		return "", nil, err
	}
	ctx := oidc.ClientContext(r.Context(), s.opts.HTTPClient)
	tok, err := s.oauth2(p).Exchange(ctx, code, oauth2.VerifierOption(flow.Verifier))
	if err != nil {
		return "", nil, fmt.Errorf("exchanging the code: %w", err)
	}
	raw, ok := tok.Extra("id_token").(string)
	if !ok || raw == "" {
		return "", nil, errors.New("the token response carries no id_token")
	}
	idt, err := p.VerifierContext(ctx, &oidc.Config{ClientID: s.opts.ClientID, Now: s.opts.Now}).Verify(ctx, raw)
	if err != nil {
		return "", nil, fmt.Errorf("verifying the ID token: %w", err)
	}
	if subtle.ConstantTimeCompare([]byte(idt.Nonce), []byte(flow.Nonce)) != 1 {
		return "", nil, errors.New("the ID token's nonce is not this sign-in's (replayed)")
	}
	var claims map[string]json.RawMessage
	if err := idt.Claims(&claims); err != nil {
		return "", nil, fmt.Errorf("reading the ID token's claims: %w", err)
	}
	user, groups, err := s.opts.Claims.Map(claims)
	if err != nil {
		return "", nil, claimsError{err}
	}
	return user, groups, nil
}

// signOut ends the session: a POST from this site's own form (same
// origin, with the session's CSRF token), answered by deleting the
// cookie. The provider's own session is not ended.
func (h *Handler) signOut(w http.ResponseWriter, r *http.Request, s *SignIn) {
	if err := websession.CheckSameOrigin(r); err != nil {
		h.fail(w, r, nil, http.StatusForbidden, "Sign-out refused", "This sign-out was sent from another site: "+err.Error()+".")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxSignOutForm)
	if err := r.ParseForm(); err != nil {
		h.badRequest(w, r, nil, "The sign-out form could not be read.")
		return
	}
	p, _, err := s.session(r)
	if err != nil {
		// Nobody signed in (or the session already ended): nothing to end.
		http.SetCookie(w, websession.Clear(websession.SessionCookie))
		http.Redirect(w, r, signedOutPath, http.StatusSeeOther)
		return
	}
	sess := websession.Session{CSRF: p.SignOutToken}
	if err := sess.CheckCSRF(r.PostForm.Get("csrf")); err != nil {
		h.fail(w, r, nil, http.StatusForbidden, "Sign-out refused",
			"The sign-out form's token does not match your session, so it was not sent by this dashboard's page. Reload the page and sign out again.")
		return
	}
	h.opts.Log.Info("dashboard: signed out", "user", p.Name)
	http.SetCookie(w, websession.Clear(websession.SessionCookie))
	http.Redirect(w, r, signedOutPath, http.StatusSeeOther)
}
