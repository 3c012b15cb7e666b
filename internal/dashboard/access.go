package dashboard

import (
	"context"
	"errors"
	"net/http"
)

// Principal is who a request is, as the dashboard shows and authorises it.
type Principal struct {
	// Name is shown in the page's header ("system:serviceaccount:ns:sa").
	Name string
	// Anonymous is true when nobody signed in (--auth=none).
	Anonymous bool
	// Subject is the Access's own record of the principal (a Kubernetes
	// user with its groups; a SessionUser after a sign-in), handed back to
	// MayRead; the dashboard never reads it.
	Subject any
	// SignOutToken is set when the principal signed in with a session
	// cookie: the CSRF token the page's sign-out form carries.
	SignOutToken string
	// CanSignIn is set for an anonymous reader of the public namespaces
	// when sign-in is configured: the page offers it.
	CanSignIn bool
}

// Access answers "who is this request" and "what may they read". The MCP
// server's bearer-token authentication (TokenReview) and RBAC
// (SubjectAccessReview) are one implementation. A session cookie set by
// the dashboard's own sign-in (SignIn) is read before the Access is asked,
// when the request carries no Authorization header; MayRead is then given
// a Principal whose Subject is a SessionUser.
type Access interface {
	// Identify returns the request's principal, or an error wrapping
	// ErrUnauthenticated when it carries no credentials the dashboard
	// accepts (any other error means the check itself failed: 503).
	Identify(r *http.Request) (Principal, error)
	// MayRead reports whether the principal may read the scans and
	// history of a namespace (get on cwacscans there).
	MayRead(ctx context.Context, p Principal, namespace string) (bool, error)
}

// ErrUnauthenticated marks a request without acceptable credentials.
var ErrUnauthenticated = errors.New("not signed in")

// Open is the Access of an unauthenticated dashboard (--auth=none, for a
// private port-forward): everyone reads every namespace it serves.
type Open struct{}

// Identify implements Access.
func (Open) Identify(*http.Request) (Principal, error) {
	return Principal{Name: "anonymous", Anonymous: true}, nil
}

// MayRead implements Access.
func (Open) MayRead(context.Context, Principal, string) (bool, error) { return true, nil }
