//go:build integration

package main

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/dashboard"
	"github.com/a11y-dev/cwac-operator/internal/mcpserver"
	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
	"github.com/a11y-dev/cwac-operator/internal/testutil/devoidc"
	"github.com/a11y-dev/cwac-operator/internal/websession"
)

// TestDashboardSignInWithProvider drives the dashboard's sign-in end to
// end: the development OpenID Connect provider (internal/testutil/devoidc) on
// 127.0.0.1, the dashboard behind the MCP server's own HTTP front over
// TLS, a real Kubernetes API server (envtest) whose RBAC decides what
// each signed-in user reads, and an HTTP client with a cookie jar as the
// browser.
func TestDashboardSignInWithProvider(t *testing.T) {
	f := newSignInFixture(t)
	alice := f.signInAndRBAC(t)
	f.roundTripRefusals(t)
	f.cookieRefusals(t, alice)
	f.publicMode(t)
	f.signOut(t, alice)
	t.Run("in Chromium", f.inChromium)
}

// signInFixture is the API server, the provider and the dashboard.
type signInFixture struct {
	srv     *httptest.Server
	idp     *testProvider
	keyFile string
	client  client.Client
	cs      *kubernetes.Clientset
	auth    *mcpserver.KubernetesAuth
}

func newSignInFixture(t *testing.T) *signInFixture {
	t.Helper()
	cfg := startEnvtest(t)
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(cwacv1alpha1.AddToScheme(scheme))
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	cs := kubernetes.NewForConfigOrDie(cfg)

	// Two namespaces with a scan each. RBAC: team-a's scans to the user
	// oidc:alice@example.org, team-b's to the group oidc:team-b; names as
	// kube-apiserver would map them with the same --oidc-* settings.
	for _, ns := range []string{"team-a", "team-b"} {
		mustCreate(t, c, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
		mustCreate(t, c, &cwacv1alpha1.CwacScan{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "scan-of-" + ns},
			Spec: cwacv1alpha1.CwacScanSpec{URLs: []string{"https://" + ns + ".example.org/"}}})
		mustCreate(t, c, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "cwac-reader"},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{cwacv1alpha1.GroupVersion.Group}, Resources: []string{"cwacscans"}, Verbs: []string{"get", "list"}}}})
	}
	bind := func(ns string, subject rbacv1.Subject) {
		mustCreate(t, c, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "readers"},
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "cwac-reader"}, Subjects: []rbacv1.Subject{subject}})
	}
	bind("team-a", rbacv1.Subject{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "oidc:alice@example.org"})
	bind("team-b", rbacv1.Subject{APIGroup: rbacv1.GroupName, Kind: rbacv1.GroupKind, Name: "oidc:team-b"})

	// The dashboard's address is known before the provider registers it.
	srv := httptest.NewUnstartedServer(nil)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	redirect := srv.URL + "/oauth2/callback"
	idp := startProvider(t, redirect, []devoidc.User{
		{Email: "alice@example.org", Groups: []string{"staff"}},
		{Email: "bob@example.org", Groups: []string{"team-b"}},
		{Email: "carol@example.org"},
		{Email: "eve@example.org", Unverified: true, Groups: []string{"team-b"}},
	})

	dir := t.TempDir()
	keyFile := filepath.Join(dir, "session-key")
	secretFile := filepath.Join(dir, "client-secret")
	writeFile(t, keyFile, strings.Repeat("0123456789abcdef", 4)+"\n")
	writeFile(t, secretFile, providerClientSecret+"\n")
	flags := dashboardFlags{enabled: true, signIn: signInFlags{
		issuer: idp.URL, clientID: providerClientID, clientSecretFile: secretFile, redirectURL: redirect,
		scopes: "openid,email,groups", usernameClaim: "email", usernamePrefix: "oidc:", groupsClaim: "groups", groupsPrefix: "oidc:",
		sessionKeyFile: keyFile, sessionTTL: time.Hour, publicNamespaces: "team-a",
	}}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	k := &mcpserver.KubernetesAuth{Clientset: cs}
	root := t.TempDir()
	// The binary's start-up path builds it from these flags.
	if _, err := newDashboard(flags, dashboardDeps{auth: k, clientset: cs, client: c, namespace: "team-a", resultsRoot: root, log: log}); err != nil {
		t.Fatalf("newDashboard: %v", err)
	}
	// The same sign-in, serving both namespaces.
	signIn, err := flags.signIn.build()
	if err != nil {
		t.Fatal(err)
	}
	h, err := dashboard.New(dashboard.Options{Store: store.NewHandle(storetest.OpenSQLite(t)), Access: dashboardAccess{auth: k, clientset: cs},
		Namespaces: []string{"team-a", "team-b"}, Scans: dashboardScans{client: c, open: mcpserver.OpenScanResults(root, nil)},
		SignIn: signIn, PublicNamespaces: []string{"team-a"}, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	msrv, err := mcpserver.New(mcpserver.Config{Client: c, Clientset: cs, Namespace: "team-a", ResultsRoot: root, Log: log, Authorizer: k})
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = msrv.Handler(mcpserver.HTTPOptions{Auth: k, Dashboard: withTimeout(h)})
	return &signInFixture{srv: srv, idp: idp, keyFile: keyFile, client: c, cs: cs, auth: k}
}

// signInAndRBAC: users sign in and read what RBAC gives their mapped
// user and groups; alice's browser is returned signed in.
func (f *signInFixture) signInAndRBAC(t *testing.T) *browser {
	srv, idp := f.srv, f.idp
	// Alice signs in from a page and comes back to it, seeing team-a only.
	alice := newBrowser(srv)
	idp.signInAs("alice@example.org")
	res, body := alice.get(t, srv.URL+"/scans")
	if res.StatusCode != http.StatusOK || res.Request.URL.Path != "/scans" {
		t.Fatalf("alice after sign-in: %d at %s\n%s", res.StatusCode, res.Request.URL, body)
	}
	if !strings.Contains(body, "oidc:alice@example.org") || !strings.Contains(body, "scan-of-team-a") || strings.Contains(body, "scan-of-team-b") {
		t.Errorf("alice sees the wrong scans:\n%s", body)
	}
	if len(alice.jar.Cookies(mustURL(t, srv.URL))) != 1 {
		t.Errorf("cookies after sign-in: %v (want the session alone: the round trip's is deleted)", alice.jar.Cookies(mustURL(t, srv.URL)))
	}

	// Bob, by hand: the session cookie's attributes, and nothing of the
	// ID token or the claims readable in it.
	bob := newBrowser(srv)
	idp.signInAs("bob@example.org")
	callback := bob.toCallback(t, srv.URL+"/sign-in?next=/scans")
	res, _ = bob.getNoFollow(t, callback.String())
	setCookie := strings.Join(res.Header.Values("Set-Cookie"), "\n")
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/scans" {
		t.Fatalf("callback: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	for _, want := range []string{"__Host-cwac-session=", "Path=/", "Max-Age=3600", "HttpOnly", "Secure", "SameSite=Lax",
		"__Host-cwac-signin=; Path=/; Max-Age=0"} {
		if !strings.Contains(setCookie, want) {
			t.Errorf("Set-Cookie lacks %q:\n%s", want, setCookie)
		}
	}
	session := cookieNamed(res, websession.SessionCookie)
	if session == nil || strings.Contains(setCookie, "Domain=") {
		t.Fatalf("session cookie %v", session)
	}
	// A JWT's header always encodes as `eyJhbGci` ({"alg"); the email in
	// the clear or base64-encoded at any alignment. Short words ("bob",
	// "eyJ") turn up in random ciphertext by chance, so are not looked for.
	for _, secret := range []string{"bob@example.org", `{"alg"`} {
		if readableIn(session.Value, secret) {
			t.Fatalf("session cookie shows %q: %v", secret, session)
		}
	}
	_, body = bob.get(t, srv.URL+"/scans")
	if !strings.Contains(body, "scan-of-team-b") || strings.Contains(body, "scan-of-team-a") {
		t.Errorf("bob (group oidc:team-b) sees the wrong scans:\n%s", body)
	}
	// The same callback again: its round trip was used.
	if res, body := bob.getNoFollow(t, callback.String()); res.StatusCode != http.StatusBadRequest || !strings.Contains(body, "did not start") {
		t.Errorf("callback replayed: %d", res.StatusCode)
	}

	// Carol has no RBAC: signed in, but nothing to read (403). Eve's email
	// is not verified: refused as kube-apiserver would.
	carol := newBrowser(srv)
	idp.signInAs("carol@example.org")
	if res, _ := carol.get(t, srv.URL+"/scans"); res.StatusCode != http.StatusForbidden {
		t.Errorf("carol: %d", res.StatusCode)
	}
	eve := newBrowser(srv)
	idp.signInAs("eve@example.org")
	if res, body := eve.get(t, srv.URL+"/scans"); res.StatusCode != http.StatusForbidden || !strings.Contains(body, "not verified") {
		t.Errorf("eve: %d\n%s", res.StatusCode, body)
	}

	return alice
}

// roundTripRefusals: the provider's answer with another state is
// refused, and the round trip is spent.
func (f *signInFixture) roundTripRefusals(t *testing.T) {
	srv, idp := f.srv, f.idp
	mallory := newBrowser(srv)
	idp.signInAs("alice@example.org")
	cb := mallory.toCallback(t, srv.URL+"/sign-in")
	q := cb.Query()
	state := q.Get("state")
	q.Set("state", strings.Repeat("x", len(state)))
	wrong := *cb
	wrong.RawQuery = q.Encode()
	if res, body := mallory.getNoFollow(t, wrong.String()); res.StatusCode != http.StatusBadRequest || !strings.Contains(body, "does not belong") {
		t.Errorf("wrong state: %d", res.StatusCode)
	}
	if res, _ := mallory.getNoFollow(t, cb.String()); res.StatusCode != http.StatusBadRequest || cookieNamed(res, websession.SessionCookie) != nil {
		t.Errorf("the right state after a wrong one: %d", res.StatusCode)
	}

}

// cookieRefusals: a tampered or expired session cookie is refused (sent
// to sign in, the cookie deleted); a bearer token is tried before the
// cookie.
func (f *signInFixture) cookieRefusals(t *testing.T, alice *browser) {
	srv := f.srv
	good := alice.jar.Cookies(mustURL(t, srv.URL))[0]
	tampered := *good
	tampered.Value = flip(good.Value)
	sealer := mustSealer(t, f.keyFile)
	old, _ := websession.NewSession("oidc:alice@example.org", nil, time.Now().Add(-2*time.Hour), time.Hour)
	expired, _ := sealer.SealSession(old)
	for name, v := range map[string]string{"tampered": tampered.Value, "expired": expired} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/scans", nil)
		req.AddCookie(&http.Cookie{Name: websession.SessionCookie, Value: v})
		res := newBrowser(srv).doNoFollow(t, req)
		deleted := strings.Contains(strings.Join(res.Header.Values("Set-Cookie"), ""), "Max-Age=0")
		if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/sign-in?next=") || !deleted {
			t.Errorf("%s cookie: %d %q", name, res.StatusCode, res.Header.Get("Location"))
		}
	}
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/scans", nil)
	req.AddCookie(good)
	req.Header.Set("Authorization", "Bearer not-a-token")
	if res := newBrowser(srv).doNoFollow(t, req); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("a bad bearer token with a good cookie: %d", res.StatusCode)
	}

}

// publicMode: team-a's leaderboard and exports without signing in; other
// pages ask to sign in.
func (f *signInFixture) publicMode(t *testing.T) {
	srv := f.srv
	anon := newBrowser(srv)
	if res, body := anon.getNoFollow(t, srv.URL+"/"); res.StatusCode != http.StatusOK || !strings.Contains(body, `href="/sign-in"`) {
		t.Errorf("public leaderboard: %d", res.StatusCode)
	}
	if res, _ := anon.getNoFollow(t, srv.URL+"/export/leaderboard.csv"); res.StatusCode != http.StatusOK {
		t.Errorf("public export: %d", res.StatusCode)
	}
	if res, _ := anon.getNoFollow(t, srv.URL+"/scans"); res.StatusCode != http.StatusSeeOther {
		t.Errorf("a private page without sign-in: %d", res.StatusCode)
	}

}

// signOut: refused without the session's CSRF token or from another
// site; with the page's form it ends the session.
func (f *signInFixture) signOut(t *testing.T, alice *browser) {
	srv := f.srv
	_, body := alice.get(t, srv.URL+"/scans")
	m := regexp.MustCompile(`name="csrf" value="([A-Za-z0-9_-]+)"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no sign-out form on alice's page:\n%s", body)
	}
	for name, tc := range map[string]struct {
		form   url.Values
		origin string
	}{
		"no token":     {url.Values{}, srv.URL},
		"wrong token":  {url.Values{"csrf": {flip(m[1])}}, srv.URL},
		"another site": {url.Values{"csrf": {m[1]}}, "https://evil.example"},
	} {
		if res := alice.post(t, srv.URL+"/sign-out", tc.form, tc.origin); res.StatusCode != http.StatusForbidden {
			t.Errorf("sign-out, %s: %d", name, res.StatusCode)
		}
	}
	if res, _ := alice.getNoFollow(t, srv.URL+"/scans"); res.StatusCode != http.StatusOK {
		t.Fatalf("alice signed out by a refused sign-out: %d", res.StatusCode)
	}
	res := alice.post(t, srv.URL+"/sign-out", url.Values{"csrf": {m[1]}}, srv.URL)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/signed-out" {
		t.Fatalf("sign-out: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	if res, _ := alice.getNoFollow(t, srv.URL+"/scans"); res.StatusCode != http.StatusSeeOther {
		t.Errorf("after sign-out: %d", res.StatusCode)
	}
}

// browser is an HTTP client with a cookie jar, trusting the dashboard's
// test certificate.
type browser struct {
	*http.Client
	jar *cookiejar.Jar
}

func newBrowser(srv *httptest.Server) *browser {
	jar, _ := cookiejar.New(nil)
	c := *srv.Client()
	c.Jar = jar
	c.Timeout = 30 * time.Second
	return &browser{Client: &c, jar: jar}
}

func (b *browser) get(t *testing.T, u string) (*http.Response, string) {
	t.Helper()
	res, err := b.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = res.Body.Close() }()
	body, _ := io.ReadAll(res.Body)
	return res, string(body)
}

func (b *browser) doNoFollow(t *testing.T, req *http.Request) *http.Response {
	t.Helper()
	c := *b.Client
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func (b *browser) getNoFollow(t *testing.T, u string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	res := b.doNoFollow(t, req)
	defer func() { _ = res.Body.Close() }()
	body, _ := io.ReadAll(res.Body)
	return res, string(body)
}

func (b *browser) post(t *testing.T, u string, form url.Values, origin string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", origin)
	res := b.doNoFollow(t, req)
	_ = res.Body.Close()
	return res
}

// toCallback follows a sign-in through the provider up to the redirect
// back to the dashboard, and returns that URL unvisited.
func (b *browser) toCallback(t *testing.T, start string) *url.URL {
	t.Helper()
	next := start
	for range 10 {
		res, _ := b.getNoFollow(t, next)
		loc, err := res.Location()
		if err != nil {
			t.Fatalf("%s: %d without a redirect", next, res.StatusCode)
		}
		if loc.Path == "/oauth2/callback" {
			return loc
		}
		next = loc.String()
	}
	t.Fatal("no redirect back to the dashboard")
	return nil
}

func cookieNamed(res *http.Response, name string) *http.Cookie {
	for _, c := range res.Cookies() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// flip changes one character in the middle of a base64url value.
func flip(v string) string {
	i := len(v) / 2
	r := byte('A')
	if v[i] == 'A' {
		r = 'B'
	}
	return v[:i] + string(r) + v[i+1:]
}

func mustSealer(t *testing.T, keyFile string) *websession.Sealer {
	t.Helper()
	data, _ := os.ReadFile(keyFile)
	keys, err := websession.ParseKeyFile(data)
	if err != nil {
		t.Fatal(err)
	}
	s, err := websession.NewSealer(keys...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func mustCreate(t *testing.T, c client.Client, obj client.Object) {
	t.Helper()
	if err := c.Create(context.Background(), obj); err != nil {
		t.Fatalf("creating %T %s: %v", obj, obj.GetName(), err)
	}
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

// startEnvtest starts a Kubernetes API server (with RBAC) for the test.
func startEnvtest(t *testing.T) *rest.Config {
	t.Helper()
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		assets = filepath.Join("..", "..", "bin", "k8s", "1.37.1-linux-amd64")
	}
	if _, err := os.Stat(filepath.Join(assets, "kube-apiserver")); err != nil {
		t.Fatalf("envtest binaries not found in %s: run 'make envtest-assets' (or set KUBEBUILDER_ASSETS)", assets)
	}
	env := &envtest.Environment{CRDDirectoryPaths: []string{filepath.Join("..", "..", "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true, BinaryAssetsDirectory: assets}
	cfg, err := env.Start()
	if err != nil {
		t.Fatalf("starting envtest: %v", err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil && !errors.Is(err, context.Canceled) {
			t.Logf("stopping envtest: %v", err)
		}
	})
	return cfg
}

// readableIn reports whether secret can be read from a cookie value: in
// the clear, or base64-encoded (standard or URL alphabet) starting at any
// of the three byte alignments. Where the secret does not start or end on
// a character's boundary, that character also holds neighbouring bits, so
// only the characters made of the secret's bits alone are looked for;
// secrets are long enough that chance matches are negligible.
func readableIn(value, secret string) bool {
	if strings.Contains(value, secret) {
		return true
	}
	for pad := 0; pad < 3; pad++ {
		padded := strings.Repeat("\x00", pad) + secret
		first, end := (8*pad+5)/6, 8*len(padded)/6
		for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
			if strings.Contains(value, enc.EncodeToString([]byte(padded))[first:end]) {
				return true
			}
		}
	}
	return false
}

func TestReadableIn(t *testing.T) {
	const secret = "bob@example.org"
	for _, tc := range []struct {
		name, value string
		want        bool
	}{
		{"clear", "x" + secret + "y", true},
		{"aligned", base64.RawURLEncoding.EncodeToString([]byte(secret + "tail")), true},
		{"one byte in", base64.RawURLEncoding.EncodeToString([]byte("a" + secret + "tail")), true},
		{"two bytes in", base64.StdEncoding.EncodeToString([]byte("ab" + secret)), true},
		{"other bytes", base64.RawURLEncoding.EncodeToString([]byte("ab" + "alice@example.org")), false},
		{"short words by chance", "AWq8ssZmbobcazyQeyJ", false},
	} {
		if got := readableIn(tc.value, secret); got != tc.want {
			t.Errorf("%s: readableIn(%q) = %v, want %v", tc.name, tc.value, got, tc.want)
		}
	}
}
