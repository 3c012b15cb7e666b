//go:build integration

package cli

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

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
