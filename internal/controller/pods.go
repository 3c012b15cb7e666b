package controller

import (
	"context"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// scanPod returns the Job's pod (the newest, should there be several).
func (r *CwacScanReconciler) scanPod(ctx context.Context, job *batchv1.Job) (*corev1.Pod, error) {
	pods := &corev1.PodList{}
	if err := r.List(ctx, pods, client.InNamespace(job.Namespace), client.MatchingFields{indexPodJob: job.Name}); err != nil {
		return nil, fmt.Errorf("listing pods of Job %s: %w", job.Name, err)
	}
	var newest *corev1.Pod
	for i := range pods.Items {
		p := &pods.Items[i]
		if !metav1.IsControlledBy(p, job) {
			continue
		}
		if newest == nil || newest.CreationTimestamp.Before(&p.CreationTimestamp) {
			newest = p
		}
	}
	return newest, nil
}

// jobFinished returns the Job's terminal condition, if it has one.
func jobFinished(job *batchv1.Job) (batchv1.JobCondition, bool) {
	for _, c := range job.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return c, true
		}
	}
	return batchv1.JobCondition{}, false
}

// podSettleGrace is how long a finished Job's ending waits for its pod's
// termination to reach the cache.
const podSettleGrace = 5 * time.Second

// podSettling says how long to wait before ending a scan whose Job has
// finished (cond) while the cached pod's scan container shows no
// termination yet: Jobs and pods come through separate watches, so the
// Job's end can arrive before the pod's, and ending then would lose the
// termination report (the summary, or a failure's cause) for good. It
// waits at most podSettleGrace from the Job's end, by now; the pod's own
// update wakes the scan sooner. No pod at all, or one whose termination is
// cached, waits nothing: there is nothing more to come.
func podSettling(cond batchv1.JobCondition, pod *corev1.Pod, now time.Time) time.Duration {
	if pod == nil || lastTermination(pod, scanpod.ContainerName) != nil {
		return 0
	}
	since := now.Sub(cond.LastTransitionTime.Time)
	if since < 0 {
		since = 0 // a clock behind the API server's waits the grace, no more
	}
	return max(podSettleGrace-since, 0)
}

// stuckReason reports a container (init or main) stuck waiting for a reason
// that needs attention.
func stuckReason(pod *corev1.Pod) (string, string) {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			return cwacv1alpha1.ReasonUnschedulable, fmt.Sprintf("pod %s cannot be scheduled: %s", pod.Name, textcap.Head(c.Message, 512))
		}
	}
	statuses := append(append([]corev1.ContainerStatus{}, pod.Status.InitContainerStatuses...), pod.Status.ContainerStatuses...)
	for _, c := range statuses {
		if w := c.State.Waiting; w != nil && waitingReasons[w.Reason] {
			return w.Reason, fmt.Sprintf("container %s of pod %s is waiting: %s: %s", c.Name, pod.Name, w.Reason, textcap.Head(w.Message, 512))
		}
	}
	return "", ""
}

func containerStatus(pod *corev1.Pod, name string) *corev1.ContainerStatus {
	if pod == nil {
		return nil
	}
	for i := range pod.Status.ContainerStatuses {
		if pod.Status.ContainerStatuses[i].Name == name {
			return &pod.Status.ContainerStatuses[i]
		}
	}
	return nil
}

func memoryLimit(pod *corev1.Pod) string {
	if pod != nil {
		for _, c := range pod.Spec.Containers {
			if c.Name == scanpod.ContainerName {
				if q, ok := c.Resources.Limits[corev1.ResourceMemory]; ok {
					return q.String()
				}
			}
		}
	}
	return "unknown"
}
