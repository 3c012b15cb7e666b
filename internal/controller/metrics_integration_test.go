//go:build integration

package controller

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

// freeLoopbackAddr is a loopback address with a port nothing listens on now.
func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// startManagerWithMetrics runs the operator as cmd/manager wires it, with
// its secure metrics endpoint on addr and the CWAC metrics registered in
// controller-runtime's registry (the one that endpoint serves).
func startManagerWithMetrics(t *testing.T, addr string) {
	t.Helper()
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 scheme,
		Metrics:                MetricsServerOptions(addr, true, t.TempDir()),
		HealthProbeBindAddress: "0",
		Cache:                  cache.Options{ByObject: CacheByObject(), NewInformer: NewInformer},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := Setup(mgr, Options{JobOptions: testOpts, Policy: testPolicy(), SkipNameValidation: true}); err != nil {
		t.Fatal(err)
	}
	unregister, err := SetupMetrics(mgr, ctrlmetrics.Registry)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(unregister) // after the manager stops (cleanups run last first)
	runManager(t, mgr)
}

// metricsToken makes a service account in ns and returns its token; with
// reader, the account is bound to a ClusterRole allowing GET /metrics, as
// the chart's metrics-reader role does.
func metricsToken(t *testing.T, ns, name string, reader bool) string {
	t.Helper()
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := ctxT(t)
	if _, err := cs.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}},
		metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if reader {
		role := &rbacv1.ClusterRole{
			ObjectMeta: metav1.ObjectMeta{Name: ns + "-metrics-reader"},
			Rules:      []rbacv1.PolicyRule{{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}}},
		}
		binding := &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: ns + "-metrics-reader"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: ns}},
		}
		if err := k8s.Create(ctx, role); err != nil {
			t.Fatal(err)
		}
		if err := k8s.Create(ctx, binding); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = k8s.Delete(context.Background(), binding)
			_ = k8s.Delete(context.Background(), role)
		})
	}
	tr, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(ctx, name, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tr.Status.Token
}

// scrape GETs /metrics over HTTPS (the endpoint's certificate is
// self-signed) with the bearer token, if any.
func scrape(t *testing.T, addr, token string) (int, string) {
	t.Helper()
	hc := &http.Client{
		Timeout:   10 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, //nolint:gosec // a self-signed certificate on loopback
	}
	req, err := http.NewRequestWithContext(ctxT(t), http.MethodGet, "https://"+addr+"/metrics", nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// sample is the value of the series whose exposition line starts with
// series (name and labels, as printed), or -1 when there is none.
func sample(body, series string) float64 {
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`).FindStringSubmatch(body)
	if m == nil {
		return -1
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return -1
	}
	return v
}

// TestOperatorMetrics drives a scan to Complete and scrapes the operator's
// secure metrics endpoint: only an authenticated caller with GET /metrics
// reads it, and it shows the scan in every CWAC metric.
func TestOperatorMetrics(t *testing.T) {
	addr := freeLoopbackAddr(t)
	startManagerWithMetrics(t, addr)
	ns := newNamespace(t)
	scraper := metricsToken(t, ns, "scraper", true)
	nobody := metricsToken(t, ns, "nobody", false)

	// A decision no admission policy recorded a decider for (this test
	// runs none): the operator refuses it, so it counts as not applied.
	if err := k8s.Create(ctxT(t), &cwacv1alpha1.CwacIssueDecision{ObjectMeta: metav1.ObjectMeta{Name: "alt", Namespace: ns},
		Spec: cwacv1alpha1.CwacIssueDecisionSpec{Organisation: "example.com", Kind: cwacv1alpha1.DecisionWontFix, Reason: "why",
			Rule: "image-alt"}}); err != nil {
		t.Fatal(err)
	}
	scan := createScan(t, ns, "metrics", simpleSpec())
	job := waitJob(t, ns, scan.Name)
	pod := startPod(t, job, runningStatus())
	waitPhase(t, ns, scan.Name, cwacv1alpha1.PhaseRunning)
	summary := realSummary(t)
	setPodStatus(t, pod, terminatedStatus(0, "Completed", report(scanpod.Report{
		Outcome: scanpod.OutcomeComplete, ResultsDir: "2026-11-21_23-18-23_metrics", Message: "done", Summary: summary,
	})))
	finishJob(t, job, true, "", "")
	done := waitPhase(t, ns, scan.Name, cwacv1alpha1.PhaseComplete)

	for _, tt := range []struct {
		name, token string
		want        int
	}{{"no token", "", http.StatusUnauthorized},
		// controller-runtime's own filter answered 500 when the TokenReview rejected the token with an error.
		{"a token the API server rejects", "not-a-token", http.StatusUnauthorized},
		{"a valid token without the right", nobody, http.StatusForbidden}} {
		var code int
		var body string
		waitFor(t, "the metrics endpoint to answer", func() (bool, error) {
			code, body = scrape(t, addr, tt.token)
			return code != 0, fmt.Errorf("%s", body)
		})
		if code != tt.want || strings.Contains(body, "cwac_") {
			t.Errorf("%s: HTTP %d (want %d), body %.200q", tt.name, code, tt.want, body)
		}
	}

	want := map[string]float64{
		fmt.Sprintf(`cwac_scans{namespace=%q,phase="Complete",reason="Succeeded"}`, ns):                1,
		fmt.Sprintf(`cwac_scans_finished_total{namespace=%q,phase="Complete",reason="Succeeded"}`, ns): 1,
		fmt.Sprintf(`cwac_scan_pages_scanned_total{namespace=%q}`, ns):                                 float64(done.Status.Summary.PagesScanned),
		fmt.Sprintf(`cwac_latest_scan_total_issues{namespace=%q,schedule="(none)"}`, ns):               float64(done.Status.Summary.TotalIssues),
		fmt.Sprintf(`cwac_latest_scan_pages_scanned{namespace=%q,schedule="(none)"}`, ns):              float64(done.Status.Summary.PagesScanned),
		fmt.Sprintf(`cwac_latest_scan_issues{impact="critical",namespace=%q,schedule="(none)"}`, ns):   float64(done.Status.Summary.IssuesByImpact["critical"]),
		`cwac_scan_collector_up`: 1,
		fmt.Sprintf(`cwac_issue_decisions{applied="false",kind="WontFix",namespace=%q}`, ns): 1,
		fmt.Sprintf(`cwac_issue_decisions{applied="true",kind="WontFix",namespace=%q}`, ns):  0,
		fmt.Sprintf(`cwac_issue_decisions_past_review{namespace=%q}`, ns):                    0,
		`cwac_issue_decision_collector_up`:                                                   1,
	}
	var body string
	waitFor(t, "the scan in the metrics", func() (bool, error) {
		var code int
		code, body = scrape(t, addr, scraper)
		for series, v := range want {
			if got := sample(body, series); got != v {
				return false, fmt.Errorf("HTTP %d: %s = %v, want %v", code, series, got, v)
			}
		}
		return true, nil
	})
	if done.Status.Summary.PagesScanned == 0 || done.Status.Summary.TotalIssues == 0 {
		t.Fatalf("the scan's summary is empty (%+v): the figures above prove nothing", done.Status.Summary)
	}
	// Histograms: the scan's wait in the queue and its run were observed.
	for _, series := range []string{`cwac_scan_duration_seconds_count{phase="Complete"}`, `cwac_scan_queue_wait_seconds_count`} {
		if got := sample(body, series); got < 1 {
			t.Errorf("%s = %v, want at least 1", series, got)
		}
	}
}
