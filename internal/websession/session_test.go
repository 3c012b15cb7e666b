package websession

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

var t0 = time.Unix(1_800_000_000, 0)

// TestSession: a session opens until its expiry, not at or after it, and
// its CSRF token is the one form token accepted.
func TestSession(t *testing.T) {
	s := sealer(t, keyA)
	sess, err := NewSession("alice", []string{"team-a"}, t0, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	v, err := s.SealSession(sess)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		at  time.Time
		err error
	}{
		{t0, nil},
		{t0.Add(time.Hour - time.Second), nil},
		{t0.Add(time.Hour), ErrExpired},
		{t0.Add(time.Hour + time.Second), ErrExpired},
	} {
		got, err := s.OpenSession(v, tc.at)
		if !errors.Is(err, tc.err) {
			t.Errorf("at %s: %v, want %v", tc.at.Sub(t0), err, tc.err)
		}
		if err == nil && (got.User != "alice" || len(got.Groups) != 1 || got.CSRF != sess.CSRF) {
			t.Errorf("opened %+v", got)
		}
	}
	if err := sess.CheckCSRF(sess.CSRF); err != nil {
		t.Errorf("its own token: %v", err)
	}
	for _, bad := range []string{"", sess.CSRF[1:], strings.ToUpper(sess.CSRF), sess.CSRF + "x"} {
		if err := sess.CheckCSRF(bad); !errors.Is(err, ErrCSRF) {
			t.Errorf("token %q: %v", bad, err)
		}
	}
	if err := (Session{}).CheckCSRF(""); !errors.Is(err, ErrCSRF) {
		t.Errorf("a session without a token accepted an empty one: %v", err)
	}
	other, _ := NewSession("alice", nil, t0, time.Hour)
	if other.CSRF == sess.CSRF {
		t.Error("two sessions share a CSRF token")
	}
	// A session cookie is not a flow cookie, nor the reverse.
	if _, err := s.OpenFlow(v, t0); !errors.Is(err, ErrForged) {
		t.Errorf("session opened as a flow: %v", err)
	}
}

func TestNewSessionRefuses(t *testing.T) {
	for _, tc := range []struct {
		user string
		ttl  time.Duration
	}{{"", time.Hour}, {"u", 0}, {"u", -time.Second}, {"u", MaxSessionTTL + time.Second}} {
		if _, err := NewSession(tc.user, nil, t0, tc.ttl); err == nil {
			t.Errorf("%q %s accepted", tc.user, tc.ttl)
		}
	}
	if _, err := NewSession("u", nil, t0, MaxSessionTTL); err != nil {
		t.Errorf("the longest lifetime: %v", err)
	}
}

// TestSealedSessionContent: a sealed value that opens but is not a whole
// session is refused.
func TestSealedSessionContent(t *testing.T) {
	s := sealer(t, keyA)
	for _, content := range []string{
		`{"u":"","c":"` + strings.Repeat("x", tokenChars) + `","e":1900000000}`,
		`{"u":"a","c":"short","e":1900000000}`,
		`{"u":"a","c":"` + strings.Repeat("x", tokenChars) + `","e":1900000000,"admin":true}`,
		`{"u":"a"} {}`,
		`[]`,
	} {
		v, _ := s.Seal(SessionCookie, []byte(content))
		if _, err := s.OpenSession(v, t0); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v", content, err)
		}
	}
}

func TestFlow(t *testing.T) {
	s := sealer(t, keyA)
	f, err := NewFlow("/scans?phase=Failed", t0)
	if err != nil {
		t.Fatal(err)
	}
	if f.Return != "/scans?phase=Failed" || f.State == f.Nonce || f.Nonce == f.Verifier || len(f.Verifier) < 43 {
		t.Fatalf("flow %+v", f)
	}
	v, _ := s.SealFlow(f)
	got, err := s.OpenFlow(v, t0.Add(FlowTTL-time.Second))
	if err != nil || got != f {
		t.Fatalf("open: %+v %v", got, err)
	}
	if _, err := s.OpenFlow(v, t0.Add(FlowTTL)); !errors.Is(err, ErrExpired) {
		t.Errorf("at its end: %v", err)
	}
	if err := got.CheckState(f.State); err != nil {
		t.Error(err)
	}
	for _, bad := range []string{"", f.Nonce, f.State[:42]} {
		if err := got.CheckState(bad); !errors.Is(err, ErrStateMissing) {
			t.Errorf("state %q: %v", bad, err)
		}
	}
	if f, _ := NewFlow("https://evil.example/", t0); f.Return != "/" {
		t.Errorf("a flow returns to %q", f.Return)
	}
	if _, err := s.OpenSession(v, t0); !errors.Is(err, ErrForged) {
		t.Errorf("flow opened as a session: %v", err)
	}
}

func TestCookie(t *testing.T) {
	c := Cookie(SessionCookie, "v", time.Hour)
	if !c.Secure || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Path != "/" || c.Domain != "" || c.MaxAge != 3600 {
		t.Errorf("cookie %+v", c)
	}
	if err := c.Valid(); err != nil {
		t.Error(err)
	}
	if !strings.HasPrefix(c.String(), "__Host-cwac-session=v; Path=/; Max-Age=3600; HttpOnly; Secure; SameSite=Lax") {
		t.Errorf("header %s", c.String())
	}
	if cl := Clear(FlowCookie); cl.MaxAge != -1 || !cl.Secure || cl.Value != "" || !strings.Contains(cl.String(), "Max-Age=0") {
		t.Errorf("clear %+v %s", cl, cl.String())
	}
}

func TestSafeReturn(t *testing.T) {
	for in, want := range map[string]string{
		"":                        "/",
		"/":                       "/",
		"/scans?phase=Failed":     "/scans?phase=Failed",
		"/organisations/ns/A%20B": "/organisations/ns/A%20B",
		"//evil.example/":         "/",
		"/\\evil.example":         "/",
		"https://evil.example/":   "/",
		"javascript:alert(1)":     "/",
		"scans":                   "/",
		"/a b":                    "/",
		"/a\tb":                   "/",
		"/a\r\nSet-Cookie: x":     "/",
		"/%zz":                    "/",
		"/" + strings.Repeat("a", maxReturnBytes-1): "/" + strings.Repeat("a", maxReturnBytes-1),
		"/" + strings.Repeat("a", maxReturnBytes):   "/",
	} {
		if got := SafeReturn(in); got != want {
			t.Errorf("SafeReturn(%.40q) = %.40q, want %.40q", in, got, want)
		}
	}
}

func FuzzSafeReturn(f *testing.F) {
	for _, s := range []string{"/", "//x", "/\\x", "/a?b#c", "http://x/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := SafeReturn(s)
		if got != "/" && got != s {
			t.Fatalf("%q became %q", s, got)
		}
		if !strings.HasPrefix(got, "/") || strings.HasPrefix(got, "//") || strings.ContainsAny(got, "\\\r\n") {
			t.Fatalf("%q is not a local path", got)
		}
		req := httptest.NewRequest(http.MethodGet, "https://dash.example/", nil)
		if u, err := req.URL.Parse(got); err != nil || u.Host != "dash.example" {
			t.Fatalf("%q resolves to %v %v", got, u, err)
		}
	})
}

// TestCheckSameOrigin: sign-out's refusal of other sites' requests.
func TestCheckSameOrigin(t *testing.T) {
	for _, tc := range []struct {
		name    string
		headers map[string]string
		ok      bool
	}{
		{"same origin by fetch metadata", map[string]string{"Sec-Fetch-Site": "same-origin"}, true},
		{"cross site by fetch metadata", map[string]string{"Sec-Fetch-Site": "cross-site"}, false},
		{"same site, other origin", map[string]string{"Sec-Fetch-Site": "same-site"}, false},
		{"matching Origin", map[string]string{"Origin": "https://dash.example"}, true},
		{"other Origin", map[string]string{"Origin": "https://evil.example"}, false},
		{"no browser headers: the token decides", nil, true},
	} {
		r := httptest.NewRequest(http.MethodPost, "https://dash.example/sign-out", nil)
		for k, v := range tc.headers {
			r.Header.Set(k, v)
		}
		if err := CheckSameOrigin(r); (err == nil) != tc.ok {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}
