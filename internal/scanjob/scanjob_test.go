package scanjob

import (
	"sort"
	"strings"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/scanspec"
	goldenfile "github.com/a11y-dev/cwac-operator/internal/testutil/golden"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
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
			Thresholds:        &cwacv1alpha1.Thresholds{MaxTotalIssues: ptr.To[int64](25), MaxIssuesByImpact: map[string]int64{"critical": 0}},
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
	golden(t, "job.yaml", Job(sampleScan(), opts, Baseline{}))
}

func TestConfigMapGolden(t *testing.T) {
	cm, err := ConfigMap(sampleScan(), opts)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "configmap.yaml", cm)
}

// TestConfigMapCarriesTheOperatorsDefaults: the operator's copy of CWAC's
// defaults goes into each scan's ConfigMap byte for byte, under the key the
// runner reads; without one the key is absent (the image's own apply).
func TestConfigMapCarriesTheOperatorsDefaults(t *testing.T) {
	defaults := "\xef\xbb\xbf{\n  \"audit_name\": \"x\",\n  \"viewport_sizes\": {\"small\": {\"width\": 320, \"height\": 450}}\n}\n"
	withDefaults := opts
	withDefaults.DefaultConfig = []byte(defaults)
	cm, err := ConfigMap(sampleScan(), withDefaults)
	if err != nil {
		t.Fatal(err)
	}
	if scanpod.DefaultsFile != "config_default.json" || cm.Data[scanpod.DefaultsFile] != defaults || len(cm.Data) != 3 {
		t.Errorf("ConfigMap data keys %v; %s = %q", keys(cm.Data), scanpod.DefaultsFile, cm.Data[scanpod.DefaultsFile])
	}
	cm, err = ConfigMap(sampleScan(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := cm.Data[scanpod.DefaultsFile]; ok || len(cm.Data) != 2 {
		t.Errorf("without the operator's defaults the ConfigMap holds %v", keys(cm.Data))
	}
	// The defaults count against the ConfigMap's size limit.
	withDefaults.DefaultConfig = make([]byte, MaxConfigMapBytes)
	if _, err := ConfigMap(sampleScan(), withDefaults); err == nil || !strings.Contains(err.Error(), "ConfigMap limit") {
		t.Errorf("oversized ConfigMap: err = %v", err)
	}
}

func keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestResourcesScaleWithThreads: by default the CWAC container gets
// threadCount × 512Mi requested and threadCount × 1Gi limit; CPU does not
// scale; a scan's own resources and an operator that turned scaling off are
// taken as they are.
func TestResourcesScaleWithThreads(t *testing.T) {
	scaled := opts
	scaled.ScaleMemoryWithThreads = true
	limitOnly := scaled
	limitOnly.Resources = corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("768Mi")}}
	own := &corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("3Gi")}}
	tests := []struct {
		name           string
		opts           Options
		threads        int32
		own            *corev1.ResourceRequirements
		request, limit string // "" = absent
		wantCPURequest string
	}{
		{"threadCount unset counts as 1", scaled, 0, nil, "512Mi", "1Gi", "500m"},
		{"1 thread: measured to pass at 512Mi", scaled, 1, nil, "512Mi", "1Gi", "500m"},
		{"2 threads: measured clean at 2Gi, thrashing at 1Gi", scaled, 2, nil, "1Gi", "2Gi", "500m"},
		{"4 threads", scaled, 4, nil, "2Gi", "4Gi", "500m"},
		{"16 threads, the most the API allows", scaled, 16, nil, "8Gi", "16Gi", "500m"},
		{"the scan's own resources are taken as they are", scaled, 4, own, "", "3Gi", ""},
		{"scaling turned off by the operator", opts, 4, nil, "512Mi", "1Gi", "500m"},
		{"only what the operator sets scales", limitOnly, 3, nil, "", "2304Mi", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scan := sampleScan()
			scan.Spec.ThreadCount = tt.threads
			scan.Spec.Resources = tt.own
			got := Resources(scan, tt.opts)
			quantity := func(l corev1.ResourceList, name corev1.ResourceName) string {
				if q, ok := l[name]; ok {
					return q.String()
				}
				return ""
			}
			r, l, c := quantity(got.Requests, corev1.ResourceMemory), quantity(got.Limits, corev1.ResourceMemory), quantity(got.Requests, corev1.ResourceCPU)
			if r != tt.request || l != tt.limit || c != tt.wantCPURequest {
				t.Errorf("memory request %q limit %q cpu request %q; want %q %q %q", r, l, c, tt.request, tt.limit, tt.wantCPURequest)
			}
			if job := Job(scan, tt.opts, Baseline{}).Spec.Template.Spec.Containers[0].Resources; !equality.Semantic.DeepEqual(job, got) {
				t.Errorf("the Job's container has %v, Resources says %v", job, got)
			}
		})
	}
	// The operator's own settings are never changed.
	if opts.Resources.Limits.Memory().String() != "1Gi" || scaled.Resources.Requests.Memory().String() != "512Mi" {
		t.Errorf("operator resources changed: %v", scaled.Resources)
	}
}

// TestCheckDefaults: a scan is refused before anything runs only when it
// would run the default image, declared without CWAC's defaults, and the
// operator has none; the message names both ways to fix it.
func TestCheckDefaults(t *testing.T) {
	lacking := opts
	lacking.DefaultImageLacksDefaults = true
	given := lacking
	given.DefaultConfig = []byte(`{}`)
	tests := []struct {
		name    string
		opts    Options
		image   string
		refused bool
	}{
		{"the image carries its defaults (or nothing was declared)", opts, "", false},
		{"the operator was given the defaults", given, "", false},
		{"neither: refused", lacking, "", true},
		{"neither, the default image named explicitly: refused", lacking, opts.DefaultImage, true},
		{"the default image however spelt: refused", lacking, "docker.io/library/cwac:1.0", true},
		{"another image may carry its own", lacking, "registry.example/cwac-with-config:1", false},
		{"another tag of it may too", lacking, "cwac:1.1", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scan := sampleScan()
			scan.Spec.Image = tt.image
			err := CheckDefaults(scan, tt.opts)
			if (err != nil) != tt.refused {
				t.Fatalf("err = %v, want refused %v", err, tt.refused)
			}
			if err == nil {
				return
			}
			for _, want := range []string{
				"cwac:1.0", "--set-file cwac.defaultConfig=<cwac>/config/config_default.json", "--cwac-default-config",
				"image that carries config/config_default.json", "cwac.imageHasDefaults=true",
			} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("message %q\ndoes not name %q", err, want)
				}
			}
		})
	}
}

func TestJobPodContract(t *testing.T) {
	job := Job(sampleScan(), opts, Baseline{})
	pod := job.Spec.Template.Spec
	if *job.Spec.BackoffLimit != 0 || *job.Spec.ActiveDeadlineSeconds != 1800 {
		t.Errorf("backoffLimit %d, deadline %d", *job.Spec.BackoffLimit, *job.Spec.ActiveDeadlineSeconds)
	}
	psc := pod.SecurityContext
	if *pod.AutomountServiceAccountToken || !*psc.RunAsNonRoot || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
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
	c := Job(scan, opts, Baseline{}).Spec.Template.Spec.Containers[0]
	if c.Image != "registry.example/cwac:2" || c.Resources.Limits.Memory().String() != "2Gi" {
		t.Errorf("image %s, resources %v", c.Image, c.Resources)
	}
	if d := *Job(scan, opts, Baseline{}).Spec.ActiveDeadlineSeconds; d != 3600 {
		t.Errorf("default deadline = %d", d)
	}
}

// The objects made for a scan carry the names scanspec gives them, a long
// scan name's included: the ConfigMap and the Job, the ConfigMap the Job
// mounts, the scan's directory on the results volume, and the pods'.
func TestObjectsCarryTheScanNames(t *testing.T) {
	long := sampleScan()
	long.Name = strings.Repeat("a", 60) + "-b"
	sharded := sampleScan()
	sharded.Name, sharded.Spec.Shards = "weekly.gov.nz", 2
	for _, scan := range []*cwacv1alpha1.CwacScan{sampleScan(), long, sharded} {
		job := Job(scan, opts, Baseline{})
		cm, err := ConfigMap(scan, opts)
		if err != nil {
			t.Fatal(err)
		}
		if name := scanspec.JobName(scan); job.Name != name || cm.Name != name || job.Spec.Template.Spec.Volumes[1].ConfigMap.Name != name {
			t.Errorf("%s: Job %q, ConfigMap %q, mounted ConfigMap %q; want %q", scan.Name, job.Name, cm.Name, job.Spec.Template.Spec.Volumes[1].ConfigMap.Name, name)
		}
		for _, m := range job.Spec.Template.Spec.Containers[0].VolumeMounts {
			if m.MountPath == scanpod.ResultsDir && m.SubPath != scanspec.ScanDir(scan) {
				t.Errorf("%s: results mounted from %q, want %q", scan.Name, m.SubPath, scanspec.ScanDir(scan))
			}
		}
		if got, want := CleanupPod(scan, opts).Name, scanspec.CleanupPodName(scan); got != want {
			t.Errorf("%s: cleanup pod %q, want %q", scan.Name, got, want)
		}
		if got, want := MergePod(scan, opts, Baseline{}, nil).Name, scanspec.MergePodName(scan); got != want {
			t.Errorf("%s: merge pod %q, want %q", scan.Name, got, want)
		}
	}
}

func TestConfigMapInvalid(t *testing.T) {
	scan := sampleScan()
	scan.Spec.ConfigOverrides = map[string]apiextensionsv1.JSON{"audit_name": {Raw: []byte(`"x"`)}}
	_, err := ConfigMap(scan, opts)
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
