package scanjob

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
	"github.com/a11y-dev/cwac-operator/internal/scanspec"
)

// ComponentMerge labels the pod that merges a sharded scan's results.
const ComponentMerge = "cwac-merge"

// MergePod renders the short pod that, once every shard of a sharded scan
// has ended, merges the shards' CWAC results into one results directory in
// the scan's directory: the runner from the operator's own image (no
// browser) in its merge mode, told the scan's spec.shards (so its split of
// the sites is the scan pods') and the shards whose pods failed, which it
// leaves out. It mounts the scan's ConfigMap (the sites) and the scan's
// directory as the scan pods do, and the baseline's results read-only when
// the scan has a usable one (baseline.ResultsPath set); it is hardened and
// placed like a scan pod, so it reaches a ReadWriteOnce claim on the
// scan pods' node. With a bucket it runs as BucketOptions.ServiceAccountName
// when set. The caller sets the owner reference.
func MergePod(scan *cwacv1alpha1.CwacScan, opts Options, baseline Baseline, failed scanpod.ShardList) *corev1.Pod {
	// Args always renders --cwac-dir and --work-dir; the merge ignores them.
	flags := scanpod.DefaultRunnerFlags()
	flags.Shards = scan.Spec.ShardCount()
	flags.Merge = true
	flags.FailedShards = failed
	// The merge writes the scan's CI reports: the shards' CWAC image made
	// the results it reads, not the operator's image it runs in.
	describeForReports(scan, Image(scan, opts), &flags)
	mounts := compareWith(baseline, opts, &flags, []corev1.VolumeMount{
		{Name: volScan, MountPath: scanpod.ConfigDir, ReadOnly: true},
		{Name: volTmp, MountPath: scanpod.TmpDir},
		resultsMount(scan, opts),
	})
	volumes := []corev1.Volume{
		scanConfigVolume(scan),
		// Scratch only: the merged CSVs are written in the scan's directory.
		{Name: volTmp, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: ptr.To(resource.MustParse("1Gi"))}}},
		resultsVolume(opts),
	}
	var serviceAccount string
	if opts.Bucket.Enabled() {
		mounts, volumes = withCredentials(scan, opts, baseline, &flags, mounts, volumes)
		serviceAccount = opts.Bucket.ServiceAccountName
	}
	return runnerPod(scan, opts, runnerPodShape{
		name: scanspec.MergePodName(scan), component: ComponentMerge, deadline: int64(scanspec.Timeout(scan).Seconds()), grace: 30,
		serviceAccount: serviceAccount,
		container: corev1.Container{
			Name:                   scanpod.MergeContainerName,
			Command:                []string{scanpod.RunnerImagePath},
			Args:                   flags.Args(),
			WorkingDir:             scanpod.TmpDir,
			Env:                    []corev1.EnvVar{{Name: "TMPDIR", Value: scanpod.TmpDir}},
			Resources:              mergeResources(),
			VolumeMounts:           mounts,
			TerminationMessagePath: scanpod.TerminationLog,
		},
		volumes: volumes,
	})
}

// mergeResources are the merge container's. The merge streams each CSV
// row by row, as results.Walk reads (a record at most results.MaxRecordBytes,
// 4 MiB); what it writes after, on a million-row scan, peaks at about 92 MiB
// resident, and about 160 MiB for the comparison with a baseline first
// (make bench's reads). 256Mi leaves room for Go's collector, which the
// runner tells of the limit (internal/memlimit), while a runaway merge is
// stopped well before it starves the scan pods on its node.
func mergeResources() corev1.ResourceRequirements {
	return corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("64Mi")},
		Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("256Mi")},
	}
}
