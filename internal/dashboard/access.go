package dashboard

import (
	"context"
	"errors"
	"net/http"

	"github.com/a11y-dev/cwac-operator/internal/orgaccess"
)

// Principal is who a request is, as the dashboard shows and authorises it.
type Principal struct {
	// Name is shown in the page's header ("system:serviceaccount:ns:sa").
	Name string
	// Anonymous is true when nobody signed in (--auth=none).
	Anonymous bool
	// Subject is the Access's own record of the principal (a Kubernetes
	// user with its groups; a SessionUser after a sign-in), handed back to
	// Reach; the dashboard never reads it.
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
// when the request carries no Authorization header; Reach is then given
// a Principal whose Subject is a SessionUser.
type Access interface {
	// Identify returns the request's principal, or an error wrapping
	// ErrUnauthenticated when it carries no credentials the dashboard
	// accepts (any other error means the check itself failed: 503).
	Identify(r *http.Request) (Principal, error)
	// Reach is what the principal may read of a namespace's scans and
	// history: all of it (get on cwacscans there), the organisations the
	// namespace's CwacOrganisationGrants give, or nothing.
	Reach(ctx context.Context, p Principal, namespace string) (orgaccess.Reach, error)
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

// Reach implements Access.
func (Open) Reach(context.Context, Principal, string) (orgaccess.Reach, error) {
	return orgaccess.Whole(), nil
}
