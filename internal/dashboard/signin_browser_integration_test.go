//go:build integration

package dashboard

import (
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/testutil/axe"
)

// signedInAccess is testAccess whose principals came from a session: the
// header shows the sign-out form as after a sign-in.
type signedInAccess struct{ testAccess }

func (a signedInAccess) Identify(r *http.Request) (Principal, error) {
	p, err := a.testAccess.Identify(r)
	p.SignOutToken = "csrf-token-of-the-session-0123456789abcdefgh"
	return p, err
}

// nobodyAccess lets nobody in: only the public view is left.
type nobodyAccess struct{ testAccess }

func (nobodyAccess) Identify(*http.Request) (Principal, error) {
	return Principal{}, ErrUnauthenticated
}

// TestSignInPagesInBrowser: the header of a signed-in page (its sign-out
// form), the public view (its sign-in link) and the signed-out page pass
// the same Chromium checks as every other page: axe-core at 320 and 1280
// px, reflow, nothing loaded from elsewhere, Tab order with visible focus.
func TestSignInPagesInBrowser(t *testing.T) {
	chromium, axeScript := axe.Require(t)
	shots := filepath.Join("..", "..", "bin", "screenshots", "dashboard")
	s := newSignIn(t, &clock{t: time.Now()})
	signedIn, _ := newTestHandler(t, Options{Access: signedInAccess{defaultAccess}, SignIn: s, Scans: testScans(t)})
	public, _ := newTestHandler(t, Options{Access: nobodyAccess{defaultAccess}, SignIn: s, PublicNamespaces: []string{testNS}})
	ctx := axe.Browser(t, chromium)
	for _, p := range []struct{ name, base, path string }{
		{"signed-in-organisations", serve(t, signedIn), "/"},
		{"signed-in-scans", serve(t, signedIn), "/scans"},
		{"public-organisations", serve(t, public), "/"},
		{"signed-out", serve(t, signedIn), "/signed-out"},
	} {
		t.Run(p.name, func(t *testing.T) {
			checkPage(ctx, t, p.base, p.path, "both", axeScript, filepath.Join(shots, p.name))
		})
	}
}
