//go:build integration

package chart

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/a11y-dev/cwac-operator/internal/controller"
	"github.com/a11y-dev/cwac-operator/internal/scanjob"
)

func nested(t *testing.T, o *unstructured.Unstructured, path ...string) any {
	t.Helper()
	v, _, err := unstructured.NestedFieldNoCopy(o.Object, path...)
	if err != nil {
		t.Fatalf("%s %s: %v", o.GetKind(), strings.Join(path, "."), err)
	}
	return v
}

// endpoint is the one endpoint of a rendered ServiceMonitor.
func endpoint(t *testing.T, sm *unstructured.Unstructured) map[string]any {
	t.Helper()
	eps, _ := nested(t, sm, "spec", "endpoints").([]any)
	if len(eps) != 1 {
		t.Fatalf("ServiceMonitor %s has %d endpoints, want 1", sm.GetName(), len(eps))
	}
	return eps[0].(map[string]any)
}

// operatorSA is the operator's service account in a release named cwac.
const operatorSA = "cwac-cwac-operator"

// TestChartMetricsObjects: the ServiceMonitors and the dashboard are
// rendered only when asked for (so a default install needs no Prometheus
// Operator CRD); the operator serves metrics securely by default, holding
// system:auth-delegator only then; the metrics-reader ClusterRole grants
// GET /metrics and nothing else.
func TestChartMetricsObjects(t *testing.T) {
	tests := []struct {
		name  string
		sets  []string
		check func(t *testing.T, objs []*unstructured.Unstructured)
	}{
		{"defaults: secure metrics, no ServiceMonitor, no dashboard", nil, checkMetricsDefaults},
		{"plain HTTP for local development", []string{"metrics.secure=false", "metrics.serviceMonitor.enabled=true"},
			checkMetricsPlainHTTP},
		{"ServiceMonitors, kubernetes auth, reader bound", []string{
			"metrics.serviceMonitor.enabled=true", "metrics.serviceMonitor.interval=30s", "metrics.serviceMonitor.labels.release=kps",
			"metrics.reader.subjects[0].kind=ServiceAccount", "metrics.reader.subjects[0].name=prometheus", "metrics.reader.subjects[0].namespace=monitoring",
		}, checkServiceMonitors},
		{"MCP token auth: the scrape presents the token Secret", []string{
			"metrics.serviceMonitor.enabled=true", "mcp.auth.mode=token", "mcp.auth.tokenSecret.name=mcp-token",
		}, checkMCPTokenScrape},
		{"no MCP ServiceMonitor when asked not to", []string{"metrics.serviceMonitor.enabled=true", "metrics.serviceMonitor.mcp=false"},
			checkNoMCPServiceMonitor},
		{"metrics and MCP off: nothing of metrics", []string{"metrics.enabled=false", "mcp.enabled=false", "metrics.serviceMonitor.enabled=true"},
			checkMetricsOff},
		{"dashboard", []string{"dashboard.enabled=true", "dashboard.namespace=monitoring", "dashboard.annotations.grafana_folder=CWAC"},
			checkDashboard},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs := render(t, "cwac-metrics", tt.sets...)
			tt.check(t, objs)
			var applicable []*unstructured.Unstructured
			for _, o := range objs {
				if o.GetKind() != "ServiceMonitor" { // no Prometheus Operator CRD on this API server
					applicable = append(applicable, o)
				}
			}
			applyDryRun(t, applicable)
		})
	}
}

func checkMetricsDefaults(t *testing.T, objs []*unstructured.Unstructured) {
	if k := kinds(objs); len(k["ServiceMonitor"]) != 0 || find(objs, "ConfigMap", "-dashboard") != nil {
		t.Errorf("rendered by default: %v", k)
	}
	if !hasArg(args(t, objs, "manager"), "--metrics-secure=true") {
		t.Errorf("manager args %v lack --metrics-secure=true", args(t, objs, "manager"))
	}
	checkDelegator(t, objs, operatorSA, true)
	reader := find(objs, "ClusterRole", "-metrics-reader")
	rules := rulesOf(t, reader)
	if len(rules) != 1 || len(rules[0].NonResourceURLs) != 1 || rules[0].NonResourceURLs[0] != "/metrics" ||
		len(rules[0].Verbs) != 1 || rules[0].Verbs[0] != "get" || len(rules[0].Resources) != 0 {
		t.Errorf("metrics-reader rules %+v, want GET /metrics only", rules)
	}
	if find(objs, "ClusterRoleBinding", "-metrics-reader") != nil {
		t.Error("the metrics-reader role is bound with no subjects given")
	}
}

func checkMetricsPlainHTTP(t *testing.T, objs []*unstructured.Unstructured) {
	if !hasArg(args(t, objs, "manager"), "--metrics-secure=false") {
		t.Errorf("manager args %v", args(t, objs, "manager"))
	}
	checkDelegator(t, objs, operatorSA, false)
	ep := endpoint(t, find(objs, "ServiceMonitor", operatorSA))
	if ep["scheme"] != "http" || ep["bearerTokenFile"] != nil || ep["port"] != "metrics" {
		t.Errorf("operator endpoint %v, want plain http on port metrics", ep)
	}
}

func checkServiceMonitors(t *testing.T, objs []*unstructured.Unstructured) {
	sm := find(objs, "ServiceMonitor", operatorSA)
	ep := endpoint(t, sm)
	tlsCfg, _ := ep["tlsConfig"].(map[string]any)
	if ep["scheme"] != "https" || ep["port"] != "metrics" || ep["path"] != "/metrics" || ep["interval"] != "30s" ||
		ep["bearerTokenFile"] != "/var/run/secrets/kubernetes.io/serviceaccount/token" || tlsCfg["insecureSkipVerify"] != true {
		t.Errorf("operator endpoint %v", ep)
	}
	if sm.GetLabels()["release"] != "kps" {
		t.Errorf("ServiceMonitor labels %v lack release=kps", sm.GetLabels())
	}
	// Its selector picks the operator's metrics Service, not the MCP Service.
	sel := selector(t, sm, "spec", "selector", "matchLabels")
	if svc := find(objs, "Service", "-metrics"); !sel.Matches(labelsOf(svc)) || sel.Matches(labelsOf(find(objs, "Service", "-mcp"))) {
		t.Errorf("operator ServiceMonitor selector %v", sel)
	}
	mcp := find(objs, "ServiceMonitor", "-mcp")
	mep := endpoint(t, mcp)
	if mep["port"] != "mcp" || mep["path"] != "/metrics" || mep["bearerTokenFile"] == nil {
		t.Errorf("MCP endpoint %v", mep)
	}
	if msel := selector(t, mcp, "spec", "selector", "matchLabels"); !msel.Matches(labelsOf(find(objs, "Service", "-mcp"))) {
		t.Errorf("MCP ServiceMonitor selector %v does not pick the MCP Service", msel)
	}
	b := find(objs, "ClusterRoleBinding", "-metrics-reader")
	subj, _ := nested(t, b, "subjects").([]any)
	if len(subj) != 1 || subj[0].(map[string]any)["name"] != "prometheus" || nested(t, b, "roleRef", "name") != operatorSA+"-metrics-reader" {
		t.Errorf("metrics-reader binding %v", b.Object)
	}
}

func checkMCPTokenScrape(t *testing.T, objs []*unstructured.Unstructured) {
	ep := endpoint(t, find(objs, "ServiceMonitor", "-mcp"))
	auth, _ := ep["authorization"].(map[string]any)
	cred, _ := auth["credentials"].(map[string]any)
	if ep["bearerTokenFile"] != nil || auth["type"] != "Bearer" || cred["name"] != "mcp-token" || cred["key"] != "token" {
		t.Errorf("MCP endpoint %v, want the token Secret's credentials", ep)
	}
}

func checkNoMCPServiceMonitor(t *testing.T, objs []*unstructured.Unstructured) {
	if k := kinds(objs); len(k["ServiceMonitor"]) != 1 {
		t.Errorf("ServiceMonitors %v, want the operator's only", k["ServiceMonitor"])
	}
}

func checkMetricsOff(t *testing.T, objs []*unstructured.Unstructured) {
	if k := kinds(objs); len(k["ServiceMonitor"]) != 0 || find(objs, "ClusterRole", "-metrics-reader") != nil ||
		find(objs, "Service", "-metrics") != nil {
		t.Errorf("metrics objects rendered with metrics off: %v", k)
	}
	checkDelegator(t, objs, operatorSA, false)
}

func checkDashboard(t *testing.T, objs []*unstructured.Unstructured) {
	cm := find(objs, "ConfigMap", "-dashboard")
	if cm == nil || cm.GetLabels()["grafana_dashboard"] != "1" || cm.GetNamespace() != "monitoring" ||
		cm.GetAnnotations()["grafana_folder"] != "CWAC" {
		t.Fatalf("dashboard ConfigMap %v", cm)
	}
	want, err := os.ReadFile("../../charts/cwac-operator/files/dashboards/cwac-operator.json")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := nested(t, cm, "data", "cwac-operator.json").(string)
	var dash map[string]any
	if err := json.Unmarshal([]byte(got), &dash); err != nil || dash["uid"] != "cwac-operator" {
		t.Errorf("the ConfigMap's dashboard is not the JSON dashboard (%v)", err)
	}
	if strings.TrimSpace(got) != strings.TrimSpace(string(want)) {
		t.Error("the ConfigMap's dashboard differs from files/dashboards/cwac-operator.json")
	}
}

func labelsOf(o *unstructured.Unstructured) labels.Set {
	if o == nil {
		return nil
	}
	return o.GetLabels()
}

// checkDelegator: the operator's account is bound to system:auth-delegator
// exactly when want.
func checkDelegator(t *testing.T, objs []*unstructured.Unstructured, sa string, want bool) {
	t.Helper()
	got := false
	for _, g := range grantsOf(t, objs, "cwac-metrics", sa) {
		got = got || (g.Kind == "ClusterRole" && g.Name == "system:auth-delegator")
	}
	if got != want {
		t.Errorf("operator bound to system:auth-delegator: %v, want %v", got, want)
	}
}

func TestHelmLintWithMetricsObjects(t *testing.T) {
	out := run(t, helmBin(t), "lint", "../../charts/cwac-operator", "--kube-version", "1.37.1", "--strict",
		"--set", "metrics.serviceMonitor.enabled=true", "--set", "dashboard.enabled=true")
	if !strings.Contains(string(out), "0 chart(s) failed") {
		t.Errorf("helm lint: %s", out)
	}
	for _, set := range []string{
		"metrics.secure=maybe", "metrics.serviceMonitor.interval=often", "dashboard.labels.x=1", "metrics.reader.subjects[0].kind=Robot",
	} {
		a := append([]string{"template", "cwac", "../../charts/cwac-operator", "--kube-version", "1.37.1"}, setArgs([]string{set})...)
		if set == "metrics.reader.subjects[0].kind=Robot" {
			a = append(a, "--set", "metrics.reader.subjects[0].name=r")
		}
		out, err := runErr(t, a...)
		if err == nil || !strings.Contains(out, "values don't meet the specifications of the schema") {
			t.Errorf("--set %s: err %v\n%s", set, err, out)
		}
	}
}

// TestChartRBACServesSecureMetrics runs the operator as the chart's service
// account with its secure metrics endpoint: the chart's RBAC lets it review
// scrapers' tokens and rights, and a scraper bound to the metrics-reader
// ClusterRole (metrics.reader.subjects) reads the CWAC metrics while one
// without it is refused.
func TestChartRBACServesSecureMetrics(t *testing.T) {
	const ns = "rbac-metrics"
	objs := render(t, ns, "metrics.reader.subjects[0].kind=ServiceAccount", "metrics.reader.subjects[0].name=prometheus",
		"metrics.reader.subjects[0].namespace="+ns)
	sa := installRBAC(t, objs)
	scraper := tokenFor(t, ns, "prometheus")
	stranger := tokenFor(t, ns, "stranger")

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	mgr, err := ctrl.NewManager(as(sa.operator), ctrl.Options{
		Scheme: scheme, Metrics: controller.MetricsServerOptions(addr, true, t.TempDir()), HealthProbeBindAddress: "0",
		Cache: cache.Options{ByObject: controller.CacheByObject()},
	})
	if err != nil {
		t.Fatal(err)
	}
	opts := scanjob.Options{ResultsPVC: "cwac-results", DefaultImage: "cwac:m", RunnerImage: "cwac-operator:m", CWACDir: "/cwac",
		Resources: scanjob.DefaultResources()}
	if err := controller.Setup(mgr, controller.Options{JobOptions: opts, SkipNameValidation: true}); err != nil {
		t.Fatal(err)
	}
	unregister, err := controller.SetupMetrics(mgr, ctrlmetrics.Registry)
	if err != nil {
		t.Fatal(err)
	}
	defer unregister()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = mgr.Start(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	get := func(token string) (int, string) {
		hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
			TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // the endpoint's self-signed certificate, on loopback
		}}
		req, _ := http.NewRequest(http.MethodGet, "https://"+addr+"/metrics", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := hc.Do(req)
		if err != nil {
			return 0, err.Error()
		}
		defer func() { _ = resp.Body.Close() }()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	var body string
	waitFor(t, "the scraper to read the CWAC metrics", func() (bool, string) {
		var code int
		code, body = get(scraper)
		return code == http.StatusOK && strings.Contains(body, "cwac_scan_collector_up 1"), body[:min(len(body), 300)]
	})
	if code, b := get(stranger); code != http.StatusForbidden || strings.Contains(b, "cwac_") {
		t.Errorf("a token without GET /metrics: HTTP %d %.200s", code, b)
	}
}

// runErr runs helm and returns its combined output and error.
func runErr(t *testing.T, args ...string) (string, error) {
	t.Helper()
	out, err := exec.Command(helmBin(t), args...).CombinedOutput()
	return string(out), err
}
