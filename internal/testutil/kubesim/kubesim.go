// Package kubesim plays, in tests, the parts of Kubernetes that envtest does
// not run: the Job controller (making a Job's pod, finishing the Job) and the
// kubelet (giving the pod a status and a termination message).
package kubesim

import (
	"context"
	"strconv"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/a11y-dev/cwac-operator/internal/scanpod"
	"github.com/a11y-dev/cwac-operator/internal/shard"
)

// StartPod creates the Job's pod, as the Job controller would, with status.
func StartPod(ctx context.Context, c client.Client, job *batchv1.Job, status corev1.PodStatus) (*corev1.Pod, error) {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:        job.Name + "-" + rand.String(5),
			Namespace:   job.Namespace,
			Labels:      map[string]string{},
			Annotations: job.Spec.Template.Annotations,
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "batch/v1", Kind: "Job", Name: job.Name, UID: job.UID,
				Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
			}},
		},
		Spec: job.Spec.Template.Spec,
	}
	for k, v := range job.Spec.Template.Labels {
		pod.Labels[k] = v
	}
	pod.Labels[batchv1.JobNameLabel] = job.Name
	if err := c.Create(ctx, pod); err != nil {
		return nil, err
	}
	return pod, SetPodStatus(ctx, c, pod, status)
}

// SetPodStatus replaces the pod's status, as the kubelet would.
func SetPodStatus(ctx context.Context, c client.Client, pod *corev1.Pod, status corev1.PodStatus) error {
	pod.Status = status
	return c.Status().Update(ctx, pod)
}

// Running is the status of a pod whose CWAC container runs.
func Running() corev1.PodStatus {
	now := metav1.Now()
	return corev1.PodStatus{
		Phase: corev1.PodRunning,
		ContainerStatuses: []corev1.ContainerStatus{{
			Name: scanpod.ContainerName, Image: "cwac:test", ImageID: "sha256:1", Ready: true, Started: ptr.To(true),
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}},
		}},
	}
}

// Terminated is the status of a pod whose CWAC container ended.
func Terminated(exitCode int32, reason, message string) corev1.PodStatus {
	now := metav1.Now()
	phase := corev1.PodSucceeded
	if exitCode != 0 {
		phase = corev1.PodFailed
	}
	return corev1.PodStatus{
		Phase: phase,
		ContainerStatuses: []corev1.ContainerStatus{{
			Name: scanpod.ContainerName, Image: "cwac:test", ImageID: "sha256:1",
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				ExitCode: exitCode, Reason: reason, Message: message, StartedAt: now, FinishedAt: now,
			}},
		}},
	}
}

// Waiting is the status of a pod whose CWAC container cannot start.
func Waiting(reason, message string) corev1.PodStatus {
	return corev1.PodStatus{
		Phase: corev1.PodPending,
		ContainerStatuses: []corev1.ContainerStatus{{
			Name: scanpod.ContainerName, Image: "cwac:missing",
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: message}},
		}},
	}
}

// FinishJob sets the Job's terminal status the way the Job controller does
// (the API server checks the conditions' order and the counters).
func FinishJob(ctx context.Context, c client.Client, job *batchv1.Job, succeeded bool, reason, message string) error {
	fresh := &batchv1.Job{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(job), fresh); err != nil {
		return err
	}
	now := metav1.Now()
	keepStarted(fresh, now)
	condition := func(t batchv1.JobConditionType, reason, message string) batchv1.JobCondition {
		return batchv1.JobCondition{
			Type: t, Status: corev1.ConditionTrue, LastProbeTime: now, LastTransitionTime: now, Reason: reason, Message: message,
		}
	}
	if succeeded {
		fresh.Status.Succeeded = 1
		fresh.Status.CompletionTime = &now
		const done, doneMessage = "CompletionsReached", "Reached expected number of succeeded pods"
		fresh.Status.Conditions = []batchv1.JobCondition{
			condition(batchv1.JobSuccessCriteriaMet, done, doneMessage), condition(batchv1.JobComplete, done, doneMessage),
		}
	} else {
		fresh.Status.Failed = 1
		fresh.Status.Conditions = []batchv1.JobCondition{
			condition(batchv1.JobFailureTarget, reason, message), condition(batchv1.JobFailed, reason, message),
		}
	}
	fresh.Status.Ready = ptr.To[int32](0)
	fresh.Status.Terminating = ptr.To[int32](0)
	fresh.Status.UncountedTerminatedPods = &batchv1.UncountedTerminatedPods{}
	return c.Status().Update(ctx, fresh)
}

// StartShardPod creates the pod of shard index of an Indexed Job, as the
// Job controller would: StartPod with the completion index annotation.
func StartShardPod(ctx context.Context, c client.Client, job *batchv1.Job, index int, status corev1.PodStatus) (*corev1.Pod, error) {
	shardJob := job.DeepCopy()
	annotations := map[string]string{batchv1.JobCompletionIndexAnnotation: strconv.Itoa(index)}
	for k, v := range job.Spec.Template.Annotations {
		annotations[k] = v
	}
	shardJob.Spec.Template.Annotations = annotations
	return StartPod(ctx, c, shardJob, status)
}

// SetShards records an Indexed Job's progress as the Job controller does:
// active pods, and the indexes that succeeded and failed ("0,2-3"). With
// finished, the Job ends too: Complete when no index failed, else Failed
// with reason (FailedIndexes, MaxFailedIndexesExceeded, DeadlineExceeded).
func SetShards(ctx context.Context, c client.Client, job *batchv1.Job, active int32, completed, failed string,
	finished bool, reason string) error {
	fresh := &batchv1.Job{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(job), fresh); err != nil {
		return err
	}
	now := metav1.Now()
	keepStarted(fresh, now)
	fresh.Status.Active = active
	fresh.Status.Succeeded = countIndexes(completed)
	fresh.Status.Failed = countIndexes(failed)
	fresh.Status.CompletedIndexes = completed
	if failed != "" {
		fresh.Status.FailedIndexes = &failed
	}
	fresh.Status.Ready = ptr.To[int32](0)
	fresh.Status.Terminating = ptr.To[int32](0)
	fresh.Status.UncountedTerminatedPods = &batchv1.UncountedTerminatedPods{}
	if finished {
		condition := func(t batchv1.JobConditionType, reason, message string) batchv1.JobCondition {
			return batchv1.JobCondition{
				Type: t, Status: corev1.ConditionTrue, LastProbeTime: now, LastTransitionTime: now, Reason: reason, Message: message,
			}
		}
		if failed == "" {
			const done, doneMessage = "CompletionsReached", "Reached expected number of succeeded pods"
			fresh.Status.CompletionTime = &now
			fresh.Status.Conditions = []batchv1.JobCondition{
				condition(batchv1.JobSuccessCriteriaMet, done, doneMessage), condition(batchv1.JobComplete, done, doneMessage),
			}
		} else {
			message := "Job has failed indexes"
			fresh.Status.Conditions = []batchv1.JobCondition{
				condition(batchv1.JobFailureTarget, reason, message), condition(batchv1.JobFailed, reason, message),
			}
		}
	}
	return c.Status().Update(ctx, fresh)
}

// countIndexes counts the indexes of a set such as "0,2-3".
func countIndexes(set string) int32 {
	indexes, err := shard.ParseIndexes(set)
	if err != nil {
		panic(err) // a test's own literal
	}
	return int32(len(indexes))
}

// Merged is the status of a merge pod whose container ended.
func Merged(exitCode int32, message string) corev1.PodStatus {
	status := Terminated(exitCode, "Completed", message)
	status.ContainerStatuses[0].Name = scanpod.MergeContainerName
	status.ContainerStatuses[0].Image = "cwac-operator:test"
	return status
}

// keepStarted gives a Job a start time a second before now, unless it has
// one: the API server refuses a change to a running Job's start time, so a
// Job updated twice (running, then finished) a second or more apart keeps
// its first.
func keepStarted(job *batchv1.Job, now metav1.Time) {
	if job.Status.StartTime == nil {
		start := metav1.NewTime(now.Add(-time.Second))
		job.Status.StartTime = &start
	}
}
