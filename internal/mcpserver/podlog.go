package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

// How much of the scan pod's log cwac_scan_status returns: enough to see
// CWAC's progress bar and its last messages, bounded in lines and bytes
// because CWAC prints long lines.
const (
	stdoutTailLines = 20
	stdoutTailBytes = 16 * 1024
)

// podLogTail returns the last lines of the scan pod's CWAC container log.
// The pod is logPod's pick; a shard's tail starts with "[shard N]".
func (s *Server) podLogTail(ctx context.Context, namespace, jobName string) (string, error) {
	if s.cfg.Clientset == nil {
		return "", errors.New("no Kubernetes clientset configured")
	}
	pods, err := s.cfg.Clientset.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: "batch.kubernetes.io/job-name=" + jobName})
	if err != nil {
		return "", fmt.Errorf("listing the scan's pod: %w", err)
	}
	if len(pods.Items) == 0 {
		return "", errors.New("the scan's pod does not exist yet")
	}
	pod := logPod(pods.Items)
	lines, limit := int64(stdoutTailLines), int64(stdoutTailBytes)
	opts := &corev1.PodLogOptions{Container: scanpod.ContainerName, TailLines: &lines, LimitBytes: &limit}
	req := s.cfg.Clientset.CoreV1().Pods(namespace).GetLogs(pod.Name, opts)
	stream, err := req.Stream(ctx)
	if err != nil {
		return "", fmt.Errorf("reading the scan's log: %w", err)
	}
	defer closeReadOnly(stream)
	data, err := io.ReadAll(io.LimitReader(stream, limit))
	if err != nil {
		return "", fmt.Errorf("reading the scan's log: %w", err)
	}
	tail := strings.ToValidUTF8(string(data), "?")
	if index := pod.Annotations[batchv1.JobCompletionIndexAnnotation]; index != "" {
		tail = "[shard " + index + "]\n" + tail
	}
	return tail, nil
}

// logPod is the pod whose log tells most about a scan's progress: a
// running one before one that ended (a sharded scan has a pod per shard),
// then the newest (a deleted and recreated pod must not show stale output).
func logPod(pods []corev1.Pod) *corev1.Pod {
	best := &pods[0]
	for i := range pods[1:] {
		p := &pods[i+1]
		pRunning, bestRunning := p.Status.Phase == corev1.PodRunning, best.Status.Phase == corev1.PodRunning
		if pRunning != bestRunning {
			if pRunning {
				best = p
			}
			continue
		}
		if best.CreationTimestamp.Before(&p.CreationTimestamp) {
			best = p
		}
	}
	return best
}
