package websession

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// maxReturnBytes bounds the page a sign-in returns to.
const maxReturnBytes = 2048

// SafeReturn is returnTo if it is a path on this server ("/scans?phase=Failed"),
// else "/": never another site ("//evil.example", "https://…", "/\evil"),
// so a sign-in link cannot send the user elsewhere once signed in.
func SafeReturn(returnTo string) string {
	if returnTo == "" || len(returnTo) > maxReturnBytes || returnTo[0] != '/' || strings.HasPrefix(returnTo, "//") {
		return "/"
	}
	for i := 0; i < len(returnTo); i++ {
		if c := returnTo[i]; c < 0x21 || c == 0x7f || c == '\\' {
			return "/"
		}
	}
	u, err := url.Parse(returnTo)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" || !strings.HasPrefix(u.Path, "/") {
		return "/"
	}
	return returnTo
}

// crossOrigin is net/http's check of browsers' cross-site requests:
// Sec-Fetch-Site, else Origin against Host.
var crossOrigin = http.NewCrossOriginProtection()

// CheckSameOrigin refuses a state-changing request a browser sent from
// another site (Sec-Fetch-Site, or Origin against Host). A request with
// neither header is not a modern browser's and passes: the CSRF token is
// then what protects it.
func CheckSameOrigin(r *http.Request) error {
	if err := crossOrigin.Check(r); err != nil {
		return fmt.Errorf("cross-site request refused: %w", err)
	}
	return nil
}
