package controller

import (
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

// TestPodSettling: how long a finished Job's ending waits for its pod's
// termination to reach the cache.
func TestPodSettling(t *testing.T) {
	ended := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	cond := batchv1.JobCondition{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(ended)}
	pod := func(state corev1.ContainerState, last corev1.ContainerState) *corev1.Pod {
		return &corev1.Pod{Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{
			{Name: "other", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1}}},
			{Name: scanpod.ContainerName, State: state, LastTerminationState: last},
		}}}
	}
	running := corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}
	terminated := corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1}}
	tests := []struct {
		name string
		pod  *corev1.Pod
		now  time.Time
		want time.Duration
	}{
		{"no pod: nothing more to come", nil, ended, 0},
		{"termination cached", pod(terminated, corev1.ContainerState{}), ended, 0},
		{"an earlier run's termination cached", pod(running, terminated), ended, 0},
		{"still running in the cache, just ended", pod(running, corev1.ContainerState{}), ended, podSettleGrace},
		{"still running, ended 2 s ago", pod(running, corev1.ContainerState{}), ended.Add(2 * time.Second), podSettleGrace - 2*time.Second},
		{"still running at the grace's end", pod(running, corev1.ContainerState{}), ended.Add(podSettleGrace), 0},
		{"still running long after", pod(running, corev1.ContainerState{}), ended.Add(time.Hour), 0},
		{"no status for the scan container yet", &corev1.Pod{}, ended.Add(time.Second), podSettleGrace - time.Second},
		{"a clock behind the API server's waits the grace, no more", pod(running, corev1.ContainerState{}), ended.Add(-time.Minute), podSettleGrace},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := podSettling(cond, tt.pod, tt.now); got != tt.want {
				t.Errorf("podSettling = %v, want %v", got, tt.want)
			}
		})
	}
}
