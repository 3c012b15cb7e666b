package scanjob

import (
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

func testScan() *cwacv1alpha1.CwacScan {
	return &cwacv1alpha1.CwacScan{ObjectMeta: metav1.ObjectMeta{Name: "weekly", Namespace: "team-a", UID: types.UID("0123abcd-0000-0000-0000-000000000000")}}
}

// The cleanup pod mounts only the scan's own directory, runs only the
// runner's delete mode, and is hardened like a scan pod.
func TestCleanupPod(t *testing.T) {
	opts := Options{ResultsPVC: "results", RunnerImage: "operator:1", ServiceAccountName: "scans"}
	pod := CleanupPod(testScan(), opts)
	if pod.Name != "weekly-0123abcd-cleanup" || pod.Namespace != "team-a" || pod.Labels[LabelComponent] != ComponentCleanup ||
		pod.Annotations[AnnotationScanName] != "weekly" {
		t.Errorf("metadata %+v", pod.ObjectMeta)
	}
	spec := pod.Spec
	if len(spec.Containers) != 1 || len(spec.InitContainers) != 0 || len(spec.Volumes) != 1 || spec.Volumes[0].PersistentVolumeClaim.ClaimName != "results" {
		t.Fatalf("spec %+v", spec)
	}
	c := spec.Containers[0]
	if c.Image != "operator:1" || !slices.Equal(c.Command, []string{scanpod.RunnerImagePath, "--delete-results=/results"}) {
		t.Errorf("container %s %v", c.Image, c.Command)
	}
	if len(c.VolumeMounts) != 1 || c.VolumeMounts[0].SubPath != "team-a/weekly-0123abcd" || c.VolumeMounts[0].MountPath != scanpod.ResultsDir {
		t.Errorf("mounts %+v", c.VolumeMounts)
	}
	sc := c.SecurityContext
	if !*sc.ReadOnlyRootFilesystem || *sc.AllowPrivilegeEscalation || *sc.Privileged || len(sc.Capabilities.Drop) != 1 || !*sc.RunAsNonRoot {
		t.Errorf("security context %+v", sc)
	}
	if *spec.AutomountServiceAccountToken || *spec.EnableServiceLinks || *spec.ActiveDeadlineSeconds != CleanupDeadlineSeconds || spec.RestartPolicy != "Never" {
		t.Errorf("pod spec %+v", spec)
	}
	if lim := c.Resources.Limits.Memory(); lim.IsZero() {
		t.Error("no memory limit")
	}
}

// The scan's ConfigMap volume is optional, so its loss fails the scan at
// once (the runner says why) rather than holding the pod until the deadline.
func TestConfigMapVolumeIsOptional(t *testing.T) {
	job := Job(testScan(), Options{ResultsPVC: "results", RunnerImage: "operator:1", DefaultImage: "cwac:1"}, Baseline{})
	for _, v := range job.Spec.Template.Spec.Volumes {
		if v.ConfigMap != nil && (v.ConfigMap.Optional == nil || !*v.ConfigMap.Optional) {
			t.Errorf("ConfigMap volume %s is not optional", v.Name)
		}
	}
}
