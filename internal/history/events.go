package history

import (
	"context"
	"os"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
	"github.com/a11y-dev/cwac-operator/internal/scanspec"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// Event notes are bounded like the operator's (the API's limit is 1 kB).
const maxNoteBytes = 1024

// event records an Event on a scan, so `kubectl describe` shows what the
// history made of it beside the operator's Events. Failing to record it
// is logged: the log line of the same outcome is already written.
func (w *Writer) event(ctx context.Context, scan *cwacv1alpha1.CwacScan, warning bool, reason, note string) {
	if w.cfg.Clientset == nil {
		return
	}
	kind := corev1.EventTypeNormal
	if warning {
		kind = corev1.EventTypeWarning
	}
	ev := &eventsv1.Event{
		ObjectMeta:          metav1.ObjectMeta{GenerateName: scanspec.EventNamePrefix(scan.Name, "history"), Namespace: scan.Namespace},
		EventTime:           metav1.NewMicroTime(w.now()),
		ReportingController: "cwac.a11y.dev/mcp-server",
		ReportingInstance:   textcap.Head("mcp-server-"+hostname(), 128),
		Action:              "RecordHistory",
		Reason:              reason,
		Type:                kind,
		Note:                textcap.Head(note, maxNoteBytes),
		Regarding: corev1.ObjectReference{
			APIVersion: cwacv1alpha1.GroupVersion.String(), Kind: "CwacScan", Namespace: scan.Namespace, Name: scan.Name, UID: scan.UID,
		},
	}
	if _, err := w.cfg.Clientset.EventsV1().Events(scan.Namespace).Create(ctx, ev, metav1.CreateOptions{}); err != nil {
		w.cfg.Log.Warn("issue history: recording an Event", "scan", scan.Name, "reason", reason, "err", err)
	}
}

func hostname() string {
	h, err := os.Hostname()
	if err != nil {
		return "unknown"
	}
	return h
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
