//go:build integration

package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/a11y-dev/cwac-operator/internal/dashboard"
	"github.com/a11y-dev/cwac-operator/internal/mcpserver"
	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
	"github.com/a11y-dev/cwac-operator/internal/testutil/axe"
	"github.com/a11y-dev/cwac-operator/internal/testutil/devoidc"
	"github.com/a11y-dev/cwac-operator/internal/websession"
)

// inChromium is a person's sign-in in headless Chromium, all on
// 127.0.0.1 and over plain http as on the local cluster of make run: the
// dashboard sends the browser to the development provider, whose login
// page passes axe-core and refuses a wrong password on the page; the
// right one brings the browser back to / signed in, holding a __Host-
// session cookie that no script can read; signing out ends the session.
// Screenshots at 320 and 1280 px go to bin/screenshots/signin/
// (SIGNIN_SCREENSHOTS overrides).
func (f *signInFixture) inChromium(t *testing.T) {
	chromium, axeScript := axe.Require(t)
	shots := os.Getenv("SIGNIN_SCREENSHOTS")
	if shots == "" {
		shots = filepath.Join("..", "..", "bin", "screenshots", "signin")
	}
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(nil)
	srv.Start()
	t.Cleanup(srv.Close)
	idp := startProvider(t, srv.URL+"/oauth2/callback", []devoidc.User{{Email: "alice@example.org", Groups: []string{"staff"}}})
	f.serveDashboard(t, srv, idp)

	ctx := axe.Browser(t, chromium)
	ctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	do := func(steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatal(err)
		}
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(sel))
		if err != nil {
			t.Fatalf("%s: %v", sel, err)
		}
		return strings.TrimSpace(s)
	}

	// To the provider's login page, which passes axe-core at both widths.
	do(chromedp.EmulateViewport(1280, 900), chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible("#email"))
	if loc := location(ctx, t); !strings.HasPrefix(loc, idp.URL+"/login?authRequestID=") {
		t.Fatalf("the dashboard sent the browser to %s, not the provider's login page", loc)
	}
	shoot(ctx, t, filepath.Join(shots, "provider-login"))
	checkAxe(ctx, t, axeScript)
	tabThroughLogin(ctx, t)

	// A wrong password: refused on the page, which still passes axe-core.
	do(chromedp.SendKeys("#email", "alice@example.org"), chromedp.SendKeys("#password", "not-the-password"),
		chromedp.Click(`button[type="submit"]`), chromedp.WaitVisible("#error"))
	if msg := text("#error"); !strings.Contains(msg, "wrong") {
		t.Errorf("after a wrong password the page says %q", msg)
	}
	checkAxe(ctx, t, axeScript)

	// The right one: back on the organisations page, signed in.
	do(chromedp.SendKeys("#password", idp.Password), chromedp.Click(`button[type="submit"]`), chromedp.WaitVisible("form.who"))
	if loc := location(ctx, t); loc != srv.URL+"/" {
		t.Errorf("signed in at %s, want %s/", loc, srv.URL)
	}
	if h1, who := text("h1"), text("form.who .name"); !strings.Contains(h1, "Organisations") || who != "oidc:alice@example.org" {
		t.Errorf("after sign-in: h1 %q, signed in as %q", h1, who)
	}
	shoot(ctx, t, filepath.Join(shots, "dashboard-signed-in"))
	session := cookieOf(ctx, t, srv.URL, websession.SessionCookie)
	if session == nil || !strings.HasPrefix(session.Name, "__Host-") || !session.HTTPOnly || !session.Secure ||
		session.Path != "/" || session.SameSite != network.CookieSameSiteLax {
		t.Errorf("session cookie %+v: want __Host-, HttpOnly, Secure, Path=/, SameSite=Lax", session)
	}
	if js, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.cookie`)); err != nil || js != "" {
		t.Errorf("a script reads the cookies %q (%v)", js, err)
	}

	// Signing out: the signed-out page, no session cookie, and the
	// dashboard asks to sign in again. The wait is for the signed-out page's
	// own link: the page signed out of has an h1 too, so waiting for one
	// could end before the form's navigation did.
	do(chromedp.Click(`form.who button[type="submit"]`), chromedp.WaitVisible(`a[href="/sign-in"]`))
	if loc := location(ctx, t); loc != srv.URL+"/signed-out" {
		t.Errorf("after sign-out at %s", loc)
	}
	if c := cookieOf(ctx, t, srv.URL, websession.SessionCookie); c != nil {
		t.Errorf("the session cookie outlived sign-out: %+v", c)
	}
	do(chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible("#email"))
	if loc := location(ctx, t); !strings.HasPrefix(loc, idp.URL+"/login?") {
		t.Errorf("after sign-out / went to %s, not to sign in", loc)
	}
}

// serveDashboard serves, on srv, the dashboard (team-a) behind the MCP
// server's HTTP front, signing in with idp as the binary's flags would
// configure it.
func (f *signInFixture) serveDashboard(t *testing.T, srv *httptest.Server, idp *testProvider) {
	t.Helper()
	dir := t.TempDir()
	keyFile, secretFile := filepath.Join(dir, "session-key"), filepath.Join(dir, "client-secret")
	writeFile(t, keyFile, strings.Repeat("fedcba9876543210", 4)+"\n")
	writeFile(t, secretFile, providerClientSecret+"\n")
	flags := signInFlags{issuer: idp.URL, clientID: providerClientID, clientSecretFile: secretFile, redirectURL: srv.URL + "/oauth2/callback",
		scopes: "openid,email,groups", usernameClaim: "email", usernamePrefix: "oidc:", groupsClaim: "groups", groupsPrefix: "oidc:",
		sessionKeyFile: keyFile, sessionTTL: time.Hour}
	signIn, err := flags.build()
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	root := t.TempDir()
	h, err := dashboard.New(dashboard.Options{Store: store.NewHandle(storetest.OpenSQLite(t)), Access: dashboardAccess{auth: f.auth, clientset: f.cs},
		Namespaces: []string{"team-a"}, Scans: dashboardScans{client: f.client, open: mcpserver.OpenScanResults(root, nil)},
		SignIn: signIn, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	msrv, err := mcpserver.New(mcpserver.Config{Client: f.client, Clientset: f.cs, Namespace: "team-a", ResultsRoot: root, Log: log, Authorizer: f.auth})
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = msrv.Handler(mcpserver.HTTPOptions{Auth: f.auth, Dashboard: withTimeout(h)})
}

// tabThroughLogin presses Tab from the top of the login page: email,
// password and the button take focus in that order, each with a visible
// outline.
func tabThroughLogin(ctx context.Context, t *testing.T) {
	t.Helper()
	got := make([]string, 0, 3)
	for range 3 {
		state, err := chromedp.Run(ctx, func(ctx context.Context, tg *chromedp.Target) (string, error) {
			if _, err := chromedp.KeyEvent(kb.Tab)(ctx, tg); err != nil {
				return "", err
			}
			return chromedp.Evaluate[string](`(() => { const e = document.activeElement, s = getComputedStyle(e);
				return (e.id || e.tagName.toLowerCase()) + (s.outlineStyle !== "none" && parseFloat(s.outlineWidth) >= 2 ? "" : ":no-visible-focus"); })()`)(ctx, tg)
		})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, state)
	}
	if strings.Join(got, " ") != "email password button" {
		t.Errorf("Tab focused %v, want email, password, button, each with a visible outline", got)
	}
}

func location(ctx context.Context, t *testing.T) string {
	t.Helper()
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// checkAxe runs axe-core on the page at 320 and 1280 px, and checks it
// reflows at 320.
func checkAxe(ctx context.Context, t *testing.T, script []byte) {
	t.Helper()
	if err := axe.Inject(ctx, script); err != nil {
		t.Fatal(err)
	}
	for _, width := range []int64{320, 1280} {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, 900)); err != nil {
			t.Fatal(err)
		}
		if sw, err := chromedp.Run(ctx, chromedp.Evaluate[int64](`document.documentElement.scrollWidth`)); err != nil || sw > width {
			t.Errorf("at %d px the page is %d px wide (%v)", width, sw, err)
		}
		axe.Check(ctx, t, width)
	}
}

// shoot writes screenshots of the viewport at 320 and 1280 px.
func shoot(ctx context.Context, t *testing.T, prefix string) {
	t.Helper()
	for _, width := range []int64{320, 1280} {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, 900)); err != nil {
			t.Fatal(err)
		}
		png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(fmt.Sprintf("%s-%d.png", prefix, width), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// cookieOf is the browser's cookie of that name for u, or nil.
func cookieOf(ctx context.Context, t *testing.T, u, name string) *network.Cookie {
	t.Helper()
	cookies, err := chromedp.Run(ctx, func(ctx context.Context, tg *chromedp.Target) ([]*network.Cookie, error) {
		res, err := cdp.Call(ctx, tg, network.GetCookies, network.GetCookiesParams{URLs: []string{u}})
		return res.Cookies, err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cookies {
		if c.Name == name {
			return c
		}
	}
	return nil
}
