package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	authorizationv1 "k8s.io/api/authorization/v1"

	"github.com/a11y-dev/cwac-operator/internal/metrics"
)

// MetricsPath is the HTTP route of the server's Prometheus metrics.
const MetricsPath = "/metrics"

// MethodKubernetes is Identity.Method for callers KubernetesAuth authenticated.
const MethodKubernetes = "kubernetes"

// serverMetrics is the server's own Prometheus registry: its tool calls
// (internal/metrics.ToolCalls) and the Go runtime's and process' figures.
// It is made at the first call or scrape, when every tool is registered, so
// the tool label takes exactly the registered tools' names.
type serverMetrics struct {
	once     sync.Once
	registry *prometheus.Registry
	tools    *metrics.ToolCalls
}

func (m *serverMetrics) init(s *Server) {
	m.once.Do(func() {
		m.tools = metrics.NewToolCalls(s.ToolNames())
		m.registry = prometheus.NewRegistry()
		m.registry.MustRegister(m.tools.Collectors()...)
		m.registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	})
}

// observe records one tool call, as its audit line does.
func (m *serverMetrics) observe(s *Server, tool, outcome string, took time.Duration) {
	m.init(s)
	m.tools.Observe(tool, outcome, took)
}

// Registry is the server's metrics registry (what GET /metrics serves).
func (s *Server) Registry() *prometheus.Registry {
	s.metrics.init(s)
	return s.metrics.registry
}

// NonResourceAuthorizer decides whether an identity may use a non-resource
// URL of this server, as Kubernetes RBAC's nonResourceURLs rules do.
type NonResourceAuthorizer interface {
	AuthorizeNonResource(ctx context.Context, id *Identity, verb, path string) error
}

// errMetricsForbidden refuses a scrape (HTTP 403).
var errMetricsForbidden = errors.New("Forbidden")

// metricsHandler serves the registry to callers the HTTP layer
// authenticated: with no Authorizer configured (token or no
// authentication), that is all; with one, the caller must also be allowed
// GET on /metrics (for Kubernetes authentication, a SubjectAccessReview on
// the non-resource URL /metrics, as the operator's own metrics endpoint and
// the API server check). An Authorizer that cannot decide non-resource
// URLs refuses every scrape.
func (s *Server) metricsHandler() http.Handler {
	serve := promhttp.HandlerFor(s.Registry(), promhttp.HandlerOpts{})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := s.authorizeMetrics(r); err != nil {
			code := http.StatusForbidden
			if !errors.Is(err, errMetricsForbidden) {
				code = http.StatusServiceUnavailable // the review itself failed: try again later
			}
			writeExecuteError(w, code, err.Error())
			return
		}
		serve.ServeHTTP(w, r)
	})
}

func (s *Server) authorizeMetrics(r *http.Request) error {
	if s.cfg.Authorizer == nil {
		return nil
	}
	nr, ok := s.cfg.Authorizer.(NonResourceAuthorizer)
	if !ok {
		return fmt.Errorf("%w: this server's authorisation cannot grant %s", errMetricsForbidden, MetricsPath)
	}
	ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	defer cancel()
	return nr.AuthorizeNonResource(ctx, decodeIdentity(r.Header.Get(IdentityHeader)), "get", MetricsPath)
}

// AuthorizeNonResource implements NonResourceAuthorizer with a
// SubjectAccessReview on the non-resource URL path: a scraper needs a
// ClusterRole with nonResourceURLs [path] and the verb.
func (k *KubernetesAuth) AuthorizeNonResource(ctx context.Context, id *Identity, verb, path string) error {
	if !id.Reviewable() {
		return fmt.Errorf("%w: no Kubernetes identity for this request", errMetricsForbidden)
	}
	allowed, err := k.review(ctx, id, authorizationv1.SubjectAccessReviewSpec{
		NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: path, Verb: verb},
	})
	if err != nil {
		return err
	}
	if !allowed {
		return fmt.Errorf("%w: %s may not %s %s", errMetricsForbidden, id.User, verb, path)
	}
	return nil
}
