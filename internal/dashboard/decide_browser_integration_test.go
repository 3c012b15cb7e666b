//go:build integration

package dashboard

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/testutil/axe"
)

// sessionAccess is testAccess whose principals are signed in with a
// session, as after a sign-in with the provider: the bearer token the
// browser test sends names the user, who has a CSRF token of their own.
type sessionAccess struct{ testAccess }

func (a sessionAccess) Identify(r *http.Request) (Principal, error) {
	p, err := a.testAccess.Identify(r)
	if err == nil {
		p.Subject, p.SignOutToken = SessionUser{User: p.Name, Groups: []string{"team"}}, "csrf-token-of-"+p.Name+"-0123456789abcdefgh"
	}
	return p, err
}

// TestDecideInBrowser: a person makes a decision on the issue page with
// the keyboard alone (Tab, arrow keys, typing, Enter; no click), is
// refused first for a missing review date (the error shown beside the
// field, the form keeping what was entered), then records it and is back
// on the issue page with the decision announced and listed; axe-core
// finds no violation on the page before, on the refusal and after, and
// every page passes checkPage's checks (reflow, Tab order, focus).
func TestDecideInBrowser(t *testing.T) {
	chromium, axeScript := axe.Require(t)
	shots := os.Getenv("DASHBOARD_SCREENSHOTS")
	if shots == "" {
		shots = filepath.Join("..", "..", "bin", "screenshots", "dashboard")
	}
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	decisions := &fakeDecisions{deciders: map[string]bool{"both": true}}
	h, st := newTestHandler(t, Options{Access: sessionAccess{defaultAccess}, Decisions: decisions})
	open, err := st.IssueHistory(context.Background(), store.IssueFilter{Namespaces: []string{testNS}, Organisation: orgAlpha, State: store.StateOpen, Limit: 1})
	if err != nil || len(open.Issues) == 0 {
		t.Fatal(err)
	}
	// A decision about the issue withdrawn before: its history is shown.
	is, at := open.Issues[0], time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	made := store.DecisionEvent{Namespace: testNS, UID: "u-old", Seq: 1, Name: "old", Event: store.DecisionMade, At: at, Organisation: is.Organisation,
		Kind: "FalsePositive", Reason: "decorative", DecidedBy: "lead", Rule: is.Rule}
	gone := made
	gone.Seq, gone.Event, gone.At = 2, store.DecisionWithdrawn, at.AddDate(0, 0, 7)
	if err := st.AddDecisionEvents(context.Background(), []store.DecisionEvent{made, gone}); err != nil {
		t.Fatal(err)
	}
	base := serve(t, h)
	path := IssuePath(testNS, is.Fingerprint)
	ctx := axe.Browser(t, chromium)
	t.Run("before", func(t *testing.T) {
		checkPage(ctx, t, base, path, "both", axeScript, filepath.Join(shots, "decide-before"))
	})

	tab, cancel := chromedp.NewContext(ctx)
	defer cancel()
	tab, cancelTimeout := context.WithTimeout(tab, 2*time.Minute)
	defer cancelTimeout()
	signIn := chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		if _, err := cdp.Call(ctx, tg, network.Enable, network.EnableParams{}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, tg, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{Headers: network.Headers{"Authorization": "Bearer both"}})
		return err
	})
	if err := chromedp.Do(tab, signIn, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(base+path)); err != nil {
		t.Fatal(err)
	}
	k := keys{ctx: tab, t: t}

	decideRefused(k, decisions, axeScript, shots)
	decideMade(k, decisions, path, axeScript, shots)
}

// decideRefused chooses Accepted (the arrow key moves from the first kind
// to the second and checks it), keeps this issue (checked already),
// types a reason and no review date, and submits: refused, with the form
// as it was entered and the review date marked.
func decideRefused(k keys, decisions *fakeDecisions, axeScript []byte, shots string) {
	tab, t := k.ctx, k.t
	k.tabTo("decide-kind-FalsePositive")
	k.press(kb.ArrowDown)
	if k.focused() != "decide-kind-Accepted" || !evaluate[bool](tab, t, `document.getElementById("decide-kind-Accepted").checked`) {
		t.Fatalf("the arrow key did not choose Accepted (focus on #%s)", k.focused())
	}
	k.press(kb.Tab)
	if k.focused() != "decide-scope-issue" {
		t.Fatalf("Tab from the kinds went to #%s, not the scope's checked choice", k.focused())
	}
	k.tabTo("decide-reason")
	if err := chromedp.Do(tab, chromedp.KeyEvent("The search box gets a label in the next release.")); err != nil {
		t.Fatal(err)
	}
	k.tabTo("decide-review-by")
	k.press(kb.Enter) // submits the form from its date field, as Enter in a field does
	k.waitFor("the refusal", `document.title.startsWith("Error: ")`)
	if got := evaluate[string](tab, t, `document.querySelector(".error-summary a").getAttribute("href")`); got != "#decide-review-by" {
		t.Errorf("the error summary links %q, want the review date", got)
	}
	if !evaluate[bool](tab, t, `document.getElementById("decide-review-by").getAttribute("aria-invalid") === "true" &&
		document.getElementById("decide-review-by").getAttribute("aria-describedby").includes("decide-review-by-error") &&
		document.getElementById("decide-kind-Accepted").checked && document.getElementById("decide-reason").value.startsWith("The search box")`) {
		t.Error("the refused form does not mark the review date or lost what was entered")
	}
	checkHere(tab, t, axeScript, filepath.Join(shots, "decide-refused"))
	if decisions.count() != 0 {
		t.Fatal("a refused form made a decision")
	}

}

// decideMade types the review date and presses Enter on the button: the
// decision is made, announced and listed.
func decideMade(k keys, decisions *fakeDecisions, path string, axeScript []byte, shots string) {
	tab, t := k.ctx, k.t
	// The review date typed (month, day, year as Chromium's en-US date
	// field takes them), then Enter on the button.
	review := time.Now().AddDate(1, 0, 0)
	k.tabTo("decide-review-by")
	if err := chromedp.Do(tab, chromedp.KeyEvent(review.Format("01022006"))); err != nil {
		t.Fatal(err)
	}
	if got := evaluate[string](tab, t, `document.getElementById("decide-review-by").value`); got != review.Format(time.DateOnly) {
		t.Fatalf("the review date reads %q after typing, want %s", got, review.Format(time.DateOnly))
	}
	for i := 0; i < 4 && k.focused() == "decide-review-by"; i++ {
		k.press(kb.Tab) // through the field's parts (month, day, year) to the button
	}
	if k.focused() != "" || evaluate[string](tab, t, `document.activeElement.textContent`) != "Record decision" {
		t.Fatalf("Tab from the review date went to #%s, not the button", k.focused())
	}
	k.press(kb.Enter)
	k.waitFor("the decision", `document.title.startsWith("Decision recorded: ")`)
	if n := decisions.count(); n != 1 {
		t.Fatalf("%d decisions made, want 1", n)
	}
	status := evaluate[string](tab, t, `document.querySelector("[role=status]").textContent`)
	listed := evaluate[string](tab, t, `document.querySelector("ol.decisions").textContent`)
	if !strings.Contains(status, "Decision decision-1 recorded") || !strings.Contains(listed, "Accepted: does not cover it, not applied yet") ||
		!strings.Contains(listed, review.Format(time.DateOnly)) || !strings.Contains(listed, "The search box gets a label") {
		t.Errorf("after deciding: status %q, decisions %q", status, listed)
	}
	if u := evaluate[string](tab, t, `location.pathname + location.search + location.hash`); u != path+"?decided=decision-1#decisions" {
		t.Errorf("back at %s", u)
	}
	checkHere(tab, t, axeScript, filepath.Join(shots, "decide-after"))
}

// checkHere checks the tab's page as it is (after a form's answer, which a
// navigation would not reproduce): axe-core at 320 and 1280 px, reflow,
// and screenshots.
func checkHere(ctx context.Context, t *testing.T, axeScript []byte, shot string) {
	t.Helper()
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
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatal(err)
	}
}

// keys drives a tab with the keyboard alone.
type keys struct {
	ctx context.Context
	t   *testing.T
}

func (k keys) press(names ...string) {
	k.t.Helper()
	for _, n := range names {
		if err := chromedp.Do(k.ctx, chromedp.KeyEvent(n)); err != nil {
			k.t.Fatal(err)
		}
	}
}

// focused is the id of the element with focus.
func (k keys) focused() string {
	return evaluate[string](k.ctx, k.t, `document.activeElement ? document.activeElement.id : ""`)
}

// tabTo presses Tab until the element has focus (at most 60 times).
func (k keys) tabTo(id string) {
	k.t.Helper()
	for range 60 {
		if k.focused() == id {
			return
		}
		k.press(kb.Tab)
	}
	k.t.Fatalf("Tab never reached #%s (focus on #%s)", id, k.focused())
}

// waitFor waits (5 s at most) until the script is true: after a form's
// answer has loaded.
func (k keys) waitFor(what, js string) {
	k.t.Helper()
	for range 100 {
		if evaluate[bool](k.ctx, k.t, js) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	k.t.Fatalf("waiting for %s", what)
}
