package dashboard

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/websession"
)

// The sign-in's behaviour that needs no provider: what the dashboard
// does with a session cookie, without one, and on sign-out. The round
// trip through a real provider is cmd/mcp-server's integration test.

var testKey = []byte(strings.Repeat("k", websession.MinSecretBytes))

// clock is a settable time for the sessions' expiry.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newSignIn(t *testing.T, c *clock) *SignIn {
	t.Helper()
	sealer, err := websession.NewSealer(testKey)
	if err != nil {
		t.Fatal(err)
	}
	// A provider nobody listens on: only /sign-in would reach it.
	s, err := NewSignIn(SignInOptions{Issuer: "http://127.0.0.1:1/idp", ClientID: "dashboard", RedirectURL: "https://dash.example/oauth2/callback",
		Sealer: sealer, SessionTTL: time.Hour, Now: c.now, HTTPClient: &http.Client{Timeout: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// sessionCookie seals a session as a sign-in would.
func sessionCookie(t *testing.T, s *SignIn, user string, at time.Time) (*http.Cookie, string) {
	t.Helper()
	sess, err := websession.NewSession(user, []string{"team"}, at, s.opts.SessionTTL)
	if err != nil {
		t.Fatal(err)
	}
	v, err := s.opts.Sealer.SealSession(sess)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Cookie{Name: websession.SessionCookie, Value: v}, sess.CSRF
}

type reqOpt func(*http.Request)

func withCookie(c *http.Cookie) reqOpt { return func(r *http.Request) { r.AddCookie(c) } }
func withHeader(k, v string) reqOpt    { return func(r *http.Request) { r.Header.Set(k, v) } }
func do(h http.Handler, method, target string, body io.Reader, opts ...reqOpt) (*http.Response, string) {
	r := httptest.NewRequest(method, "https://dash.example"+target, body)
	if body != nil {
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for _, o := range opts {
		o(r)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	res := rec.Result()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

// cleared reports whether the answer deletes the named cookie.
func cleared(res *http.Response, name string) bool {
	for _, c := range res.Cookies() {
		if c.Name == name && c.MaxAge < 0 {
			return true
		}
	}
	return false
}

func TestSignInSessions(t *testing.T) {
	c := &clock{t: time.Unix(1_800_000_000, 0)}
	s := newSignIn(t, c)
	h, _ := newTestHandler(t, Options{SignIn: s})

	// No credentials: a page sends the browser to sign in and back; an
	// export, a download or a POST is refused with 401.
	res, _ := do(h, http.MethodGet, "/scans?phase=Failed", nil)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/sign-in?next="+url.QueryEscape("/scans?phase=Failed") {
		t.Fatalf("page without a session: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	for _, p := range []string{"/export/leaderboard.csv", "/scans/cwac/x/files/report.html"} {
		res, body := do(h, http.MethodGet, p, nil)
		if res.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "Sign in on the dashboard") {
			t.Errorf("%s without a session: %d", p, res.StatusCode)
		}
	}
	if res, _ := do(h, http.MethodGet, "/scans", nil, withHeader("Authorization", "Bearer ")); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("a refused bearer token on a page: %d", res.StatusCode)
	}
	if res, _ := do(h, http.MethodPost, "/", strings.NewReader("")); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("POST without a session: %d", res.StatusCode)
	}

	// A bearer token still works, first.
	res, body := do(h, http.MethodGet, "/", nil, withHeader("Authorization", "Bearer reader"))
	if res.StatusCode != http.StatusOK || !strings.Contains(body, orgAlpha) {
		t.Errorf("bearer token: %d", res.StatusCode)
	}

	// A session: the page, with the namespaces the Access allows its user.
	cookie, csrf := sessionCookie(t, s, "reader", c.t)
	res, body = do(h, http.MethodGet, "/", nil, withCookie(cookie))
	if res.StatusCode != http.StatusOK || !strings.Contains(body, orgAlpha) || strings.Contains(body, orgHidden) {
		t.Fatalf("signed in: %d", res.StatusCode)
	}
	// The page's sign-out form carries the session's CSRF token.
	if !strings.Contains(body, `<form class="who" method="post" action="/sign-out">`) || !strings.Contains(body, `name="csrf" value="`+csrf+`"`) {
		t.Errorf("no sign-out form with the session's token")
	}
	if cookie, _ := sessionCookie(t, s, "nobody", c.t); true {
		if res, _ := do(h, http.MethodGet, "/", nil, withCookie(cookie)); res.StatusCode != http.StatusForbidden {
			t.Errorf("a user who reads nothing: %d", res.StatusCode)
		}
	}

	// Tampered, or expired: sent to sign in again, the cookie deleted.
	bad := *cookie
	bad.Value = flipMiddle(bad.Value)
	res, _ = do(h, http.MethodGet, "/", nil, withCookie(&bad))
	if res.StatusCode != http.StatusSeeOther || !cleared(res, websession.SessionCookie) {
		t.Errorf("tampered cookie: %d, cleared %v", res.StatusCode, cleared(res, websession.SessionCookie))
	}
	c.t = c.t.Add(time.Hour)
	res, _ = do(h, http.MethodGet, "/", nil, withCookie(cookie))
	if res.StatusCode != http.StatusSeeOther || !cleared(res, websession.SessionCookie) {
		t.Errorf("expired cookie: %d", res.StatusCode)
	}
	c.t = c.t.Add(-time.Hour)

}

// TestSignOut: refused without the session's token, or from another
// site; else the session cookie is deleted.
func TestSignOut(t *testing.T) {
	c := &clock{t: time.Unix(1_800_000_000, 0)}
	s := newSignIn(t, c)
	h, _ := newTestHandler(t, Options{SignIn: s})
	cookie, csrf := sessionCookie(t, s, "reader", c.t)
	form := func(token string) io.Reader { return strings.NewReader(url.Values{"csrf": {token}}.Encode()) }
	for name, tc := range map[string]struct {
		body io.Reader
		opts []reqOpt
	}{
		"no token":     {form(""), []reqOpt{withCookie(cookie)}},
		"wrong token":  {form(csrf[1:] + "x"), []reqOpt{withCookie(cookie)}},
		"another site": {form(csrf), []reqOpt{withCookie(cookie), withHeader("Sec-Fetch-Site", "cross-site")}},
		"other origin": {form(csrf), []reqOpt{withCookie(cookie), withHeader("Origin", "https://evil.example")}},
	} {
		res, _ := do(h, http.MethodPost, "/sign-out", tc.body, tc.opts...)
		if res.StatusCode != http.StatusForbidden || cleared(res, websession.SessionCookie) {
			t.Errorf("sign-out, %s: %d", name, res.StatusCode)
		}
	}
	res, _ := do(h, http.MethodPost, "/sign-out", form(csrf), withCookie(cookie), withHeader("Sec-Fetch-Site", "same-origin"))
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/signed-out" || !cleared(res, websession.SessionCookie) {
		t.Errorf("sign-out: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	if res, body := do(h, http.MethodGet, "/signed-out", nil); res.StatusCode != http.StatusOK || !strings.Contains(body, `href="/sign-in"`) {
		t.Errorf("signed-out page: %d", res.StatusCode)
	}
	if res, _ := do(h, http.MethodGet, "/sign-out", nil, withCookie(cookie)); res.StatusCode != http.StatusNotFound || cleared(res, websession.SessionCookie) {
		t.Errorf("GET /sign-out: %d", res.StatusCode)
	}
}

// TestSignInRoundTripRefusals: the callback refuses what is not this
// browser's own round trip, before reaching the provider.
func TestSignInRoundTripRefusals(t *testing.T) {
	c := &clock{t: time.Unix(1_800_000_000, 0)}
	s := newSignIn(t, c)
	h, _ := newTestHandler(t, Options{SignIn: s})
	flow, _ := websession.NewFlow("/scans", c.t)
	v, _ := s.opts.Sealer.SealFlow(flow)
	fc := &http.Cookie{Name: websession.FlowCookie, Value: v}
	tampered := &http.Cookie{Name: websession.FlowCookie, Value: flipMiddle(v)}
	for name, tc := range map[string]struct {
		query string
		opts  []reqOpt
		code  int
		has   string
	}{
		"no round trip cookie": {"?state=" + flow.State + "&code=x", nil, http.StatusBadRequest, "did not start this sign-in"},
		"wrong state":          {"?state=" + flow.Nonce + "&code=x", []reqOpt{withCookie(fc)}, http.StatusBadRequest, "does not belong"},
		"no state":             {"?code=x", []reqOpt{withCookie(fc)}, http.StatusBadRequest, "does not belong"},
		"repeated state":       {"?state=" + flow.State + "&state=" + flow.State + "&code=x", []reqOpt{withCookie(fc)}, http.StatusBadRequest, "repeats"},
		"provider refused":     {"?state=" + flow.State + "&error=access_denied", []reqOpt{withCookie(fc)}, http.StatusForbidden, "access_denied"},
		"no code":              {"?state=" + flow.State, []reqOpt{withCookie(fc)}, http.StatusBadRequest, "no authorization code"},
		"tampered round trip":  {"?state=" + flow.State + "&code=x", []reqOpt{withCookie(tampered)}, http.StatusBadRequest, "refused"},
	} {
		res, body := do(h, http.MethodGet, "/oauth2/callback"+tc.query, nil, tc.opts...)
		if res.StatusCode != tc.code || !strings.Contains(body, tc.has) || !cleared(res, websession.FlowCookie) {
			t.Errorf("%s: %d (want %d with %q), flow cookie cleared %v", name, res.StatusCode, tc.code, tc.has, cleared(res, websession.FlowCookie))
		}
		for _, ck := range res.Cookies() {
			if ck.Name == websession.SessionCookie {
				t.Errorf("%s: a session cookie was set", name)
			}
		}
	}
	c.t = c.t.Add(websession.FlowTTL)
	res, body := do(h, http.MethodGet, "/oauth2/callback?state="+flow.State+"&code=x", nil, withCookie(fc))
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(body, "expired") {
		t.Errorf("round trip past its time: %d", res.StatusCode)
	}
	// The provider is down: a clear 503, no redirect anywhere.
	if res, _ := do(h, http.MethodGet, "/sign-in?next=/scans", nil); res.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("sign-in with the provider down: %d", res.StatusCode)
	}
	if res, _ := do(h, http.MethodGet, "/sign-in?back=/", nil); res.StatusCode != http.StatusBadRequest {
		t.Errorf("sign-in with an unknown parameter: %d", res.StatusCode)
	}
}

// flipMiddle changes one character in the middle of a sealed value, where
// every bit is significant, so the value is always tampered (changing its
// last characters may alter only the encoding's unused trailing bits, or
// leave it as it was).
func flipMiddle(v string) string {
	b := []byte(v)
	i := len(b) / 2
	if b[i] == 'A' {
		b[i] = 'B'
	} else {
		b[i] = 'A'
	}
	return string(b)
}

// TestPublicNamespaces: without sign-in, the leaderboard and exports of
// the public namespaces only; every other page asks to sign in.
func TestPublicNamespaces(t *testing.T) {
	c := &clock{t: time.Unix(1_800_000_000, 0)}
	s := newSignIn(t, c)
	h, _ := newTestHandler(t, Options{SignIn: s, PublicNamespaces: []string{testNS}})
	res, body := do(h, http.MethodGet, "/", nil)
	if res.StatusCode != http.StatusOK || !strings.Contains(body, orgAlpha) || strings.Contains(body, orgHidden) {
		t.Fatalf("public leaderboard: %d", res.StatusCode)
	}
	if !strings.Contains(body, `<a href="/sign-in">Sign in</a>`) || strings.Contains(body, "/sign-out") {
		t.Error("the public page does not offer to sign in")
	}
	res, body = do(h, http.MethodGet, "/export/leaderboard.csv", nil)
	if res.StatusCode != http.StatusOK || strings.Contains(body, orgHidden) || !strings.Contains(body, orgAlpha) {
		t.Errorf("public export: %d", res.StatusCode)
	}
	// A public organisation's trend is public; its issues are not.
	alpha := "/export/organisations/" + testNS + "/" + url.PathEscape(orgAlpha)
	if res, _ := do(h, http.MethodGet, alpha+"/history-trend.csv", nil); res.StatusCode != http.StatusOK {
		t.Errorf("a public organisation's trend: %d", res.StatusCode)
	}
	if res, body := do(h, http.MethodGet, alpha+"/issues.csv", nil); res.StatusCode != http.StatusUnauthorized ||
		!strings.Contains(body, "not part of the public view") {
		t.Errorf("a public organisation's issues without sign-in: %d %s", res.StatusCode, body)
	}
	hidden := "/export/organisations/" + otherNS + "/" + url.PathEscape(orgHidden) + "/history-trend.csv"
	if res, _ := do(h, http.MethodGet, hidden, nil); res.StatusCode != http.StatusNotFound {
		t.Errorf("a private namespace's trend: %d", res.StatusCode)
	}
	for _, p := range []string{"/scans", "/organisations/" + testNS + "/" + url.PathEscape(orgAlpha)} {
		if res, _ := do(h, http.MethodGet, p, nil); res.StatusCode != http.StatusSeeOther {
			t.Errorf("%s without sign-in: %d", p, res.StatusCode)
		}
	}
	// A signed-in user reads the public namespaces and their own.
	cookie, _ := sessionCookie(t, s, "nobody", c.t)
	if res, _ := do(h, http.MethodGet, "/", nil, withCookie(cookie)); res.StatusCode != http.StatusOK {
		t.Errorf("signed in, reading only the public namespace: %d", res.StatusCode)
	}
	if res, _ := do(h, http.MethodGet, "/scans", nil, withCookie(cookie)); res.StatusCode != http.StatusForbidden {
		t.Errorf("signed in, a private page: %d", res.StatusCode)
	}
	// Without sign-in configured, public pages still work; others answer 401.
	h2, _ := newTestHandler(t, Options{PublicNamespaces: []string{testNS}})
	if res, _ := do(h2, http.MethodGet, "/", nil); res.StatusCode != http.StatusOK {
		t.Errorf("public without sign-in: %d", res.StatusCode)
	}
	if res, _ := do(h2, http.MethodGet, "/scans", nil); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("private without sign-in configured: %d", res.StatusCode)
	}
	_, err := New(Options{Access: defaultAccess, Namespaces: []string{testNS}, PublicNamespaces: []string{"typo"}})
	if err == nil || !strings.Contains(err.Error(), `"typo"`) {
		t.Errorf("a public namespace not served: %v", err)
	}
}

func TestNewSignInRefuses(t *testing.T) {
	sealer, _ := websession.NewSealer(testKey)
	ok := SignInOptions{Issuer: "https://idp.example", ClientID: "c", RedirectURL: "https://dash.example/oauth2/callback", Sealer: sealer}
	if _, err := NewSignIn(ok); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		edit func(*SignInOptions)
		has  string
	}{
		"no issuer":               {func(o *SignInOptions) { o.Issuer = "" }, "issuer URL"},
		"http issuer elsewhere":   {func(o *SignInOptions) { o.Issuer = "http://idp.example" }, "https"},
		"no client":               {func(o *SignInOptions) { o.ClientID = "" }, "client ID"},
		"http redirect elsewhere": {func(o *SignInOptions) { o.RedirectURL = "http://dash.example/cb" }, "https"},
		"relative redirect":       {func(o *SignInOptions) { o.RedirectURL = "/cb" }, "absolute"},
		"redirect at /":           {func(o *SignInOptions) { o.RedirectURL = "https://dash.example/" }, "callback's own"},
		"redirect at sign-in":     {func(o *SignInOptions) { o.RedirectURL = "https://dash.example/sign-in" }, "callback's own"},
		"redirect with query":     {func(o *SignInOptions) { o.RedirectURL = "https://dash.example/cb?x=1" }, "without query"},
		"no key":                  {func(o *SignInOptions) { o.Sealer = nil }, "session key"},
		"short session":           {func(o *SignInOptions) { o.SessionTTL = time.Second }, "between 1m"},
		"groups prefix, no claim": {func(o *SignInOptions) { o.Claims.GroupsPrefix = "oidc:" }, "groups claim"},
		"long session":            {func(o *SignInOptions) { o.SessionTTL = websession.MaxSessionTTL + time.Minute }, "between 1m"},
	} {
		o := ok
		tc.edit(&o)
		if _, err := NewSignIn(o); err == nil || !strings.Contains(err.Error(), tc.has) {
			t.Errorf("%s: %v, want %q", name, err, tc.has)
		}
	}
	loop := ok
	loop.Issuer, loop.RedirectURL = "http://127.0.0.1:5556/dex", "http://localhost:8090/callback"
	if s, err := NewSignIn(loop); err != nil || s.opts.Scopes[0] != "openid" {
		t.Errorf("loopback http: %v", err)
	}
}
