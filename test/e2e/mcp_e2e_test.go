//go:build integration

// Package e2e drives the built binaries with real clients. The MCP test runs
// the official MCP TypeScript client (npm @modelcontextprotocol/sdk) against
// the built mcp-server over stdio and streamable HTTP, with the operator's
// controller running in-process against a real API server (envtest) and the
// kubelet and Job controller played by kubesim.
package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/testutil/freeport"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/controller"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/scanjob"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
	"github.com/a11y-dev/cwac-operator/internal/testutil/files"
	"github.com/a11y-dev/cwac-operator/internal/testutil/kubesim"
)

const fixture = "../../testdata/cwac-results/2026-11-21_23-18-23_real-scan-1"

type cluster struct {
	k8s        client.Client
	kubeconfig string
	namespace  string
	root       string
}

func startCluster(t *testing.T) *cluster {
	t.Helper()
	logf.SetLogger(zap.New(zap.WriteTo(io.Discard)))
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		assets, _ = filepath.Abs("../../bin/k8s/1.37.1-linux-amd64")
	}
	env := &envtest.Environment{
		CRDDirectoryPaths: []string{"../../config/crd/bases"}, ErrorIfCRDPathMissing: true, BinaryAssetsDirectory: assets,
	}
	cfg, err := env.Start()
	if err != nil {
		t.Fatalf("starting envtest (run 'make envtest-assets'): %v", err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	user, err := env.AddUser(envtest.User{Name: "e2e-admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	kc, err := user.KubeConfig()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, kc, 0o600); err != nil {
		t.Fatal(err)
	}
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(cwacv1alpha1.AddToScheme(scheme))
	k8s, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "cwac-e2e"}}
	if err := k8s.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}

	// The operator's controller, in-process.
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Cache: cache.Options{ByObject: controller.CacheByObject()},
	})
	if err != nil {
		t.Fatal(err)
	}
	opts := scanjob.Options{
		ResultsPVC: "cwac-results", DefaultImage: "cwac:e2e", RunnerImage: "cwac-operator:e2e",
		CWACDir: "/cwac", Resources: scanjob.DefaultResources(),
	}
	if err := controller.Setup(mgr, controller.Options{JobOptions: opts, MaxConcurrentScans: 2, SkipNameValidation: true}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = mgr.Start(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })

	c := &cluster{k8s: k8s, kubeconfig: kubeconfig, namespace: ns.Name, root: filepath.Join(dir, "results")}
	go c.runScans(ctx, t)
	return c
}

// runScans plays the Job controller and kubelet for every scan Job: the pod
// runs for a moment, CWAC's real output lands on the "volume" at the Job's
// subPath, and the pod ends with the runner's report.
func (c *cluster) runScans(ctx context.Context, t *testing.T) {
	seen := map[string]bool{}
	for ctx.Err() == nil {
		time.Sleep(100 * time.Millisecond)
		jobs := &batchv1.JobList{}
		if err := c.k8s.List(ctx, jobs, client.InNamespace(c.namespace)); err != nil {
			continue
		}
		for i := range jobs.Items {
			job := &jobs.Items[i]
			if seen[job.Name] {
				continue
			}
			seen[job.Name] = true
			go c.runOne(ctx, t, job)
		}
	}
}

func (c *cluster) runOne(ctx context.Context, t *testing.T, job *batchv1.Job) {
	pod, err := kubesim.StartPod(ctx, c.k8s, job, kubesim.Running())
	if err != nil {
		t.Logf("starting pod: %v", err)
		return
	}
	time.Sleep(time.Second)
	var subPath string
	for _, m := range job.Spec.Template.Spec.Containers[0].VolumeMounts {
		if m.MountPath == "/results" {
			subPath = m.SubPath
		}
	}
	audit := "audit"
	cm := &corev1.ConfigMap{}
	if err := c.k8s.Get(ctx, client.ObjectKey{Namespace: job.Namespace, Name: job.Name}, cm); err == nil {
		var o map[string]any
		_ = json.Unmarshal([]byte(cm.Data["scan.json"]), &o)
		audit, _ = o["audit_name"].(string)
	}
	resultsDir := time.Now().UTC().Format("2006-01-02_15-04-05") + "_" + audit
	dst := filepath.Join(c.root, subPath, resultsDir)
	if err := files.CopyDir(fixture, dst); err != nil {
		t.Logf("copying results: %v", err)
		return
	}
	sum, err := results.Summarize(dst, results.Options{Duration: 1})
	if err != nil {
		t.Logf("summary: %v", err)
		return
	}
	// As the runner does: the full summary next to CWAC's files.
	sumJSON, _ := json.Marshal(sum)
	if err := os.WriteFile(filepath.Join(dst, results.SummaryFile), sumJSON, 0o644); err != nil {
		t.Logf("writing %s: %v", results.SummaryFile, err)
		return
	}
	report := scanpod.Report{Outcome: scanpod.OutcomeComplete, ResultsDir: resultsDir, Summary: sum, Message: "scanned 4 pages"}
	msg := string(scanpod.Encode(report, scanpod.MaxBytes))
	if err := kubesim.SetPodStatus(ctx, c.k8s, pod, kubesim.Terminated(0, "Completed", msg)); err != nil {
		t.Logf("pod status: %v", err)
		return
	}
	if err := kubesim.FinishJob(ctx, c.k8s, job, true, "", ""); err != nil {
		t.Logf("finishing job: %v", err)
	}
}

func buildMCPServer(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "mcp-server")
	out, err := exec.Command("go", "build", "-o", bin, "../../cmd/mcp-server").CombinedOutput()
	if err != nil {
		t.Fatalf("building mcp-server: %v\n%s", err, out)
	}
	return bin
}

func nodeClient(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("node is required for the MCP end-to-end test: %v", err)
	}
	dir, _ := filepath.Abs("../mcp-e2e")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		t.Fatalf("the MCP client is not installed: run hack/npm-deps.sh (%v)", err)
	}
	return filepath.Join(dir, "client.mjs")
}

// runClient runs the Node client and decodes its observations.
func runClient(t *testing.T, script string, env []string, args ...string) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", append([]string{script}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("MCP client: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), tail(stderr.String(), 4000))
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	var obs map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &obs); err != nil {
		t.Fatalf("client output is not JSON: %v\n%s", err, stdout.String())
	}
	return obs
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

func TestMCPWithRealClient(t *testing.T) {
	c := startCluster(t)
	bin := buildMCPServer(t)
	script := nodeClient(t)
	if err := os.MkdirAll(c.root, 0o755); err != nil {
		t.Fatal(err)
	}
	// The scanned site is served on loopback, so the scan-target policy is
	// opened for 127.0.0.0/8 explicitly (the documented opt-in for tests).
	site := httptest.NewServer(http.FileServer(http.Dir("../../testdata/a11y-site")))
	defer site.Close()
	serverArgs := []string{"--namespace=" + c.namespace, "--results-root=" + c.root, "--kubeconfig=" + c.kubeconfig, "--url-allow-cidrs=127.0.0.0/8"}

	t.Run("stdio", func(t *testing.T) {
		args, _ := json.Marshal(append([]string{"--transport=stdio"}, serverArgs...))
		obs := runClient(t, script, []string{"MCP_COMMAND=" + bin, "MCP_ARGS=" + string(args), "SCAN_URL=" + site.URL + "/"}, "stdio")
		checkWalk(t, c, obs, "stdio")
	})

	t.Run("http", func(t *testing.T) {
		port := freeport.Port(t)
		addr := fmt.Sprintf("127.0.0.1:%d", port)
		var logs syncBuf
		tokenFile := filepath.Join(t.TempDir(), "token")
		if err := os.WriteFile(tokenFile, []byte("e2e-bearer-token\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		srv := exec.Command(bin, append([]string{"--transport=http", "--listen=" + addr, "--auth=token", "--auth-token-file=" + tokenFile}, serverArgs...)...)
		srv.Stdout, srv.Stderr = &logs, &logs
		if err := srv.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = srv.Process.Kill(); _ = srv.Wait() })
		waitHealthy(t, "http://"+addr+"/health")
		obs := runClient(t, script, []string{"MCP_URL=http://" + addr + "/mcp", "MCP_TOKEN=e2e-bearer-token", "SCAN_URL=" + site.URL + "/"}, "http")
		if a, _ := obs["anonymous"].(string); !strings.Contains(a, "unauthenticated: a bearer token is required") {
			t.Errorf("a client without the token: %q, want it refused", a)
		}
		checkWalk(t, c, obs, "http")
		// Every call left one audit line, with the caller's address.
		audit := 0
		sc := bufio.NewScanner(strings.NewReader(logs.String()))
		for sc.Scan() {
			if strings.Contains(sc.Text(), `"msg":"tool call"`) {
				audit++
				if !strings.Contains(sc.Text(), `"caller":"token:mcp-token"`) {
					t.Errorf("audit line without the caller: %s", sc.Text())
				}
			}
		}
		if audit < 12 {
			t.Errorf("%d audit lines for at least 12 tool calls", audit)
		}
	})
}

// observations are what the client saw: one entry per call.
type observations map[string]any

func (o observations) get(path ...string) any {
	var v any = map[string]any(o)
	for _, p := range path {
		m, _ := v.(map[string]any)
		v = m[p]
	}
	return v
}

func (o observations) str(path ...string) string { s, _ := o.get(path...).(string); return s }

// checkWalk asserts what the client saw.
func checkWalk(t *testing.T, c *cluster, raw map[string]any, mode string) {
	t.Helper()
	obs := observations(raw)
	checkTools(t, obs)
	checkRefusals(t, obs, mode)
	id := obs.str("scan", "ok", "scan_id")
	if obs.str("scan", "ok", "status") != "started" || id == "" {
		t.Fatalf("scan = %v", obs["scan"])
	}
	checkReads(t, c, obs, id)
	checkReport(t, c, obs)
	// The refused calls created nothing: one scan per walk.
	list := &cwacv1alpha1.CwacScanList{}
	if err := c.k8s.List(context.Background(), list, client.InNamespace(c.namespace)); err != nil {
		t.Fatal(err)
	}
	mine := 0
	for _, s := range list.Items {
		if s.Spec.AuditName == "e2e-"+mode {
			mine++
		}
	}
	if mine != 1 {
		t.Errorf("%d scans named e2e-%s, want 1", mine, mode)
	}
}

func checkTools(t *testing.T, obs observations) {
	t.Helper()
	tools, _ := obs["tools"].([]any)
	want := []string{
		"cwac_cancel_scan", "cwac_compare_scans", "cwac_decide", "cwac_generate_report", "cwac_get_broken_responses", "cwac_get_page_titles",
		"cwac_get_readability", "cwac_get_results", "cwac_get_summary", "cwac_get_templates",
		"cwac_issue_history", "cwac_list_scans", "cwac_organisation_trend", "cwac_scan", "cwac_scan_changes", "cwac_scan_status", "cwac_sector_trend",
	}
	names := make([]string, 0, len(tools))
	for _, tl := range tools {
		names = append(names, fmt.Sprint(tl.(map[string]any)["name"]))
	}
	slices.Sort(names)
	if !slices.Equal(names, want) {
		t.Errorf("tools = %v, want %v", names, want)
	}
	for _, tl := range tools {
		m := tl.(map[string]any)
		// every other tool only reads
		wantRO := m["name"] != "cwac_scan" && m["name"] != "cwac_cancel_scan" && m["name"] != "cwac_decide"
		if m["readOnly"] != wantRO || m["hasOutputSchema"] != true {
			t.Errorf("tool %v", m)
		}
	}
}

func checkRefusals(t *testing.T, obs observations, mode string) {
	t.Helper()
	expectErr := func(key, want string) {
		t.Helper()
		got := obs.str(key, "error") + obs.str(key, "thrown")
		if !strings.Contains(strings.ToLower(got), strings.ToLower(want)) {
			t.Errorf("%s: %v, want an error containing %q", key, obs[key], want)
		}
	}
	// The original CWAC MCP server's texts start their errors word for word,
	// in the same case: clients written for it match them case-sensitively.
	expectOriginal := func(key, original string) {
		t.Helper()
		if got := obs.str(key, "error"); !strings.HasPrefix(got, original) {
			t.Errorf("%s: %v, want an error starting with %q", key, obs[key], original)
		}
	}
	// Refused, in the original server's words, before the dry run.
	expectOriginal("noUrls", "At least one URL is required")
	expectOriginal("badUrl", "Invalid URL: file:///etc/passwd: only http and https URLs can be scanned")
	// Refused by the API server's validation of the CwacScan (a dry run).
	expectErr("unknownPlugin", "Invalid scan: plugins: Invalid value: unknown plugin name; valid plugins are: axe_core_audit,")
	expectErr("badMaxLinks", "Invalid scan: max_links_per_domain: Invalid value: -1: should be greater than or equal to 1")
	// Refused by the scan-target policy.
	expectErr("metadata", "is not allowed (link-local)")
	if mode == "http" {
		expectErr("oversized", "request body larger than 1048576 bytes")
	} else {
		expectOriginal("oversized", "Invalid URL: https://a.example/xxx")
		expectErr("oversized", "longer than 2048 characters")
	}
	expectOriginal("earlyResults", "Scan is still running. Check status first.")
	expectErr("traversalAuditType", "Invalid audit_type")
	expectErr("traversalScanId", "Invalid scan_id")
	expectOriginal("unknownScan", "No scan found with ID: no-such-scan")
}

// checkReads: the scan's life as status, results, summary and list saw it.
func checkReads(t *testing.T, c *cluster, obs observations, id string) {
	t.Helper()
	statuses, _ := json.Marshal(obs["statuses"])
	if obs.str("finalStatus", "ok", "status") != "complete" || !strings.Contains(string(statuses), "running") {
		t.Errorf("statuses %s, final %v", statuses, obs["finalStatus"])
	}
	if !strings.HasPrefix(obs.str("finalStatus", "ok", "results_dir"), c.namespace+"/"+id+"-") || obs.get("finalStatus", "ok", "exit_code") != 0.0 {
		t.Errorf("final status = %v", obs["finalStatus"])
	}
	if obs.get("results", "ok", "total_results") != 6.0 || obs.get("results", "ok", "returned_results") != 3.0 {
		t.Errorf("critical axe results = %v", obs["results"])
	}
	for key, source := range map[string]string{"summary": "summary.json", "recomputedSummary": "results"} {
		if obs.get(key, "ok", "source") != source || obs.get(key, "ok", "total_issues") != 17.0 || obs.get(key, "ok", "pages_scanned") != 4.0 ||
			obs.get(key, "ok", "issues_by_audit_type", "axe_core_audit") != 12.0 || obs.get(key, "ok", "issues_by_impact", "critical") != 6.0 {
			t.Errorf("%s = %v, want it from %s", key, obs[key], source)
		}
	}
	found := false
	scans, _ := obs.get("list", "ok", "scans").([]any)
	for _, s := range scans {
		found = found || s.(map[string]any)["scan_id"] == id
	}
	if !found {
		t.Errorf("list does not hold %s: %v", id, obs["list"])
	}
}

// checkReport: the scan pod here wrote no reports, so they come rendered in
// the answer; the MCP server writes nothing to the results volume.
func checkReport(t *testing.T, c *cluster, obs observations) {
	t.Helper()
	if obs.get("report", "ok", "generated") != true || !strings.Contains(obs.str("report", "ok", "report_html_content"), "<strong>17</strong> issues") ||
		!strings.HasPrefix(obs.str("report", "ok", "leaderboard_csv_content"), `"rank","organisation",`) {
		t.Errorf("report = %.500v", obs["report"])
	}
	resultsDir := filepath.Join(c.root, obs.str("finalStatus", "ok", "results_dir"))
	for _, name := range []string{"report.html", "leaderboard.csv"} {
		if _, err := os.Stat(filepath.Join(resultsDir, name)); err == nil {
			t.Errorf("%s was written into %s", name, resultsDir)
		}
	}
}

func waitHealthy(t *testing.T, url string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(url)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close() // drained and only read: nothing to lose
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s never became healthy", url)
}

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }
