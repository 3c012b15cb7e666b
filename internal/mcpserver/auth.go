package mcpserver

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// Identity is who is calling.
type Identity struct {
	User   string              `json:"user"`
	UID    string              `json:"uid,omitempty"`
	Groups []string            `json:"groups,omitempty"`
	Extra  map[string][]string `json:"extra,omitempty"`
	// Method says how it was established: anonymous, token, kubernetes, stdio.
	Method string `json:"method"`
}

// Reviewable reports whether SubjectAccessReviews can name the identity:
// a Kubernetes user (TokenReview), or a provider's user as kube-apiserver
// would name them (OIDCTokenAuth).
func (id *Identity) Reviewable() bool {
	return id != nil && (id.Method == MethodKubernetes || id.Method == MethodOIDC)
}

func (id *Identity) String() string {
	if id == nil {
		return "unknown"
	}
	if id.Method == "anonymous" {
		return id.User
	}
	return id.Method + ":" + id.User
}

// Authenticator turns an HTTP request into an identity, or refuses it.
type Authenticator interface {
	Authenticate(ctx context.Context, r *http.Request) (*Identity, error)
}

// Authorizer decides whether an identity may do verb on cwacscans in a namespace.
type Authorizer interface {
	Authorize(ctx context.Context, id *Identity, verb, resource, namespace string) error
}

// errUnauthenticated is answered with HTTP 401.
var errUnauthenticated = errors.New("unauthenticated")

func bearer(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	if len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		return strings.TrimSpace(h[7:]), true
	}
	return "", false
}

// AnonymousAuth lets everyone in. Only for explicitly unauthenticated setups.
type AnonymousAuth struct{}

// Authenticate implements Authenticator.
func (AnonymousAuth) Authenticate(_ context.Context, r *http.Request) (*Identity, error) {
	return &Identity{User: "anonymous@" + remoteHost(r), Method: "anonymous"}, nil
}

// StaticTokenAuth accepts one bearer token (read from a Secret).
type StaticTokenAuth struct {
	Token string
	// User names the identity the token stands for (default "mcp-token").
	User string
}

// Authenticate implements Authenticator.
func (a StaticTokenAuth) Authenticate(_ context.Context, r *http.Request) (*Identity, error) {
	got, ok := bearer(r)
	if !ok || a.Token == "" {
		return nil, fmt.Errorf("%w: a bearer token is required", errUnauthenticated)
	}
	want := sha256.Sum256([]byte(a.Token))
	have := sha256.Sum256([]byte(got))
	if subtle.ConstantTimeCompare(want[:], have[:]) != 1 {
		return nil, fmt.Errorf("%w: invalid bearer token", errUnauthenticated)
	}
	user := a.User
	if user == "" {
		user = "mcp-token"
	}
	return &Identity{User: user, Method: "token"}, nil
}

// KubernetesAuth checks bearer tokens with the API server's TokenReview and
// every tool call with a SubjectAccessReview, so a caller can do through the
// sidecar exactly what their own RBAC lets them do to CwacScans.
type KubernetesAuth struct {
	Clientset kubernetes.Interface
	// Audiences the token must be for (empty: the API server's default).
	Audiences []string
	// CacheTTL keeps token reviews briefly (default DefaultAuthCacheTTL): a
	// token revoked, or whose service account was deleted, keeps working for
	// at most this long. Permissions are not cached: every call is reviewed.
	CacheTTL time.Duration

	mu    sync.Mutex
	cache map[string]cachedReview
}

// DefaultAuthCacheTTL is how long a token review is remembered.
const DefaultAuthCacheTTL = 10 * time.Second

type cachedReview struct {
	id      *Identity
	err     error
	expires time.Time
}

// Authenticate implements Authenticator.
func (k *KubernetesAuth) Authenticate(ctx context.Context, r *http.Request) (*Identity, error) {
	token, ok := bearer(r)
	if !ok {
		return nil, fmt.Errorf("%w: a Kubernetes bearer token is required (kubectl create token <service-account>)", errUnauthenticated)
	}
	key := sha256.Sum256([]byte(token))
	cacheKey := hex.EncodeToString(key[:])
	if c, ok := k.cached(cacheKey); ok {
		return c.id, c.err
	}
	review, err := k.Clientset.AuthenticationV1().TokenReviews().Create(ctx, &authenticationv1.TokenReview{
		Spec: authenticationv1.TokenReviewSpec{Token: token, Audiences: k.Audiences},
	}, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("checking the token: %w", err) // not cached: the API server may be back soon
	}
	var id *Identity
	if !review.Status.Authenticated {
		err = fmt.Errorf("%w: the token was not accepted by the API server", errUnauthenticated)
	} else {
		u := review.Status.User
		extra := map[string][]string{}
		for k, v := range u.Extra {
			extra[k] = v
		}
		id = &Identity{User: u.Username, UID: u.UID, Groups: u.Groups, Extra: extra, Method: MethodKubernetes}
	}
	k.store(cacheKey, cachedReview{id: id, err: err})
	return id, err
}

// Authorize implements Authorizer.
func (k *KubernetesAuth) Authorize(ctx context.Context, id *Identity, verb, resource, namespace string) error {
	if !id.Reviewable() {
		return fmt.Errorf("%w: no Kubernetes identity for this call", errForbidden)
	}
	allowed, err := k.review(ctx, id, authorizationv1.SubjectAccessReviewSpec{
		ResourceAttributes: &authorizationv1.ResourceAttributes{
			Namespace: namespace, Verb: verb, Group: cwacv1alpha1.GroupVersion.Group, Resource: resource,
		},
	})
	if err != nil {
		return err
	}
	if !allowed {
		return fmt.Errorf("%w: %s may not %s %s in namespace %s", errForbidden, id.User, verb, resource, namespace)
	}
	return nil
}

// review asks the API server whether id may do what spec's attributes say:
// one SubjectAccessReview, for both the tools' and the metrics' checks.
func (k *KubernetesAuth) review(ctx context.Context, id *Identity, spec authorizationv1.SubjectAccessReviewSpec) (bool, error) {
	spec.User, spec.UID, spec.Groups = id.User, id.UID, id.Groups
	spec.Extra = map[string]authorizationv1.ExtraValue{}
	for k, v := range id.Extra {
		spec.Extra[k] = v
	}
	sar, err := k.Clientset.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{Spec: spec}, metav1.CreateOptions{})
	if err != nil {
		return false, fmt.Errorf("checking permissions: %w", err)
	}
	return sar.Status.Allowed, nil
}

func (k *KubernetesAuth) cached(key string) (cachedReview, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	c, ok := k.cache[key]
	if !ok || time.Now().After(c.expires) {
		return cachedReview{}, false
	}
	return c, true
}

func (k *KubernetesAuth) store(key string, c cachedReview) {
	ttl := k.CacheTTL
	if ttl <= 0 {
		ttl = DefaultAuthCacheTTL
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.cache == nil || len(k.cache) > 10000 {
		k.cache = map[string]cachedReview{}
	}
	c.expires = time.Now().Add(ttl)
	k.cache[key] = c
}

// IdentityHeader carries the authenticated identity from the HTTP layer to
// tool handlers; the HTTP layer always overwrites whatever a client sent.
const IdentityHeader = "X-Cwac-Mcp-Identity"

func encodeIdentity(id *Identity) string {
	data, _ := json.Marshal(id)
	return base64.RawURLEncoding.EncodeToString(data)
}

func decodeIdentity(s string) *Identity {
	data, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil
	}
	var id Identity
	if json.Unmarshal(data, &id) != nil || id.User == "" {
		return nil
	}
	return &id
}

// authenticate wraps a handler: no identity, no entry (HTTP 401).
func authenticate(auth Authenticator, challenge string, log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Del(IdentityHeader)
		r.Header.Del(CallerHeader)
		id, err := auth.Authenticate(r.Context(), r)
		if err != nil {
			// The audit trail's record of a refused request: from where,
			// what it asked, why (never the credentials).
			if log != nil {
				log.Info("request refused", "audit", true, "remote", remoteHost(r), "method", r.Method, "path", truncate(r.URL.Path, 256),
					"reason", truncate(err.Error(), 512))
			}
			w.Header().Set("WWW-Authenticate", challenge)
			code := http.StatusUnauthorized
			if !errors.Is(err, errUnauthenticated) {
				code = http.StatusServiceUnavailable
			}
			refuse(w, code, err)
			return
		}
		if c := connOf(r.Context()); c != nil {
			if err := c.authenticated(id.String()); err != nil {
				refuse(w, http.StatusTooManyRequests, err)
				return
			}
		}
		r.Header.Set(IdentityHeader, encodeIdentity(id))
		r.Header.Set(CallerHeader, id.String())
		next.ServeHTTP(w, r)
	})
}

// refuse answers with the error and closes the connection at once: a
// refused caller holds no connection.
func refuse(w http.ResponseWriter, code int, err error) {
	// Close rather than wait for the rest of a body nobody will read.
	w.Header().Set("Connection", "close")
	writeExecuteError(w, code, err.Error())
	// "Connection: close" alone does not close: the server first reads
	// what is left of the body, and a refused caller could hold the
	// connection until the body's deadline. A read deadline in the past
	// ends that at once.
	_ = http.NewResponseController(w).SetReadDeadline(time.Now())
}

// The Kubernetes API verbs the tools need on cwacscans.
const (
	verbCreate = "create"
	verbGet    = "get"
	verbList   = "list"
	verbPatch  = "patch"
)

// The resources the tools' verbs are on: cwacscans, but for the tools in
// toolResources.
const (
	resourceScans     = "cwacscans"
	resourceDecisions = "cwacissuedecisions"
)

// toolResources are the tools whose verb is on another resource than
// cwacscans.
var toolResources = map[string]string{
	"cwac_decide": resourceDecisions,
}

// toolResource is the resource the tool's verb is on.
func toolResource(name string) string {
	if r, ok := toolResources[name]; ok {
		return r
	}
	return resourceScans
}

// toolVerbs is what each tool needs on its resource (toolResource).
var toolVerbs = map[string]string{
	"cwac_decide":          verbCreate,
	"cwac_scan":            verbCreate,
	"cwac_scan_status":     verbGet,
	"cwac_get_results":     verbGet,
	"cwac_get_summary":     verbGet,
	"cwac_list_scans":      verbList,
	"cwac_generate_report": verbGet,
	"cwac_cancel_scan":     verbPatch,
	"cwac_compare_scans":   verbGet,
	// The history's reads: every scan they name is in the namespace.
	"cwac_issue_history":      verbGet,
	"cwac_organisation_trend": verbGet,
	"cwac_sector_trend":       verbGet,
	"cwac_scan_changes":       verbGet,
	// CWAC's signals, read from a scan's results as cwac_get_results reads them.
	"cwac_get_templates":        verbGet,
	"cwac_get_page_titles":      verbGet,
	"cwac_get_broken_responses": verbGet,
	"cwac_get_readability":      verbGet,
	resourceReadName:            verbGet,
	trendReadName:               verbGet,
	promptGetName:               verbGet,
	resourceListName:            verbList,
}
