//go:build integration

package digest

import (
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/a11y-dev/cwac-operator/internal/testutil/axe"
)

// TestDigestInBrowser: a digest's HTML part, made from the real CWAC run
// recorded twice and from a hand-made digest with hostile text, passes
// axe-core in headless Chromium at 320 and 1280 CSS pixels and reflows at
// 320 (an email client shows it as a page). DIGEST_SCREENSHOTS=dir keeps
// screenshots for people to look at.
func TestDigestInBrowser(t *testing.T) {
	chromium, script := axe.Require(t)
	shots := os.Getenv("DIGEST_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	st := weeklyStore(t)
	o, err := Gather(context.Background(), st, ns, org, Period{From: week0.AddDate(0, 0, 7), To: week0.AddDate(0, 0, 14)}, "http://127.0.0.1:9", nil)
	if err != nil {
		t.Fatal(err)
	}
	pages := map[string]Digest{
		"real":   {Period: Period{From: week0.AddDate(0, 0, 7), To: week0.AddDate(0, 0, 14)}, Organisations: []Organisation{o}},
		"sample": sampleDigest(),
	}
	mux := http.NewServeMux()
	for name, d := range pages {
		m, err := Render(d)
		if err != nil {
			t.Fatal(err)
		}
		mux.HandleFunc("/"+name, func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write([]byte(m.HTML))
		})
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })

	browser := axe.Browser(t, chromium)
	for name := range pages {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := chromedp.NewContext(browser)
			defer cancel()
			ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute) // a guard against a hung browser, not a time limit
			defer cancelTimeout()
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate("http://"+ln.Addr().String()+"/"+name)); err != nil {
				t.Fatal(err)
			}
			if err := axe.Inject(ctx, script); err != nil {
				t.Fatal(err)
			}
			for _, width := range []int64{320, 1280} {
				if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, 900)); err != nil {
					t.Fatal(err)
				}
				scrollWidth, err := chromedp.Run(ctx, chromedp.Evaluate[int64](`document.documentElement.scrollWidth`))
				if err != nil {
					t.Fatal(err)
				}
				height, err := chromedp.Run(ctx, chromedp.Evaluate[int64](`document.documentElement.scrollHeight`))
				if err != nil {
					t.Fatal(err)
				}
				if scrollWidth > width {
					t.Errorf("at %d px the digest is %d px wide: it does not reflow", width, scrollWidth)
				}
				axe.Check(ctx, t, width)
				if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, min(height, 4000))); err != nil {
					t.Fatal(err)
				}
				png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(shots, name+"-"+itoa(width)+".png"), png, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
