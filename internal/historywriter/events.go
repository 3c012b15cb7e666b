package historywriter

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanevent"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

// event records an Event on a scan, so `kubectl describe` shows what the
// history made of it beside the operator's Events. Failing to record it
// is logged: the log line of the same outcome is already written.
func (w *Writer) event(ctx context.Context, scan *cwacv1alpha1.CwacScan, warning bool, reason, note string) {
	if w.cfg.Clientset == nil {
		return
	}
	ev := scanevent.New(scanevent.MCPServer, scan, scanevent.Event{NamePart: "history", Action: "RecordHistory",
		Reason: reason, Warning: warning, Note: note, At: w.now()})
	if _, err := w.cfg.Clientset.EventsV1().Events(scan.Namespace).Create(ctx, ev, metav1.CreateOptions{}); err != nil {
		w.cfg.Log.Warn("issue history: recording an Event", "scan", scan.Name, "reason", reason, "err", err)
	}
}

// image is the CWAC image that ran a scan: the digest its pod reported
// (status.containerStatuses[cwac].imageID) while the pod is kept, else the
// image the scan named (spec.image), else "" (the operator's default, which
// the MCP server is not told).
func (w *Writer) image(ctx context.Context, scan *cwacv1alpha1.CwacScan) string {
	if w.cfg.Clientset != nil && scan.Status.JobName != "" {
		pods, err := w.cfg.Clientset.CoreV1().Pods(scan.Namespace).List(ctx, metav1.ListOptions{
			LabelSelector: "batch.kubernetes.io/job-name=" + scan.Status.JobName,
		})
		if err != nil {
			w.cfg.Log.Warn("issue history: reading the scan pod's image", "scan", scan.Name, "err", err)
		} else if id := podImageID(pods.Items); id != "" {
			return id
		}
	}
	return scan.Spec.Image
}

// podImageID is the image the CWAC container of the first pod that ran it
// reported.
func podImageID(pods []corev1.Pod) string {
	for _, p := range pods {
		for _, c := range p.Status.ContainerStatuses {
			if c.Name == scanpod.ContainerName && c.ImageID != "" {
				return imageDigest(c.ImageID)
			}
		}
	}
	return ""
}
