package controller

import (
	"context"
	"crypto/sha256"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	authnv1 "k8s.io/api/authentication/v1"
	authzv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// The metrics endpoint's own authentication and authorisation. It asks the
// API server what controller-runtime's filter asks (a TokenReview of the
// bearer token, then a SubjectAccessReview of the request's verb on its
// path), but answers as HTTP means: a token the API server does not accept
// is 401 (controller-runtime's filter answered 500 to any token it could
// not authenticate), a caller without the right 403, and only a review the
// API server could not answer 503.

// tokenReviewer and accessReviewer are the two reviews the filter asks for
// (client-go's typed clients; fakes in tests).
type tokenReviewer interface {
	Create(ctx context.Context, r *authnv1.TokenReview, opts metav1.CreateOptions) (*authnv1.TokenReview, error)
}

type accessReviewer interface {
	Create(ctx context.Context, r *authzv1.SubjectAccessReview, opts metav1.CreateOptions) (*authzv1.SubjectAccessReview, error)
}

// How long a verdict is remembered, and how many: a scraper asks every
// few seconds with the same token, and an attacker's garbage tokens must
// not grow the cache without end.
const (
	metricsAllowTTL    = time.Minute
	metricsDenyTTL     = 10 * time.Second
	metricsCacheSize   = 1024
	metricsReviewLimit = 10 * time.Second
)

// metricsAuth checks requests with the API server's reviews, remembering
// verdicts for a while.
type metricsAuth struct {
	tokens tokenReviewer
	access accessReviewer
	now    func() time.Time

	mu    sync.Mutex
	cache map[[sha256.Size]byte]metricsVerdict
}

// metricsVerdict is a remembered answer: its HTTP status (200: allowed).
type metricsVerdict struct {
	status int
	until  time.Time
}

// MetricsAuthFilter is the metrics server's filter (metricsserver.Options.FilterProvider).
func MetricsAuthFilter(c *rest.Config, httpClient *http.Client) (metricsserver.Filter, error) {
	cs, err := kubernetes.NewForConfigAndClient(c, httpClient)
	if err != nil {
		return nil, err
	}
	a := newMetricsAuth(cs.AuthenticationV1().TokenReviews(), cs.AuthorizationV1().SubjectAccessReviews(), time.Now)
	return func(log logr.Logger, next http.Handler) (http.Handler, error) { return a.handler(log, next), nil }, nil
}

func newMetricsAuth(tokens tokenReviewer, access accessReviewer, now func() time.Time) *metricsAuth {
	return &metricsAuth{tokens: tokens, access: access, now: now, cache: map[[sha256.Size]byte]metricsVerdict{}}
}

func (a *metricsAuth) handler(log logr.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		status, msg := a.check(r)
		if status != http.StatusOK {
			if status == http.StatusServiceUnavailable {
				log.Error(nil, "metrics request not checked", "reason", msg)
			}
			http.Error(w, msg, status)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// check is the request's verdict: 200, or the status and text to answer.
func (a *metricsAuth) check(r *http.Request) (int, string) {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if token = strings.TrimSpace(token); !ok || token == "" {
		return http.StatusUnauthorized, "Unauthorized: a bearer token is required"
	}
	verb := strings.ToLower(r.Method)
	key := sha256.Sum256([]byte(verb + " " + r.URL.Path + "\x00" + token))
	if status, ok := a.remembered(key); ok {
		return status, http.StatusText(status)
	}
	ctx, cancel := context.WithTimeout(r.Context(), metricsReviewLimit)
	defer cancel()
	status, msg := a.review(ctx, token, verb, r.URL.Path)
	if status != http.StatusServiceUnavailable {
		a.remember(key, status)
	}
	return status, msg
}

// review asks the API server who the token is and whether they may.
func (a *metricsAuth) review(ctx context.Context, token, verb, path string) (int, string) {
	tr, err := a.tokens.Create(ctx, &authnv1.TokenReview{Spec: authnv1.TokenReviewSpec{Token: token}}, metav1.CreateOptions{})
	if err != nil {
		return http.StatusServiceUnavailable, "the token could not be reviewed: " + err.Error()
	}
	if !tr.Status.Authenticated {
		return http.StatusUnauthorized, "Unauthorized"
	}
	u := tr.Status.User
	extra := map[string]authzv1.ExtraValue{}
	for k, v := range u.Extra {
		extra[k] = authzv1.ExtraValue(v)
	}
	sar, err := a.access.Create(ctx, &authzv1.SubjectAccessReview{Spec: authzv1.SubjectAccessReviewSpec{
		User: u.Username, UID: u.UID, Groups: u.Groups, Extra: extra,
		NonResourceAttributes: &authzv1.NonResourceAttributes{Path: path, Verb: verb},
	}}, metav1.CreateOptions{})
	if err != nil {
		return http.StatusServiceUnavailable, "the request could not be authorised: " + err.Error()
	}
	if !sar.Status.Allowed {
		return http.StatusForbidden, "Forbidden: " + u.Username + " may not " + verb + " " + path
	}
	return http.StatusOK, ""
}

func (a *metricsAuth) remembered(key [sha256.Size]byte) (int, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	v, ok := a.cache[key]
	if !ok || !a.now().Before(v.until) {
		return 0, false
	}
	return v.status, true
}

func (a *metricsAuth) remember(key [sha256.Size]byte, status int) {
	ttl := metricsDenyTTL
	if status == http.StatusOK {
		ttl = metricsAllowTTL
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.cache) >= metricsCacheSize {
		clear(a.cache) // rarely: forget everyone rather than grow
	}
	a.cache[key] = metricsVerdict{status: status, until: a.now().Add(ttl)}
}
