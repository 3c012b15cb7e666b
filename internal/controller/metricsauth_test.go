package controller

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/go-logr/logr"
	authnv1 "k8s.io/api/authentication/v1"
	authzv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// fakeReviews answers as the API server would: tokens it knows are users,
// users in allowed may GET /metrics; fail makes both reviews error.
type fakeReviews struct {
	users   map[string]string // token → user
	allowed map[string]bool
	fail    bool
	asked   int
}

func (f *fakeReviews) tokenReviews() tokenReviewer { return tokenFunc(f.reviewToken) }
func (f *fakeReviews) accessReviews() accessReviewer {
	return accessFunc(f.reviewAccess)
}

type tokenFunc func(*authnv1.TokenReview) (*authnv1.TokenReview, error)

func (fn tokenFunc) Create(_ context.Context, r *authnv1.TokenReview, _ metav1.CreateOptions) (*authnv1.TokenReview, error) {
	return fn(r)
}

type accessFunc func(*authzv1.SubjectAccessReview) (*authzv1.SubjectAccessReview, error)

func (fn accessFunc) Create(_ context.Context, r *authzv1.SubjectAccessReview, _ metav1.CreateOptions) (*authzv1.SubjectAccessReview, error) {
	return fn(r)
}

func (f *fakeReviews) reviewToken(r *authnv1.TokenReview) (*authnv1.TokenReview, error) {
	f.asked++
	if f.fail {
		return nil, errors.New("connection refused")
	}
	if u, ok := f.users[r.Spec.Token]; ok {
		r.Status = authnv1.TokenReviewStatus{Authenticated: true, User: authnv1.UserInfo{Username: u, Extra: map[string]authnv1.ExtraValue{"k": {"v"}}}}
	} else {
		r.Status = authnv1.TokenReviewStatus{Error: "[invalid bearer token, token lookup failed]"}
	}
	return r, nil
}

func (f *fakeReviews) reviewAccess(r *authzv1.SubjectAccessReview) (*authzv1.SubjectAccessReview, error) {
	if f.users["fail-access"] == r.Spec.User {
		return nil, errors.New("timeout")
	}
	a := r.Spec.NonResourceAttributes
	r.Status.Allowed = f.allowed[r.Spec.User] && a.Path == "/metrics" && a.Verb == "get" && r.Spec.Extra["k"][0] == "v"
	return r, nil
}

// The metrics endpoint answers as HTTP means: no token or one the API
// server does not accept 401 (a garbage token was 500), a caller without
// the right 403, reviews the API server could not answer 503, the allowed
// caller the metrics; verdicts are remembered for a while.
func TestMetricsAuth(t *testing.T) {
	f := &fakeReviews{users: map[string]string{"good": "scraper", "nobody": "nobody", "broken": "fail-access"}, allowed: map[string]bool{"scraper": true}}
	f.users["fail-access"] = "fail-access"
	now := time.Unix(0, 0)
	a := newMetricsAuth(f.tokenReviews(), f.accessReviews(), func() time.Time { return now })
	h := a.handler(logr.Discard(), http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("cwac_scans 1")) }))
	scrape := func(header, path string) int {
		r := httptest.NewRequest(http.MethodGet, path, nil)
		if header != "" {
			r.Header.Set("Authorization", header)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	tests := []struct {
		name, header, path string
		want               int
	}{
		{"no token", "", "/metrics", http.StatusUnauthorized},
		{"an empty bearer token", "Bearer ", "/metrics", http.StatusUnauthorized},
		{"not a bearer token", "Basic dXNlcjpwYXNz", "/metrics", http.StatusUnauthorized},
		{"a garbage token", "Bearer not-a-token", "/metrics", http.StatusUnauthorized},
		{"a caller without the right", "Bearer nobody", "/metrics", http.StatusForbidden},
		{"the allowed caller", "Bearer good", "/metrics", http.StatusOK},
		{"the allowed caller, another path", "Bearer good", "/debug", http.StatusForbidden},
		{"the access review fails", "Bearer broken", "/metrics", http.StatusServiceUnavailable},
	}
	for _, tt := range tests {
		if got := scrape(tt.header, tt.path); got != tt.want {
			t.Errorf("%s: HTTP %d, want %d", tt.name, got, tt.want)
		}
	}
	f.fail = true
	if got := scrape("Bearer other", "/metrics"); got != http.StatusServiceUnavailable {
		t.Errorf("the token review fails: HTTP %d, want 503", got)
	}
	// Remembered: the allowed caller for a minute, the refused for ten
	// seconds, even while the API server cannot be asked; a failure is not
	// remembered.
	asked := f.asked
	if scrape("Bearer good", "/metrics") != http.StatusOK || scrape("Bearer nobody", "/metrics") != http.StatusForbidden ||
		scrape("Bearer not-a-token", "/metrics") != http.StatusUnauthorized || f.asked != asked {
		t.Errorf("remembered verdicts were asked again (%d reviews)", f.asked-asked)
	}
	if scrape("Bearer other", "/metrics") != http.StatusServiceUnavailable || f.asked != asked+1 {
		t.Error("a failed review was remembered")
	}
	now = now.Add(metricsDenyTTL)
	if scrape("Bearer nobody", "/metrics") != http.StatusServiceUnavailable || scrape("Bearer good", "/metrics") != http.StatusOK {
		t.Error("a refusal outlived its ten seconds, or an allowance did not last its minute")
	}
	now = now.Add(metricsAllowTTL)
	if scrape("Bearer good", "/metrics") != http.StatusServiceUnavailable {
		t.Error("an allowance outlived its minute")
	}
	// The cache is bounded: full, it starts afresh.
	for i := range metricsCacheSize + 5 {
		a.remember([32]byte{byte(i), byte(i >> 8)}, http.StatusOK)
	}
	if len(a.cache) > metricsCacheSize {
		t.Errorf("the cache holds %d verdicts", len(a.cache))
	}
}
