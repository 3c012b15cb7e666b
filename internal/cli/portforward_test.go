package cli

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
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
