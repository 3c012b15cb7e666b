//go:build integration

// Package cluster runs the product end to end on the real single-node cluster
// of hack/cluster/ (a real kubelet runs the scan pods): hack/cluster/e2e.sh
// brings the cluster up, deploys the chart and runs these tests with
// CWAC_E2E_KUBECONFIG set. Without it they are skipped.
package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/testutil/wait"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/rand"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/results"
)

const ns = "cwac-system"

var (
	k8s        client.Client
	kubeconfig string
	siteURL    string
	resultsDir string
	kubectl    string
)

func TestMain(m *testing.M) {
	kubeconfig = os.Getenv("CWAC_E2E_KUBECONFIG")
	if kubeconfig == "" {
		fmt.Println("cluster e2e: CWAC_E2E_KUBECONFIG is not set; run hack/cluster/e2e.sh (as root) to run these tests on a real cluster")
		os.Exit(m.Run())
	}
	siteURL, resultsDir = os.Getenv("CWAC_E2E_SITE"), os.Getenv("CWAC_E2E_RESULTS")
	kubectl, _ = filepath.Abs("../../bin/k8s/1.37.1-linux-amd64/kubectl")
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(cwacv1alpha1.AddToScheme(scheme))
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if k8s, err = client.New(cfg, client.Options{Scheme: scheme}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

func need(t *testing.T) {
	t.Helper()
	if k8s == nil {
		t.Skip("no cluster: run hack/cluster/e2e.sh")
	}
}

func ctx() context.Context { return context.Background() }

func timing(name string, d time.Duration) {
	fmt.Printf("TIMING %s %.2fs\n", name, d.Seconds())
}

// newScan creates a scan of the test site; knobs go in the audit name (the
// stand-in reads standin-exit-N, standin-sleep-S, standin-memory-M from it).
func newScan(t *testing.T, prefix string, mutate func(*cwacv1alpha1.CwacScanSpec)) *cwacv1alpha1.CwacScan {
	t.Helper()
	spec := cwacv1alpha1.CwacScanSpec{
		Sites:           []cwacv1alpha1.Site{{URL: siteURL, Organisation: "CWAC Test Org", Sector: "Test Sector"}},
		Plugins:         map[string]bool{"focus_indicator_audit": true, "screenshot_audit": true, "element_audit": true},
		ConfigOverrides: map[string]apiextensionsv1.JSON{"only_allow_https": {Raw: []byte("false")}},
	}
	if mutate != nil {
		mutate(&spec)
	}
	scan := &cwacv1alpha1.CwacScan{ObjectMeta: metav1.ObjectMeta{Name: prefix + "-" + rand.String(5), Namespace: ns}, Spec: spec}
	if err := k8s.Create(ctx(), scan); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(ctx(), scan) })
	return scan
}

func get(t *testing.T, name string) *cwacv1alpha1.CwacScan {
	t.Helper()
	s := &cwacv1alpha1.CwacScan{}
	if err := k8s.Get(ctx(), client.ObjectKey{Namespace: ns, Name: name}, s); err != nil {
		t.Fatal(err)
	}
	return s
}

func waitFor(t *testing.T, what string, timeout time.Duration, cond func() (bool, string)) {
	t.Helper()
	wait.For(t, what, timeout, cond)
}

func waitPhase(t *testing.T, name string, phase cwacv1alpha1.Phase, timeout time.Duration) *cwacv1alpha1.CwacScan {
	t.Helper()
	var s *cwacv1alpha1.CwacScan
	waitFor(t, name+" to be "+string(phase), timeout, func() (bool, string) {
		s = get(t, name)
		return s.Status.Phase == phase, fmt.Sprintf("%s: %s", s.Status.Phase, s.Status.Message)
	})
	return s
}

func scanPods(t *testing.T, job string) []corev1.Pod {
	t.Helper()
	pods := &corev1.PodList{}
	if err := k8s.List(ctx(), pods, client.InNamespace(ns), client.MatchingLabels{batchv1.JobNameLabel: job}); err != nil {
		t.Fatal(err)
	}
	return pods.Items
}

func failedReason(s *cwacv1alpha1.CwacScan) string {
	if c := meta.FindStatusCondition(s.Status.Conditions, "Failed"); c != nil {
		return c.Reason
	}
	return ""
}

func run(t *testing.T, name string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(name, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

func TestScanCompletesOnARealKubelet(t *testing.T) {
	need(t)
	scan := newScan(t, "complete", nil)
	created := get(t, scan.Name).CreationTimestamp.Time
	done := waitPhase(t, scan.Name, cwacv1alpha1.PhaseComplete, 3*time.Minute)
	s := done.Status.Summary
	if s == nil || s.PagesScanned != 4 || s.TotalIssues != 17 || s.IssuesByImpact["critical"] != 6 || *done.Status.ExitCode != 0 {
		t.Fatalf("status = %+v", done.Status)
	}
	pods := scanPods(t, done.Status.JobName)
	if len(pods) != 1 {
		t.Fatalf("%d pods", len(pods))
	}
	pod := pods[0]
	for _, cs := range pod.Status.ContainerStatuses {
		if term := cs.State.Terminated; term != nil {
			timing("scan_created_to_pod_running", term.StartedAt.Sub(created))
			timing("pod_finished_to_status_complete", done.Status.CompletionTime.Sub(term.FinishedAt.Time))
			if !strings.Contains(term.Message, `"outcome":"complete"`) {
				t.Errorf("termination message = %s", term.Message)
			}
		}
	}
	// Results on the volume at the recorded path.
	dir := filepath.Join(resultsDir, done.Status.ResultsPath)
	sum, err := results.Summarize(dir, results.Options{})
	if err != nil || sum.TotalIssues != 17 {
		t.Errorf("results at %s: %v %+v", dir, err, sum)
	}
	for _, f := range []string{"summary.json", "report.html", "leaderboard.csv", "axe_core_audit.csv"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("results file: %v", err)
		}
	}
	// ConfigMap and Job owned by the scan.
	job := &batchv1.Job{}
	cm := &corev1.ConfigMap{}
	_ = k8s.Get(ctx(), client.ObjectKey{Namespace: ns, Name: done.Status.JobName}, job)
	_ = k8s.Get(ctx(), client.ObjectKey{Namespace: ns, Name: done.Status.JobName}, cm)
	for _, o := range []metav1.Object{job, cm} {
		if ref := metav1.GetControllerOf(o); ref == nil || ref.UID != done.UID {
			t.Errorf("%s/%s not owned by the scan", o.GetNamespace(), o.GetName())
		}
	}
	// The image is laid out as CWAC's own Dockerfile builds CWAC's (no
	// config/): CWAC's defaults came from the chart's cwac.defaultConfig,
	// through the scan's ConfigMap.
	defaults, err := os.ReadFile("../standin-cwac/config/config_default.json")
	if err != nil || cm.Data["config_default.json"] != string(defaults) {
		t.Errorf("the scan's ConfigMap lacks the operator's copy of CWAC's defaults (%v): keys %v", err, keysOf(cm.Data))
	}
	if img := pod.Spec.Containers[0].Image; !strings.HasSuffix(img, "cwac-standin:dev") {
		t.Errorf("scanned with %s, want the image without config/", img)
	}
	logs, _ := run(t, kubectl, "--kubeconfig", kubeconfig, "-n", ns, "logs", pod.Name, "-c", "cwac")
	if !defaultsFrom(logs, "/scan/config_default.json") {
		t.Errorf("the runner did not take CWAC's defaults from the ConfigMap:\n%s", logs)
	}
	// Memory for one browser thread (threadCount defaults to 1).
	if r := pod.Spec.Containers[0].Resources; r.Requests.Memory().String() != "512Mi" || r.Limits.Memory().String() != "1Gi" {
		t.Errorf("resources %v", r)
	}
	// Every phase change the scan went through has its Event.
	phaseEvents(t, done, "Complete")
	// The hardened pod shape, as the kubelet ran it.
	if *pod.Spec.AutomountServiceAccountToken || !*pod.Spec.Containers[0].SecurityContext.ReadOnlyRootFilesystem {
		t.Error("scan pod not hardened")
	}
	for _, m := range pod.Spec.Containers[0].VolumeMounts {
		if strings.Contains(m.MountPath, "serviceaccount") {
			t.Errorf("service-account token mounted at %s", m.MountPath)
		}
	}
}

// TestHardenedPodAtRuntime looks inside a running scan pod.
func TestHardenedPodAtRuntime(t *testing.T) {
	need(t)
	scan := newScan(t, "hardened", func(s *cwacv1alpha1.CwacScanSpec) { s.AuditName = "standin-sleep-30" })
	running := waitPhase(t, scan.Name, cwacv1alpha1.PhaseRunning, 2*time.Minute)
	pod := scanPods(t, running.Status.JobName)[0]
	probe := `import os, json
r = {"uid": os.getuid(), "gid": os.getgid()}
for p in ["/", "/cwac", "/usr"]:
    try:
        open(os.path.join(p, "x"), "w"); r[p] = "writable"
    except OSError as e:
        r[p] = e.strerror
r["token"] = os.path.exists("/var/run/secrets/kubernetes.io/serviceaccount/token")
r["tmp_writable"] = os.access("/tmp", os.W_OK)
st = os.stat("/cwac/nltk_data")
r["nltk_data"] = "%o %d:%d" % (st.st_mode & 0o7777, st.st_uid, st.st_gid)
r["image_config"] = os.path.exists("/cwac/config")
r["venv_python"] = os.path.realpath("/cwac/.venv/bin/python")
print(json.dumps(r))`
	out, err := run(t, kubectl, "--kubeconfig", kubeconfig, "-n", ns, "exec", pod.Name, "-c", "cwac", "--", "/usr/bin/python3", "-c", probe)
	if err != nil {
		t.Fatalf("exec: %v\n%s", err, out)
	}
	var r map[string]any
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &r); err != nil {
		t.Fatalf("probe output %q", out)
	}
	if r["uid"] != 1000.0 || r["token"] != false || r["tmp_writable"] != true {
		t.Errorf("probe = %v", r)
	}
	// The stand-in image is laid out as CWAC's own Dockerfile builds CWAC's.
	if r["nltk_data"] != "700 1000:1000" || r["image_config"] != false || !strings.HasPrefix(fmt.Sprint(r["venv_python"]), "/usr/bin/python3") {
		t.Errorf("image layout: %v", r)
	}
	for _, p := range []string{"/", "/cwac", "/usr"} {
		if r[p] != "Read-only file system" {
			t.Errorf("%s: %v, want read-only", p, r[p])
		}
	}
	// The runner's stdout reaches the pod log (what cwac_scan_status shows).
	logs, _ := run(t, kubectl, "--kubeconfig", kubeconfig, "-n", ns, "logs", pod.Name, "-c", "cwac")
	if !strings.Contains(logs, "starting CWAC") {
		t.Errorf("pod log: %s", logs)
	}
}

func TestFailingScanReportsStderr(t *testing.T) {
	need(t)
	scan := newScan(t, "fails", func(s *cwacv1alpha1.CwacScanSpec) { s.AuditName = "standin-exit-3" })
	s := waitPhase(t, scan.Name, cwacv1alpha1.PhaseFailed, 2*time.Minute)
	const cause = "RuntimeError: stand-in asked to fail with exit code 3"
	if failedReason(s) != "CWACExitedNonZero" || *s.Status.ExitCode != 3 || !strings.Contains(s.Status.Message, cause) {
		t.Errorf("status = %s %v %q", failedReason(s), s.Status.ExitCode, s.Status.Message)
	}
	phaseEvents(t, s, "Failed")
}

// TestMemoryFollowsThreads: with no resources of its own, a scan gets
// threadCount x 512Mi requested and threadCount x 1Gi limit, and runs.
func TestMemoryFollowsThreads(t *testing.T) {
	need(t)
	scan := newScan(t, "threads", func(s *cwacv1alpha1.CwacScanSpec) { s.ThreadCount = 4 })
	done := waitPhase(t, scan.Name, cwacv1alpha1.PhaseComplete, 3*time.Minute)
	pods := scanPods(t, done.Status.JobName)
	if len(pods) != 1 {
		t.Fatalf("%d pods", len(pods))
	}
	r := pods[0].Spec.Containers[0].Resources
	if r.Requests.Memory().String() != "2Gi" || r.Limits.Memory().String() != "4Gi" || r.Requests.Cpu().String() != "500m" {
		t.Errorf("threadCount 4: resources %v, want 2Gi requested, 4Gi limit, 500m CPU", r)
	}
}

// defaultsFrom: the runner's log says it read CWAC's defaults from path.
func defaultsFrom(logs, path string) bool {
	for _, line := range strings.Split(logs, "\n") {
		if strings.Contains(line, `"msg":"CWAC defaults"`) && strings.Contains(line, `"from":"`+path+`"`) {
			return true
		}
	}
	return false
}

func keysOf(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// phaseEvents checks, with the kubectl a user would run, that the scan has
// an Event for each of the given phase changes (their notes start with
// "<Phase>: ") and none for the steps between, which are status only
// (docs/scans.md, "Events").
func phaseEvents(t *testing.T, scan *cwacv1alpha1.CwacScan, phases ...string) {
	t.Helper()
	waitFor(t, fmt.Sprintf("Events for phases %v", phases), 30*time.Second, func() (bool, string) {
		out, err := run(t, kubectl, "--kubeconfig", kubeconfig, "-n", scan.Namespace, "get", "events.events.k8s.io",
			"--field-selector", "regarding.name="+scan.Name, "-o", `jsonpath={range .items[*]}{.reason}|{.note}{"\n"}{end}`)
		if err != nil {
			return false, out
		}
		for _, p := range phases {
			if !strings.Contains(out, "|"+p+": ") {
				return false, out
			}
		}
		for _, step := range []string{"Pending", "Queued", "Running"} {
			if strings.Contains(out, "|"+step+": ") {
				t.Errorf("an Event for the intermediate step %s:\n%s", step, out)
			}
		}
		if strings.Contains(out, "JobCreated|") {
			t.Errorf("an Event for the intermediate step JobCreated:\n%s", out)
		}
		return true, out
	})
}

func TestDeadlineExceeded(t *testing.T) {
	need(t)
	t.Parallel()
	scan := newScan(t, "deadline", func(s *cwacv1alpha1.CwacScanSpec) { s.AuditName = "standin-sleep-600"; s.Timeout = "1m" })
	s := waitPhase(t, scan.Name, cwacv1alpha1.PhaseFailed, 3*time.Minute)
	if failedReason(s) != "DeadlineExceeded" {
		t.Errorf("reason = %s: %s", failedReason(s), s.Status.Message)
	}
	waitFor(t, "the pod to be gone", time.Minute, func() (bool, string) {
		for _, p := range scanPods(t, s.Status.JobName) {
			if p.DeletionTimestamp == nil && p.Status.Phase == corev1.PodRunning {
				return false, p.Name + " still running"
			}
		}
		return true, ""
	})
}

func TestOOMKilled(t *testing.T) {
	need(t)
	scan := newScan(t, "oom", func(s *cwacv1alpha1.CwacScanSpec) {
		s.AuditName = "standin-memory-600"
		s.Resources = &corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: mustQuantity("128Mi")}}
	})
	s := waitPhase(t, scan.Name, cwacv1alpha1.PhaseFailed, 2*time.Minute)
	if failedReason(s) != "OOMKilled" {
		t.Errorf("reason = %s: %s", failedReason(s), s.Status.Message)
	}
}

func TestMissingImageShowsWhilePending(t *testing.T) {
	need(t)
	scan := newScan(t, "noimage", func(s *cwacv1alpha1.CwacScanSpec) { s.Image = "cwac-does-not-exist:none" })
	waitFor(t, "Degraded with an image reason", 2*time.Minute, func() (bool, string) {
		s := get(t, scan.Name)
		c := meta.FindStatusCondition(s.Status.Conditions, "Degraded")
		if c == nil {
			return false, string(s.Status.Phase)
		}
		return s.Status.Phase == cwacv1alpha1.PhasePending && (c.Reason == "ErrImagePull" || c.Reason == "ImagePullBackOff"), c.Reason + ": " + c.Message
	})
}

func TestDeletingARunningScanRemovesItsJobAndPod(t *testing.T) {
	need(t)
	scan := newScan(t, "delete", func(s *cwacv1alpha1.CwacScanSpec) { s.AuditName = "standin-sleep-120" })
	running := waitPhase(t, scan.Name, cwacv1alpha1.PhaseRunning, 2*time.Minute)
	if err := k8s.Delete(ctx(), scan, client.PropagationPolicy(metav1.DeletePropagationForeground)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the Job and its pod to be deleted", 2*time.Minute, func() (bool, string) {
		job := &batchv1.Job{}
		err := k8s.Get(ctx(), client.ObjectKey{Namespace: ns, Name: running.Status.JobName}, job)
		pods := scanPods(t, running.Status.JobName)
		return err != nil && len(pods) == 0, fmt.Sprintf("job err %v, %d pods", err, len(pods))
	})
}

func TestConcurrencyCapOnTheCluster(t *testing.T) {
	need(t)
	var names []string
	for i := 0; i < 3; i++ {
		names = append(names, newScan(t, fmt.Sprintf("cap%d", i), func(s *cwacv1alpha1.CwacScanSpec) { s.AuditName = "standin-sleep-8" }).Name)
		time.Sleep(1100 * time.Millisecond)
	}
	maxRunning, sawQueued := 0, false
	waitFor(t, "all three to complete", 3*time.Minute, func() (bool, string) {
		running, complete := 0, 0
		for _, n := range names {
			s := get(t, n)
			switch s.Status.Phase {
			case cwacv1alpha1.PhaseQueued:
				sawQueued = true
			case cwacv1alpha1.PhaseComplete:
				complete++
			}
			if s.Status.JobName != "" {
				for _, p := range scanPods(t, s.Status.JobName) {
					if p.Status.Phase == corev1.PodRunning || p.Status.Phase == corev1.PodPending {
						running++
					}
				}
			}
		}
		maxRunning = max(maxRunning, running)
		return complete == 3, fmt.Sprintf("%d scan pods running, %d complete", running, complete)
	})
	if maxRunning > 2 || !sawQueued {
		t.Errorf("cap 2: at most %d scan pods ran at once, queued seen: %v", maxRunning, sawQueued)
	}
}

func TestOperatorRestartMidScan(t *testing.T) {
	need(t)
	scan := newScan(t, "restart", func(s *cwacv1alpha1.CwacScanSpec) { s.AuditName = "standin-sleep-20" })
	running := waitPhase(t, scan.Name, cwacv1alpha1.PhaseRunning, 2*time.Minute)
	out, err := run(t, kubectl, "--kubeconfig", kubeconfig, "-n", ns, "delete", "pod", "-l", "app.kubernetes.io/name=cwac-operator", "--wait=true")
	if err != nil {
		t.Fatalf("%v %s", err, out)
	}
	done := waitPhase(t, scan.Name, cwacv1alpha1.PhaseComplete, 3*time.Minute)
	jobs := &batchv1.JobList{}
	_ = k8s.List(ctx(), jobs, client.InNamespace(ns))
	n := 0
	for _, j := range jobs.Items {
		if metav1.IsControlledBy(&j, done) {
			n++
		}
	}
	if n != 1 || done.Status.JobName != running.Status.JobName {
		t.Errorf("%d Jobs for the scan; job %s → %s", n, running.Status.JobName, done.Status.JobName)
	}
}

// TestMCPOverStreamableHTTP: a real MCP client (npm @modelcontextprotocol/sdk)
// reaches the MCP server's own pod (the chart's MCP Deployment, on the node's
// loopback here) over HTTP with a service-account token whose RBAC allows
// scans, runs one to completion, and reads its results and the report the
// scan pod wrote (the MCP server reads the results volume read-only).
func TestMCPOverStreamableHTTP(t *testing.T) {
	need(t)
	name := "e2e-mcp-" + rand.String(4)
	manifest := fmt.Sprintf(`apiVersion: v1
kind: ServiceAccount
metadata: {name: %[1]s, namespace: %[2]s}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: %[1]s, namespace: %[2]s}
rules:
- {apiGroups: [cwac.a11y.dev], resources: [cwacscans], verbs: [create, get, list, update]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: %[1]s, namespace: %[2]s}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: %[1]s}
subjects: [{kind: ServiceAccount, name: %[1]s, namespace: %[2]s}]
`, name, ns)
	cmd := exec.Command(kubectl, "--kubeconfig", kubeconfig, "apply", "-f", "-")
	cmd.Stdin = strings.NewReader(manifest)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	token, err := run(t, kubectl, "--kubeconfig", kubeconfig, "-n", ns, "create", "token", name)
	if err != nil {
		t.Fatalf("%v %s", err, token)
	}
	script, _ := filepath.Abs("../mcp-e2e/client.mjs")
	node := exec.Command("node", script, "http")
	node.Env = append(os.Environ(), "MCP_URL=http://127.0.0.1:8090/mcp", "MCP_TOKEN="+strings.TrimSpace(token), "SCAN_URL="+siteURL)
	var stdout, stderr bytes.Buffer
	node.Stdout, node.Stderr = &stdout, &stderr
	if err := node.Run(); err != nil {
		t.Fatalf("MCP client: %v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	var obs map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &obs); err != nil {
		t.Fatalf("client output: %s", stdout.String())
	}
	str := func(path ...string) string {
		var v any = obs
		for _, p := range path {
			m, _ := v.(map[string]any)
			v = m[p]
		}
		s, _ := v.(string)
		if s == "" {
			b, _ := json.Marshal(v)
			s = string(b)
		}
		return s
	}
	if !strings.Contains(str("anonymous"), "bearer token is required") {
		t.Errorf("anonymous client: %s", str("anonymous"))
	}
	if str("finalStatus", "ok", "status") != "complete" {
		t.Fatalf("final status: %s", str("finalStatus"))
	}
	if str("summary", "ok", "total_issues") != "17" || str("summary", "ok", "pages_scanned") != "4" {
		t.Errorf("summary: %s", str("summary"))
	}
	if !strings.Contains(str("metadata", "error"), "not allowed (link-local)") {
		t.Errorf("metadata URL: %s", str("metadata"))
	}
	// The report is the scan pod's own file, read from the read-only volume.
	if str("report", "ok", "generated") != "false" {
		t.Errorf("report: %s", str("report"))
	}
	report := filepath.Join(resultsDir, str("report", "ok", "report_html"))
	if data, err := os.ReadFile(report); err != nil || !strings.Contains(string(data), "<strong>17</strong> issues") {
		t.Errorf("report %s: %v", report, err)
	}
	id := str("scan", "ok", "scan_id")
	if s := get(t, id); s.Annotations["cwac.a11y.dev/mcp-caller"] != "kubernetes:system:serviceaccount:"+ns+":"+name {
		t.Errorf("caller annotation = %q", s.Annotations["cwac.a11y.dev/mcp-caller"])
	}
	_ = k8s.Delete(ctx(), get(t, id))
}
