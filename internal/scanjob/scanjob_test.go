package scanjob

import (
	"strings"
	"testing"

	goldenfile "github.com/a11y-dev/cwac-operator/internal/testutil/golden"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

func sampleScan() *cwacv1alpha1.CwacScan {
	return &cwacv1alpha1.CwacScan{
		ObjectMeta: metav1.ObjectMeta{Name: "nightly", Namespace: "a11y", UID: "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"},
		Spec: cwacv1alpha1.CwacScanSpec{
			URLs:              []string{"https://www.example.govt.nz/"},
			Sites:             []cwacv1alpha1.Site{{URL: "https://a.example.org/", Organisation: "Te Tari, \"Ā\"", Sector: "Health"}},
			MaxLinksPerDomain: 20,
			ThreadCount:       1,
			Timeout:           "30m",
			Plugins:           map[string]bool{"language_audit": false},
			ConfigOverrides:   map[string]apiextensionsv1.JSON{"only_allow_https": {Raw: []byte("false")}},
		},
	}
}

var opts = Options{
	ResultsPVC: "cwac-results", DefaultImage: "cwac:1.0", RunnerImage: "cwac-operator:0.1.0", CWACDir: "/cwac",
	ChromeExtraArgs: "--no-sandbox,--disable-gpu", Resources: DefaultResources(),
	Env: []corev1.EnvVar{{Name: "EXTRA", Value: "1"}},
}

func golden(t *testing.T, name string, v any) {
	t.Helper()
	got, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	goldenfile.Assert(t, name, got)
}

func TestJobGolden(t *testing.T) {
	golden(t, "job.yaml", Job(sampleScan(), opts))
}

func TestConfigMapGolden(t *testing.T) {
	cm, err := ConfigMap(sampleScan())
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "configmap.yaml", cm)
}

func TestJobPodContract(t *testing.T) {
	job := Job(sampleScan(), opts)
	pod := job.Spec.Template.Spec
	if *job.Spec.BackoffLimit != 0 || *job.Spec.ActiveDeadlineSeconds != 1800 {
		t.Errorf("backoffLimit %d, deadline %d", *job.Spec.BackoffLimit, *job.Spec.ActiveDeadlineSeconds)
	}
	if *pod.AutomountServiceAccountToken || !*pod.SecurityContext.RunAsNonRoot || pod.SecurityContext.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Error("pod security context is not hardened")
	}
	for _, c := range append(pod.InitContainers, pod.Containers...) {
		sc := c.SecurityContext
		if !*sc.ReadOnlyRootFilesystem || *sc.AllowPrivilegeEscalation || !*sc.RunAsNonRoot || len(sc.Capabilities.Drop) != 1 || sc.Capabilities.Drop[0] != "ALL" {
			t.Errorf("container %s is not hardened: %+v", c.Name, sc)
		}
		for _, arg := range append(append([]string{}, c.Command...), c.Args...) {
			if strings.Contains(arg, "sh -c") || arg == "/bin/sh" || arg == "bash" {
				t.Errorf("container %s runs a shell: %q", c.Name, c.Command)
			}
		}
	}
	// Writable places are only volumes: /tmp, the runner dir (init only) and the results subPath.
	for _, m := range pod.Containers[0].VolumeMounts {
		if !m.ReadOnly && m.MountPath != "/tmp" && m.MountPath != "/results" {
			t.Errorf("unexpected writable mount %s", m.MountPath)
		}
	}
}

func TestJobUsesScanOverrides(t *testing.T) {
	scan := sampleScan()
	scan.Spec.Image = "registry.example/cwac:2"
	limits := corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("2Gi")}}
	scan.Spec.Resources = &limits
	scan.Spec.Timeout = ""
	c := Job(scan, opts).Spec.Template.Spec.Containers[0]
	if c.Image != "registry.example/cwac:2" || c.Resources.Limits.Memory().String() != "2Gi" {
		t.Errorf("image %s, resources %v", c.Image, c.Resources)
	}
	if d := *Job(scan, opts).Spec.ActiveDeadlineSeconds; d != 3600 {
		t.Errorf("default deadline = %d", d)
	}
}

func TestNames(t *testing.T) {
	long := sampleScan()
	long.Name = strings.Repeat("a", 60) + "-b"
	tests := []struct {
		scan          *cwacv1alpha1.CwacScan
		job, dir, aud string
	}{
		{sampleScan(), "nightly-0f1e2d3c", "a11y/nightly-0f1e2d3c", "nightly"},
		{long, strings.Repeat("a", 52) + "-0f1e2d3c", "a11y/" + long.Name + "-0f1e2d3c", strings.Repeat("a", 50)},
	}
	for _, tt := range tests {
		if got := JobName(tt.scan); got != tt.job || len(got) > 63 {
			t.Errorf("JobName = %q, want %q", got, tt.job)
		}
		if got := ScanDir(tt.scan); got != tt.dir {
			t.Errorf("ScanDir = %q, want %q", got, tt.dir)
		}
		if got := AuditName(tt.scan); got != tt.aud {
			t.Errorf("AuditName = %q, want %q", got, tt.aud)
		}
	}
}

func TestConfigMapInvalid(t *testing.T) {
	scan := sampleScan()
	scan.Spec.ConfigOverrides = map[string]apiextensionsv1.JSON{"audit_name": {Raw: []byte(`"x"`)}}
	_, err := ConfigMap(scan)
	var invalid *InvalidSpecError
	if err == nil || !asInvalid(err, &invalid) {
		t.Fatalf("err = %v, want InvalidSpecError", err)
	}
}

func asInvalid(err error, target **InvalidSpecError) bool {
	e, ok := err.(*InvalidSpecError)
	*target = e
	return ok
}
