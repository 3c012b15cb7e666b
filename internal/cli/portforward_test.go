package cli

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

func mcpPod(name string, phase corev1.PodPhase, ready corev1.ConditionStatus, port int32, deleting bool) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: defaultMCPNamespace, Name: name,
			Labels: map[string]string{"app.kubernetes.io/component": "mcp-server", "app.kubernetes.io/name": "cwac-operator-mcp"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "mcp-server", Image: "cwac-operator:dev",
			Ports: []corev1.ContainerPort{{Name: "metrics", ContainerPort: 9999}, {Name: mcpPortName, ContainerPort: port}}}}},
		Status: corev1.PodStatus{Phase: phase, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: ready}}},
	}
	if deleting {
		now := metav1.Now()
		p.DeletionTimestamp = &now
	}
	return p
}

func TestFindPod(t *testing.T) {
	tests := []struct {
		name     string
		pods     []*corev1.Pod
		pod      string
		wantPod  string
		wantPort int32
		wantErr  string
	}{
		{"the ready one", []*corev1.Pod{
			mcpPod("starting", corev1.PodRunning, corev1.ConditionFalse, 8090, false),
			mcpPod("going", corev1.PodRunning, corev1.ConditionTrue, 8090, true),
			mcpPod("ready", corev1.PodRunning, corev1.ConditionTrue, 18090, false),
		}, "", "ready", 18090, ""},
		{"none ready", []*corev1.Pod{mcpPod("starting", corev1.PodPending, corev1.ConditionFalse, 8090, false)}, "", "", 0,
			"no MCP server pod in namespace cwac-system is running and ready (1 found)"},
		{"none at all", nil, "", "", 0, `no MCP server pod in namespace cwac-system matches "app.kubernetes.io/component=mcp-server"`},
		{"named", []*corev1.Pod{mcpPod("a", corev1.PodRunning, corev1.ConditionTrue, 8090, false)}, "a", "a", 8090, ""},
		{"named, missing", nil, "b", "", 0, "get the MCP server pod cwac-system/b (--mcp-pod)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs := fake.NewClientset()
			for _, p := range tt.pods {
				if _, err := cs.CoreV1().Pods(p.Namespace).Create(t.Context(), p, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			pf := &portForwardMCP{selector: defaultMCPSelector, pod: tt.pod}
			pod, port, err := pf.findPod(t.Context(), cs, defaultMCPNamespace)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || pod != tt.wantPod || port != tt.wantPort {
				t.Fatalf("got %s:%d %v, want %s:%d", pod, port, err, tt.wantPod, tt.wantPort)
			}
		})
	}
}

// TestPortForwardRefused runs the real port-forward against envtest's API
// server as a user who may read scans and pods but not port-forward: the
// refusal must say which permission is missing.
func TestPortForwardRefused(t *testing.T) {
	c := envtestCluster(t)
	token := serviceAccountToken(t, c, "no-portforward")
	c.createScan(t, defaultMCPNamespace, "pf-scan")
	ctx := t.Context()
	pod := mcpPod("cwac-mcp-0", corev1.PodPending, corev1.ConditionFalse, 8090, false)
	if err := c.admin.Create(ctx, pod); err != nil {
		t.Fatal(err)
	}
	pod.Status = corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}
	if err := c.admin.Status().Update(ctx, pod); err != nil {
		t.Fatal(err)
	}
	sa := rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: defaultMCPNamespace, Name: "no-portforward"}
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: defaultMCPNamespace, Name: "pod-reader"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list"}}}}
	rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: defaultMCPNamespace, Name: "pod-reader"},
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "pod-reader"}, Subjects: []rbacv1.Subject{sa}}
	if err := c.admin.Create(ctx, role); err != nil {
		t.Fatal(err)
	}
	if err := c.admin.Create(ctx, rb); err != nil {
		t.Fatal(err)
	}
	kc := c.authKubeconfig(t, "no-portforward", &clientcmdapi.AuthInfo{Token: token})
	r := runCLI(ctx, &Options{}, kc, "results", "pf-scan", "-n", defaultMCPNamespace)
	want := "the API server refused the port-forward to the MCP server pod cwac-system/cwac-mcp-0: " +
		"your RBAC needs create on pods/portforward in namespace cwac-system"
	if r.code != ExitError || !strings.Contains(r.stderr, want) {
		t.Fatalf("got %+v\nwant exit 1 and %q", r, want)
	}
}
