package scanjob

import (
	"cmp"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
	"github.com/a11y-dev/cwac-operator/internal/scanspec"
)

// ComponentCleanup labels the pod that deletes a scan's results.
const ComponentCleanup = "cwac-results-cleanup"

// CleanupDeadlineSeconds bounds the cleanup pod's run.
const CleanupDeadlineSeconds = 120

// CleanupPod renders the short pod that empties the scan's directory on the
// results volume when a scan with resultsPolicy Delete is deleted. It runs
// the runner from the operator's own image, hardened like a scan pod, and
// mounts only that one directory: whatever it does, it cannot reach another
// scan's results. The caller sets the owner reference.
func CleanupPod(scan *cwacv1alpha1.CwacScan, opts Options) *corev1.Pod {
	return runnerPod(scan, opts, runnerPodShape{
		name: scanspec.CleanupPodName(scan), component: ComponentCleanup, deadline: CleanupDeadlineSeconds, grace: 5,
		container: corev1.Container{
			Name:         "delete-results",
			Command:      []string{scanpod.RunnerImagePath, "--delete-results=" + scanpod.ResultsDir},
			Resources:    runnerResources(),
			VolumeMounts: []corev1.VolumeMount{{Name: volResults, MountPath: scanpod.ResultsDir, SubPath: scanspec.ScanDir(scan)}},
		},
		volumes: []corev1.Volume{resultsVolume(opts)},
	})
}

// runnerPodShape is what a pod that runs only the operator's runner (the
// cleanup pod, the merge pod) has of its own.
type runnerPodShape struct {
	name, component string
	deadline, grace int64
	container       corev1.Container
	volumes         []corev1.Volume
	// serviceAccount replaces the scan pods' service account ("" keeps it).
	serviceAccount string
}

// runnerPod renders a short pod that runs the runner from the operator's
// own image, hardened and placed like a scan pod (CWAC's uid owns what the
// scan pods wrote, and a ReadWriteOnce claim is on their node), never
// restarted, with no service-account token.
func runnerPod(scan *cwacv1alpha1.CwacScan, opts Options, shape runnerPodShape) *corev1.Pod {
	meta := objectMeta(scan)
	meta.Name = shape.name
	meta.Labels[LabelComponent] = shape.component
	c := shape.container
	c.Image = opts.RunnerImage
	c.ImagePullPolicy = opts.ImagePullPolicy
	c.SecurityContext = hardened(opts)
	c.TerminationMessagePolicy = corev1.TerminationMessageFallbackToLogsOnError
	return &corev1.Pod{
		ObjectMeta: meta,
		Spec: corev1.PodSpec{
			RestartPolicy:                 corev1.RestartPolicyNever,
			ActiveDeadlineSeconds:         ptr.To(shape.deadline),
			AutomountServiceAccountToken:  ptr.To(false),
			ServiceAccountName:            cmp.Or(shape.serviceAccount, opts.ServiceAccountName),
			NodeSelector:                  opts.NodeSelector,
			Tolerations:                   opts.Tolerations,
			Affinity:                      opts.Affinity,
			EnableServiceLinks:            ptr.To(false),
			TerminationGracePeriodSeconds: ptr.To(shape.grace),
			SecurityContext:               podSecurity(opts),
			Containers:                    []corev1.Container{c},
			Volumes:                       shape.volumes,
		},
	}
}
