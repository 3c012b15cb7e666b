package scanjob

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

const mergeBaselineDir = "a11y/nightly-1-0f1e2d3c/2026-11-21_23-18-23_nightly"

func TestMergePodGolden(t *testing.T) {
	scan := shardedScan(4, cwacv1alpha1.ShardFailurePolicyPartial)
	golden(t, "merge-pod.yaml", MergePod(scan, opts, Baseline{Name: "nightly-1", ResultsPath: mergeBaselineDir}, scanpod.ShardList{1, 3}))
}

// The merge pod runs only the runner's merge mode from the operator's
// image, told the spec's shards and the failed ones, and compares with a
// usable baseline only.
func TestMergePodArgs(t *testing.T) {
	base := []string{
		"--cwac-dir=/cwac", "--scan-dir=/scan", "--results-dir=/results", "--work-dir=/tmp/cwac-work",
		"--termination-log=/dev/termination-log",
	}
	tests := []struct {
		name     string
		shards   int32
		baseline Baseline
		failed   scanpod.ShardList
		extra    []string
	}{
		{"every shard succeeded", 4, Baseline{}, nil, []string{"--shards=4", "--merge"}},
		{"the spec's shards, not those that ran", 3, Baseline{}, nil, []string{"--shards=3", "--merge"}},
		{"failed shards", 4, Baseline{}, scanpod.ShardList{0, 2}, []string{"--shards=4", "--merge", "--failed-shards=0,2"}},
		{"a baseline without results is not usable", 4, Baseline{Name: "nightly-1"}, nil, []string{"--shards=4", "--merge"}},
		{"a usable baseline", 2, Baseline{Name: "nightly-1", ResultsPath: mergeBaselineDir}, scanpod.ShardList{1},
			[]string{"--baseline-dir=/baseline", "--baseline-name=nightly-1", "--shards=2", "--merge", "--failed-shards=1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scan := shardedScan(tt.shards, "")
			c := MergePod(scan, opts, tt.baseline, tt.failed).Spec.Containers[0]
			// The merge writes the scan's CI reports, so it is told the scan's
			// name, thresholds and CWAC image as a scan pod is.
			describe := []string{"--scan-name=nightly", "--scan-namespace=a11y",
				"--threshold=maxTotalIssues=25", "--threshold=maxIssuesByImpact.critical=0", "--cwac-image=cwac:1.0"}
			if want := slices.Concat(base, tt.extra, describe); !slices.Equal(c.Args, want) {
				t.Errorf("args\n%q\nwant\n%q", c.Args, want)
			}
			if !slices.Equal(c.Command, []string{scanpod.RunnerImagePath}) || c.Image != opts.RunnerImage || c.Name != scanpod.MergeContainerName {
				t.Errorf("container %s runs %s %v", c.Name, c.Image, c.Command)
			}
			mounts := map[string]corev1.VolumeMount{}
			for _, m := range c.VolumeMounts {
				mounts[m.MountPath] = m
			}
			b, compared := mounts[scanpod.BaselineDir]
			if compared != (tt.baseline.ResultsPath != "") || (compared && (!b.ReadOnly || b.SubPath != mergeBaselineDir || b.Name != volResults)) {
				t.Errorf("baseline mount %+v (mounted %v)", b, compared)
			}
		})
	}
}

// The merge pod's mounts: the scan's ConfigMap read-only, the scan's own
// directory and /tmp writable, nothing else; its volumes are the Job's.
func TestMergePodMounts(t *testing.T) {
	scan := shardedScan(4, "")
	pod := MergePod(scan, opts, Baseline{Name: "nightly-1", ResultsPath: mergeBaselineDir}, nil)
	want := []corev1.VolumeMount{
		{Name: volScan, MountPath: scanpod.ConfigDir, ReadOnly: true},
		{Name: volTmp, MountPath: scanpod.TmpDir},
		{Name: volResults, MountPath: scanpod.ResultsDir, SubPath: "a11y/nightly-0f1e2d3c"},
		{Name: volResults, MountPath: scanpod.BaselineDir, SubPath: mergeBaselineDir, ReadOnly: true},
	}
	if got := pod.Spec.Containers[0].VolumeMounts; !equality.Semantic.DeepEqual(got, want) {
		t.Errorf("mounts\n%+v\nwant\n%+v", got, want)
	}
	jobVolumes := map[string]corev1.Volume{}
	for _, v := range Job(scan, opts, Baseline{}).Spec.Template.Spec.Volumes {
		jobVolumes[v.Name] = v
	}
	for _, v := range pod.Spec.Volumes {
		if v.Name == volTmp {
			if v.EmptyDir == nil || v.EmptyDir.SizeLimit == nil {
				t.Errorf("/tmp is %+v, want a bounded emptyDir", v.VolumeSource)
			}
			continue
		}
		if !equality.Semantic.DeepEqual(v, jobVolumes[v.Name]) {
			t.Errorf("volume %s is %+v, the Job's is %+v", v.Name, v, jobVolumes[v.Name])
		}
	}
	if len(pod.Spec.Volumes) != 3 || pod.Spec.Volumes[0].ConfigMap == nil || !*pod.Spec.Volumes[0].ConfigMap.Optional {
		t.Errorf("volumes %+v", pod.Spec.Volumes)
	}
}

// The merge pod is hardened, placed and bounded like the scan pod.
func TestMergePodContract(t *testing.T) {
	o := opts
	o.ServiceAccountName = "scans"
	o.SeccompLocalhostProfile = "profiles/cwac.json"
	o.NodeSelector = map[string]string{"kubernetes.io/hostname": "node-a"}
	o.Tolerations = []corev1.Toleration{{Key: "scans", Operator: corev1.TolerationOpExists}}
	o.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{}}
	o.ImagePullPolicy = corev1.PullIfNotPresent
	scan := shardedScan(4, "")
	scan.Spec.Timeout = "2h"
	pod := MergePod(scan, o, Baseline{}, nil)
	job := Job(scan, o, Baseline{}).Spec.Template.Spec
	spec := pod.Spec

	if pod.Name != "nightly-0f1e2d3c-merge" || pod.Namespace != "a11y" || pod.Labels[LabelComponent] != ComponentMerge ||
		pod.Labels[LabelScanUID] != string(scan.UID) || pod.Labels[LabelManagedBy] != ManagedByValue || pod.Annotations[AnnotationScanName] != "nightly" {
		t.Errorf("metadata %+v", pod.ObjectMeta)
	}
	if spec.RestartPolicy != corev1.RestartPolicyNever || *spec.ActiveDeadlineSeconds != 7200 || *spec.AutomountServiceAccountToken ||
		*spec.EnableServiceLinks || spec.ServiceAccountName != "scans" || len(spec.InitContainers) != 0 || len(spec.Containers) != 1 {
		t.Errorf("pod spec %+v", spec)
	}
	if !equality.Semantic.DeepEqual(spec.SecurityContext, job.SecurityContext) {
		t.Errorf("pod security %+v, the scan pod's %+v", spec.SecurityContext, job.SecurityContext)
	}
	if !equality.Semantic.DeepEqual(spec.NodeSelector, job.NodeSelector) || !equality.Semantic.DeepEqual(spec.Tolerations, job.Tolerations) ||
		spec.Affinity != job.Affinity {
		t.Errorf("placed %v %v %v, the scan pod %v %v %v", spec.NodeSelector, spec.Tolerations, spec.Affinity, job.NodeSelector, job.Tolerations, job.Affinity)
	}
	c := spec.Containers[0]
	if !equality.Semantic.DeepEqual(c.SecurityContext, job.Containers[0].SecurityContext) || *c.SecurityContext.Privileged ||
		!*c.SecurityContext.ReadOnlyRootFilesystem || c.SecurityContext.SeccompProfile.Type != corev1.SeccompProfileTypeLocalhost {
		t.Errorf("container security %+v", c.SecurityContext)
	}
	if c.TerminationMessagePolicy != corev1.TerminationMessageFallbackToLogsOnError || c.TerminationMessagePath != scanpod.TerminationLog ||
		c.ImagePullPolicy != corev1.PullIfNotPresent {
		t.Errorf("container %+v", c)
	}
	if r, l := c.Resources.Requests.Memory().String(), c.Resources.Limits.Memory().String(); r != "64Mi" || l != "256Mi" || c.Resources.Requests.Cpu().IsZero() {
		t.Errorf("resources %v", c.Resources)
	}
}
