package scanjob

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

// ComponentCleanup labels the pod that deletes a scan's results.
const ComponentCleanup = "cwac-results-cleanup"

// CleanupDeadlineSeconds bounds the cleanup pod's run.
const CleanupDeadlineSeconds = 120

// CleanupPodName is the name of the pod that deletes the scan's results.
func CleanupPodName(scan *cwacv1alpha1.CwacScan) string { return JobName(scan) + "-cleanup" }

// CleanupPod renders the short pod that empties the scan's directory on the
// results volume when a scan with resultsPolicy Delete is deleted. It runs
// the runner from the operator's own image, hardened like a scan pod, and
// mounts only that one directory: whatever it does, it cannot reach another
// scan's results. The caller sets the owner reference.
func CleanupPod(scan *cwacv1alpha1.CwacScan, opts Options) *corev1.Pod {
	meta := objectMeta(scan)
	meta.Name = CleanupPodName(scan)
	meta.Labels[LabelComponent] = ComponentCleanup
	return &corev1.Pod{
		ObjectMeta: meta,
		Spec: corev1.PodSpec{
			RestartPolicy:                 corev1.RestartPolicyNever,
			ActiveDeadlineSeconds:         ptr.To[int64](CleanupDeadlineSeconds),
			AutomountServiceAccountToken:  ptr.To(false),
			ServiceAccountName:            opts.ServiceAccountName,
			NodeSelector:                  opts.NodeSelector,
			Tolerations:                   opts.Tolerations,
			Affinity:                      opts.Affinity,
			EnableServiceLinks:            ptr.To(false),
			TerminationGracePeriodSeconds: ptr.To[int64](5),
			SecurityContext:               podSecurity(opts), // as the scan pod: CWAC's uid owns what it wrote
			Containers: []corev1.Container{{
				Name:                     "delete-results",
				Image:                    opts.RunnerImage,
				ImagePullPolicy:          opts.ImagePullPolicy,
				Command:                  []string{scanpod.RunnerImagePath, "--delete-results=" + scanpod.ResultsDir},
				SecurityContext:          hardened(opts),
				Resources:                runnerResources(),
				VolumeMounts:             []corev1.VolumeMount{{Name: volResults, MountPath: scanpod.ResultsDir, SubPath: ScanDir(scan)}},
				TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
			}},
			Volumes: []corev1.Volume{resultsVolume(opts)},
		},
	}
}
