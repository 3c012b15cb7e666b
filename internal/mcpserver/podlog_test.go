package mcpserver

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestLogPod(t *testing.T) {
	at := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	pod := func(name string, minute int, phase corev1.PodPhase) corev1.Pod {
		return corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(at.Add(time.Duration(minute) * time.Minute))},
			Status:     corev1.PodStatus{Phase: phase},
		}
	}
	for _, tc := range []struct {
		name string
		pods []corev1.Pod
		want string
	}{
		{"one pod", []corev1.Pod{pod("a", 0, corev1.PodSucceeded)}, "a"},
		{"the newest of those that ended", []corev1.Pod{pod("old", 0, corev1.PodFailed), pod("new", 1, corev1.PodFailed)}, "new"},
		{"the newest first in the list", []corev1.Pod{pod("new", 1, corev1.PodSucceeded), pod("old", 0, corev1.PodSucceeded)}, "new"},
		{"a running shard before a newer one that ended",
			[]corev1.Pod{pod("running", 0, corev1.PodRunning), pod("done", 1, corev1.PodSucceeded)}, "running"},
		{"a running shard after one that ended",
			[]corev1.Pod{pod("done", 1, corev1.PodSucceeded), pod("running", 0, corev1.PodRunning)}, "running"},
		{"the newest running shard",
			[]corev1.Pod{pod("r0", 0, corev1.PodRunning), pod("r2", 2, corev1.PodRunning), pod("p", 3, corev1.PodPending)}, "r2"},
	} {
		if got := logPod(tc.pods).Name; got != tc.want {
			t.Errorf("%s: logPod = %s, want %s", tc.name, got, tc.want)
		}
	}
}
