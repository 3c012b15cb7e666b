//go:build integration

package dashboard

import (
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/testutil/axe"
)

// The dashboard in real headless Chromium: on every page axe-core (the
// project's pinned npm copy, hack/npm-deps.sh) finds no violation at 320
// and 1280 CSS pixels, the page reflows at 320, its style sheet is applied
// under its own Content-Security-Policy, it loads nothing but itself and
// its style sheet, and Tab alone reaches every link and control in DOM
// order with a visible focus. Screenshots at 320 and 1280 pixels go to
// bin/screenshots/dashboard (DASHBOARD_SCREENSHOTS overrides).

func TestDashboardInBrowser(t *testing.T) {
	chromium, axeScript := axe.Require(t)
	shots := os.Getenv("DASHBOARD_SCREENSHOTS")
	if shots == "" {
		shots = filepath.Join("..", "..", "bin", "screenshots", "dashboard")
	}
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	alphaOwners := []cwacv1alpha1.Owner{{Email: "web@alpha.example"}, {Group: "alpha-web"}, {Email: "news@alpha.example", Pages: "https://alpha.example/news"}}
	owned := fixedOwners{of: map[string][]cwacv1alpha1.Owner{orgAlpha: alphaOwners}}
	h, st := newTestHandler(t, Options{Scans: testScans(t), Access: grantAccess(), Owners: owned})
	ch, err := st.OrganisationLatestChanges(context.Background(), testNS, orgAlpha, 5)
	if err != nil || len(ch.Fixed) == 0 {
		t.Fatalf("latest changes: %+v %v", ch, err)
	}
	open, err := st.IssueHistory(context.Background(), store.IssueFilter{Namespaces: []string{testNS}, Organisation: orgBeta, State: store.StateOpen, Limit: 1})
	if err != nil || len(open.Issues) == 0 {
		t.Fatal(err)
	}
	base := serve(t, h)
	// An organisation of 53 scans: the page shows the newest 52 and links
	// the full series.
	capped, err := New(Options{Access: defaultAccess, Namespaces: []string{testNS}, Store: store.NewHandle(capStore(t, 53))})
	if err != nil {
		t.Fatal(err)
	}
	cappedBase := serve(t, capped)

	pages := []struct{ name, path, user string }{
		{"organisations", "/", ""},
		{"organisations-page-2", "/?per_page=2&page=2", ""},
		{"organisation", OrganisationPath(testNS, orgAlpha), ""},
		{"organisation-unranked", OrganisationPath(testNS, orgDelta), ""},
		{"issue-fixed", "/issues/cwac/" + ch.Fixed[0].Fingerprint, ""},
		{"issue-open", "/issues/cwac/" + open.Issues[0].Fingerprint, ""},
		{"scans", "/scans", ""},
		{"scans-paged", "/scans?per_page=2&page=2", ""},
		{"scans-invalid", "/scans?phase=Done", ""},
		{"scan", "/scans/cwac/weekly-2", ""},
		{"scan-paged", "/scans/cwac/weekly-2?per_page=2", ""},
		{"scan-failed", "/scans/cwac/broken", ""},
		{"not-found", OrganisationPath(testNS, "Nobody Ltd"), ""},
		// A viewer by organisation grant: the other places of their
		// sector without names, and the scans refused.
		{"organisations-by-grant", "/", "alpha-web"},
		{"organisations-overall-by-grant", "/?rank=overall", "alpha-web"},
		{"scans-by-grant", "/scans", "alpha-web"},
	}
	ctx := axe.Browser(t, chromium)
	for _, p := range pages {
		t.Run(p.name, func(t *testing.T) {
			user := p.user
			if user == "" {
				user = "both"
			}
			checkPage(ctx, t, base, p.path, user, axeScript, filepath.Join(shots, p.name))
		})
	}
	t.Run("organisation-capped", func(t *testing.T) {
		checkPage(ctx, t, cappedBase, OrganisationPath(testNS, orgAlpha), "both", axeScript, filepath.Join(shots, "organisation-capped"))
	})
	t.Logf("screenshots in %s", shots)
}

// serve serves a handler on a local port until the test ends.
func serve(t *testing.T, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String()
}

// checkPage loads one page in a tab of its own, signed in as user (a
// bearer token on every request), and checks it.
func checkPage(browserCtx context.Context, t *testing.T, base, path, user string, axeScript []byte, shot string) {
	var mu sync.Mutex
	var requested []string
	ctx, cancel := chromedp.NewContext(browserCtx, chromedp.WithListener(func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok && e.Request != nil {
			mu.Lock()
			requested = append(requested, e.Request.URL)
			mu.Unlock()
		}
	}))
	defer cancel()
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	defer cancelTimeout()
	signIn := chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		if _, err := cdp.Call(ctx, tg, network.Enable, network.EnableParams{}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, tg, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{Headers: network.Headers{"Authorization": "Bearer " + user}})
		return err
	})
	if err := chromedp.Do(ctx, signIn, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(base+path)); err != nil {
		t.Fatal(err)
	}
	if bg := evaluate[string](ctx, t, `getComputedStyle(document.querySelector("header.top")).backgroundColor`); bg != "rgb(20, 33, 61)" {
		t.Errorf("the style sheet was not applied (header background %q)", bg)
	}
	if n := evaluate[int](ctx, t, `document.querySelectorAll("h1").length`); n != 1 {
		t.Errorf("%d h1 elements", n)
	}
	screenshot(ctx, t, 1280, shot+"-1280.png")
	screenshot(ctx, t, 320, shot+"-320.png")
	if err := axe.Inject(ctx, axeScript); err != nil {
		t.Fatal(err)
	}
	for _, width := range []int64{320, 1280} {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, 900)); err != nil {
			t.Fatal(err)
		}
		if sw := evaluate[int64](ctx, t, `document.documentElement.scrollWidth`); sw > width {
			t.Errorf("at %d px the page is %d px wide: it does not reflow", width, sw)
		}
		axe.Check(ctx, t, width)
	}
	keyboard(ctx, t)
	mu.Lock()
	defer mu.Unlock()
	for _, u := range requested {
		// A data: URL is no request (Chromium draws a date field's calendar
		// button with one, from its own style sheet).
		if u != base+path && u != base+"/static/dashboard.css" && u != base+"/static/favicon.svg" && !strings.HasPrefix(u, "data:") {
			t.Errorf("the page loaded %s", u)
		}
	}
}

// keyboard presses Tab through the page at 1280 px and checks that focus
// visits every focusable element in DOM order, each with a visible focus
// indicator (an outline or a box shadow), then leaves the page.
func keyboard(ctx context.Context, t *testing.T) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatal(err)
	}
	want := evaluate[[]string](ctx, t, `(() => {
		// A group of radio buttons is one Tab stop: its checked button, or
		// its first when none is checked (arrow keys move within it).
		const tabStop = e => {
			if (e.type !== "radio") return true;
			const group = [...e.form.querySelectorAll('input[type="radio"]')].filter(r => r.name === e.name);
			return e.checked || (!group.some(r => r.checked) && group[0] === e);
		};
		window.__focusables = [...document.querySelectorAll('a[href], button, input, select, textarea, summary, [tabindex]:not([tabindex="-1"])')]
			.filter(e => !e.disabled && e.getClientRects().length > 0 && tabStop(e));
		return window.__focusables.map((e, i) => i + ":" + e.tagName.toLowerCase() + ":" + (e.id || e.getAttribute("href") || ""));
	})()`)
	if len(want) == 0 {
		t.Fatal("no focusable element on the page")
	}
	var got []string
	// A date field takes a Tab press for each of its parts (month, day,
	// year) before focus leaves it: presses that stay on it count once.
	for presses := 0; len(got) <= len(want) && presses < 3*len(want)+3; presses++ {
		if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Tab)); err != nil {
			t.Fatal(err)
		}
		state := evaluate[string](ctx, t, `(() => {
			const e = document.activeElement;
			const i = window.__focusables.indexOf(e);
			if (i < 0) return "outside:" + (e ? e.tagName.toLowerCase() : "none");
			const s = getComputedStyle(e);
			const visible = (s.outlineStyle !== "none" && parseFloat(s.outlineWidth) >= 2) || s.boxShadow !== "none";
			const r = e.getBoundingClientRect();
			const shown = r.width > 0 && r.height > 0 && r.bottom > 0 && r.top < window.innerHeight;
			const name = i + ":" + e.tagName.toLowerCase() + ":" + (e.id || e.getAttribute("href") || "");
			return name + (visible ? "" : ":no-visible-focus") + (shown ? "" : ":off-screen");
		})()`)
		if n := len(got); n > 0 && got[n-1] == state && strings.Contains(state, ":input:") &&
			evaluate[string](ctx, t, `document.activeElement.type`) == "date" {
			continue
		}
		got = append(got, state)
	}
	for i, w := range want {
		if i >= len(got) || got[i] != w {
			g := "nothing"
			if i < len(got) {
				g = got[i]
			}
			t.Errorf("Tab press %d focused %s, want %s", i+1, g, w)
			return
		}
	}
	if last := got[len(want)]; !strings.HasPrefix(last, "outside:") && !strings.HasPrefix(last, "0:") {
		t.Errorf("after the last element, Tab focused %s", last)
	}
}

func evaluate[T any](ctx context.Context, t *testing.T, js string, opts ...chromedp.EvaluateOption) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js, opts...))
	if err != nil {
		t.Fatalf("evaluating %.80s: %v", js, err)
	}
	return v
}

// screenshot captures the whole page (at most 6,000 pixels of it).
func screenshot(ctx context.Context, t *testing.T, width int64, path string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, 900)); err != nil {
		t.Fatal(err)
	}
	height := min(evaluate[int64](ctx, t, `document.documentElement.scrollHeight`), 6000)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, height)); err != nil {
		t.Fatal(err)
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
}
