// Package websession holds the protocol-independent parts of the
// dashboard's sign-in: sealed cookies (AES-256-GCM, keys from a Secret,
// rotation by listing the old key after the new), the session a sign-in
// leaves in one (who, their groups, a CSRF token, an expiry), the
// short-lived state of one sign-in's round trip, the mapping of an ID
// token's claims to a Kubernetes user and groups exactly as
// kube-apiserver's --oidc-* flags map them, and the checks a
// state-changing request (sign-out) must pass.
//
// Nothing here speaks OpenID Connect or knows Kubernetes' API: the
// dashboard's sign-in routes (internal/dashboard) do, with these pieces.
// Cookie values are untrusted input; Open is a parser bounded by what it
// decodes to (FuzzOpen).
package websession
