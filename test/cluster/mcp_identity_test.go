//go:build integration

package cluster

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

const mcpServiceAccount = "cwac-cwac-operator-mcp"

// mcpPod is the running MCP server pod of the chart's MCP Deployment.
func mcpPod(t *testing.T) corev1.Pod {
	t.Helper()
	cs := clientset(t, nil)
	var pod corev1.Pod
	waitFor(t, "the MCP pod to be ready", time.Minute, func() (bool, string) {
		pods, err := cs.CoreV1().Pods(ns).List(ctx(), metav1.ListOptions{LabelSelector: "app.kubernetes.io/component=mcp-server,app.kubernetes.io/instance=cwac"})
		if err != nil {
			return false, err.Error()
		}
		for _, p := range pods.Items {
			if p.DeletionTimestamp != nil || p.Status.Phase != corev1.PodRunning {
				continue
			}
			for _, c := range p.Status.Conditions {
				if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
					pod = p
					return true, ""
				}
			}
		}
		return false, fmt.Sprintf("%d MCP pods, none ready", len(pods.Items))
	})
	return pod
}

// clientset talks to the cluster as the admin, or with the given bearer token only.
func clientset(t *testing.T, token *string) *kubernetes.Clientset {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	if token != nil {
		cfg = &rest.Config{Host: cfg.Host, TLSClientConfig: rest.TLSClientConfig{CAFile: cfg.CAFile, CAData: cfg.CAData}, BearerToken: *token}
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// kubeletRoot is the kubelet's --root-dir (hack/cluster/up.sh).
func kubeletRoot() string {
	if d := os.Getenv("CWAC_E2E_KUBELET_ROOT"); d != "" {
		return d
	}
	return filepath.Join(filepath.Dir(resultsDir), "kubelet", "root")
}

// TestMCPPodHoldsOnlyTheMCPRole takes the credentials of the running MCP pod
// itself (the service-account token the kubelet projected into it, read on
// the node) and proves with real API requests what they allow: the MCP
// server's work (scans), and nothing of the operator's (Jobs) or anyone's
// secrets. It also checks the server process runs with the results volume
// mounted read-only, as a user of its own.
func TestMCPPodHoldsOnlyTheMCPRole(t *testing.T) {
	need(t)
	pod := mcpPod(t)
	if pod.Spec.ServiceAccountName != mcpServiceAccount {
		t.Fatalf("MCP pod runs as %q", pod.Spec.ServiceAccountName)
	}
	checkOperatorPodsHaveNoMCP(t)

	token := mcpPodToken(t, pod)
	cs := clientset(t, &token)

	// Whose token it is, as the API server sees it.
	who, err := cs.AuthenticationV1().SelfSubjectReviews().Create(ctx(), &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "system:serviceaccount:" + ns + ":" + mcpServiceAccount; who.Status.UserInfo.Username != want {
		t.Fatalf("the MCP pod's token is %q, want %q", who.Status.UserInfo.Username, want)
	}

	scan := newScan(t, "identity", func(s *cwacv1alpha1.CwacScanSpec) { s.AuditName = "standin-sleep-1" })
	checkMCPTokenAllowed(t, cs, scan.Name)
	checkMCPTokenRefused(t, cs, scan.Name)
	checkMCPProcess(t, pod)
}

// checkOperatorPodsHaveNoMCP: the operator's pod no longer carries an MCP
// container.
func checkOperatorPodsHaveNoMCP(t *testing.T) {
	t.Helper()
	ops, err := clientset(t, nil).CoreV1().Pods(ns).List(ctx(), metav1.ListOptions{
		LabelSelector: "app.kubernetes.io/name=cwac-operator,app.kubernetes.io/instance=cwac",
	})
	if err != nil || len(ops.Items) == 0 {
		t.Fatalf("operator pods: %v", err)
	}
	for _, p := range ops.Items {
		if len(p.Spec.Containers) != 1 || p.Spec.Containers[0].Name != "manager" {
			t.Errorf("operator pod %s: containers %d", p.Name, len(p.Spec.Containers))
		}
		// Its own API token, and CWAC's defaults (the chart's cwac.defaultConfig); never the results.
		for _, v := range p.Spec.Volumes {
			if v.Projected == nil && (v.ConfigMap == nil || v.ConfigMap.Name != "cwac-cwac-operator-cwac-defaults") {
				t.Errorf("operator pod %s mounts %s: %+v", p.Name, v.Name, v.VolumeSource)
			}
		}
	}
}

// mcpPodToken reads the MCP pod's projected service account token from the
// kubelet's directory on this node.
func mcpPodToken(t *testing.T, pod corev1.Pod) string {
	t.Helper()
	tokens, _ := filepath.Glob(filepath.Join(kubeletRoot(), "pods", string(pod.UID), "volumes", "kubernetes.io~projected", "*", "token"))
	if len(tokens) != 1 {
		t.Fatalf("the MCP pod's projected token under %s: found %v", kubeletRoot(), tokens)
	}
	data, err := os.ReadFile(tokens[0])
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(data))
}

// checkMCPTokenAllowed: the MCP pod's token may do what the MCP server does.
func checkMCPTokenAllowed(t *testing.T, cs *kubernetes.Clientset, scanName string) {
	t.Helper()
	if err := cs.RESTClient().Get().AbsPath("/apis/cwac.a11y.dev/v1alpha1/namespaces", ns, "cwacscans", scanName).Do(ctx()).Error(); err != nil {
		t.Errorf("get CwacScan with the MCP pod's token: %v", err)
	}
	var list cwacv1alpha1.CwacScanList
	if err := cs.RESTClient().Get().AbsPath("/apis/cwac.a11y.dev/v1alpha1/namespaces", ns, "cwacscans").Do(ctx()).Into(&list); err != nil {
		t.Errorf("list CwacScans with the MCP pod's token: %v", err)
	}
	if _, err := cs.CoreV1().Pods(ns).List(ctx(), metav1.ListOptions{}); err != nil {
		t.Errorf("list pods with the MCP pod's token: %v", err)
	}
}

// checkMCPTokenRefused: the MCP pod's token gets 403 for the operator's
// rights and anyone's secrets.
func checkMCPTokenRefused(t *testing.T, cs *kubernetes.Clientset, scanName string) {
	t.Helper()
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "e2e-mcp-identity", Namespace: ns}, StringData: map[string]string{"k": "v"}}
	admin := clientset(t, nil)
	if _, err := admin.CoreV1().Secrets(ns).Create(ctx(), secret, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = admin.CoreV1().Secrets(ns).Delete(ctx(), secret.Name, metav1.DeleteOptions{}) })
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "e2e-mcp-identity", Namespace: ns},
		Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers:    []corev1.Container{{Name: "c", Image: "cwac-standin:dev"}},
		}}},
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "e2e-mcp-identity", Namespace: ns}, Spec: job.Spec.Template.Spec}
	for what, err := range map[string]error{
		"create a Job": func() error { _, err := cs.BatchV1().Jobs(ns).Create(ctx(), job, metav1.CreateOptions{}); return err }(),
		"get a Secret": func() error {
			_, err := cs.CoreV1().Secrets(ns).Get(ctx(), secret.Name, metav1.GetOptions{})
			return err
		}(),
		"list Secrets": func() error { _, err := cs.CoreV1().Secrets(ns).List(ctx(), metav1.ListOptions{}); return err }(),
		"create a Pod": func() error {
			_, err := cs.CoreV1().Pods(ns).Create(ctx(), pod, metav1.CreateOptions{})
			return err
		}(),
		"delete a CwacScan": cs.RESTClient().Delete().
			AbsPath("/apis/cwac.a11y.dev/v1alpha1/namespaces", ns, "cwacscans", scanName).Do(ctx()).Error(),
		"list CwacScans in another namespace": cs.RESTClient().Get().AbsPath("/apis/cwac.a11y.dev/v1alpha1/namespaces/default/cwacscans").Do(ctx()).Error(),
	} {
		if !apierrors.IsForbidden(err) {
			t.Errorf("%s with the MCP pod's token: %v, want 403 Forbidden", what, err)
		}
	}
	if _, err := admin.BatchV1().Jobs(ns).Get(ctx(), job.Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("a Job %s exists: %v", job.Name, err)
	}
}

// checkMCPProcess: the server process itself runs as its own user and
// group, with /results mounted read-only.
func checkMCPProcess(t *testing.T, pod corev1.Pod) {
	t.Helper()
	proc := processOfPod(t, pod, "/mcp-server")
	status, _ := os.ReadFile(filepath.Join(proc, "status"))
	var uid, groups string
	for _, l := range strings.Split(string(status), "\n") {
		if f := strings.Fields(l); len(f) > 1 && f[0] == "Uid:" {
			uid = f[1]
		} else if len(f) > 0 && f[0] == "Groups:" {
			groups = strings.Join(f[1:], " ")
		}
	}
	if uid != "65532" || !slices.Contains(strings.Fields(groups), "1000") {
		t.Errorf("mcp-server runs as uid %s groups %q, want 65532 in group 1000", uid, groups)
	}
	mounts, _ := os.ReadFile(filepath.Join(proc, "mountinfo"))
	found := false
	for _, l := range strings.Split(string(mounts), "\n") {
		f := strings.Fields(l)
		if len(f) > 5 && f[4] == "/results" {
			found = true
			if !slices.Contains(strings.Split(f[5], ","), "ro") {
				t.Errorf("/results is mounted %s in the MCP container, want ro: %s", f[5], l)
			}
		}
	}
	if !found {
		t.Errorf("no /results mount in the MCP container:\n%s", mounts)
	}
}

// processOfPod finds, on this node, the /proc directory of the process of the
// given pod whose command starts with exe (by the pod UID in its cgroup).
func processOfPod(t *testing.T, pod corev1.Pod, exe string) string {
	t.Helper()
	uid := strings.ReplaceAll(string(pod.UID), "-", "_")
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		cmd, err := os.ReadFile(filepath.Join(p, "cmdline"))
		if err != nil || !strings.HasPrefix(string(cmd), exe+"\x00") {
			continue
		}
		cg, _ := os.ReadFile(filepath.Join(p, "cgroup"))
		if strings.Contains(string(cg), string(pod.UID)) || strings.Contains(string(cg), uid) {
			return p
		}
	}
	t.Fatalf("no %s process of pod %s (uid %s) on this node", exe, pod.Name, pod.UID)
	return ""
}
