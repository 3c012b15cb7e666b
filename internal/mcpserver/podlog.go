package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

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
// The newest pod of the Job is read: with backoffLimit 0 there is one, but a
// deleted and recreated pod must not show stale output.
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
	sort.Slice(pods.Items, func(i, j int) bool {
		return pods.Items[j].CreationTimestamp.Before(&pods.Items[i].CreationTimestamp)
	})
	lines, limit := int64(stdoutTailLines), int64(stdoutTailBytes)
	opts := &corev1.PodLogOptions{Container: scanpod.ContainerName, TailLines: &lines, LimitBytes: &limit}
	req := s.cfg.Clientset.CoreV1().Pods(namespace).GetLogs(pods.Items[0].Name, opts)
	stream, err := req.Stream(ctx)
	if err != nil {
		return "", fmt.Errorf("reading the scan's log: %w", err)
	}
	defer closeReadOnly(stream)
	data, err := io.ReadAll(io.LimitReader(stream, limit))
	if err != nil {
		return "", fmt.Errorf("reading the scan's log: %w", err)
	}
	return strings.ToValidUTF8(string(data), "?"), nil
}
