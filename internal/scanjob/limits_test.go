package scanjob

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanspec"

	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

// The Job's deadline is the scan's deadline (scanspec.Timeout), in seconds.
func TestJobDeadline(t *testing.T) {
	for timeout, want := range map[string]int64{"90m": 5400, "1s": 1, "": int64(scanspec.DefaultTimeout.Seconds())} {
		scan := sampleScan()
		scan.Spec.Timeout = timeout
		if got := *Job(scan, opts, Baseline{}).Spec.ActiveDeadlineSeconds; got != want {
			t.Errorf("timeout %q: the Job's deadline is %d s, want %d", timeout, got, want)
		}
	}
}

// The ConfigMap's content is held to MaxConfigMapBytes: one byte below, at
// and one above, counting the overrides, the URL list and the defaults.
func TestConfigMapSizeBoundary(t *testing.T) {
	bare, err := ConfigMap(sampleScan(), opts)
	if err != nil {
		t.Fatal(err)
	}
	used := len(bare.Data[scanpod.OverridesFile]) + len(bare.Data[scanpod.URLsFile])
	for _, size := range []int{MaxConfigMapBytes - 1, MaxConfigMapBytes, MaxConfigMapBytes + 1} {
		o := opts
		o.DefaultConfig = []byte(strings.Repeat("x", size-used))
		cm, err := ConfigMap(sampleScan(), o)
		if size <= MaxConfigMapBytes {
			if err != nil || len(cm.Data[scanpod.DefaultsFile]) != size-used {
				t.Errorf("%d bytes refused: %v", size, err)
			}
			continue
		}
		var invalid *InvalidSpecError
		if !errors.As(err, &invalid) || !strings.Contains(err.Error(), "take 921601 bytes, over the 921600-byte ConfigMap limit") {
			t.Errorf("%d bytes: %v, want an InvalidSpecError naming the size and the limit", size, err)
		}
	}
}

// A scan is run with its own thread count: 0 counts as one thread.
func TestResourcesThreadBoundary(t *testing.T) {
	scaled := opts
	scaled.ScaleMemoryWithThreads = true
	for _, tt := range []struct {
		threads       int32
		request, limt string
	}{{0, "512Mi", "1Gi"}, {1, "512Mi", "1Gi"}, {2, "1Gi", "2Gi"}} {
		scan := sampleScan()
		scan.Spec.ThreadCount = tt.threads
		got := Resources(scan, scaled)
		if r, l := got.Requests.Memory().String(), got.Limits.Memory().String(); r != tt.request || l != tt.limt {
			t.Errorf("%d threads: %s/%s, want %s/%s", tt.threads, r, l, tt.request, tt.limt)
		}
	}
}

// Both sides of a baseline: without one the Job mounts and passes nothing
// about it; with one, its results directory only, read-only.
func TestJobBaselineMount(t *testing.T) {
	plain := Job(sampleScan(), opts, Baseline{}).Spec.Template.Spec.Containers[0]
	const dir = "a11y/nightly-1-0f1e2d3c/2026-11-21_23-18-23_nightly"
	compared := Job(sampleScan(), opts, Baseline{Name: "nightly-1", ResultsPath: dir}).Spec.Template.Spec.Containers[0]
	if len(compared.VolumeMounts) != len(plain.VolumeMounts)+1 {
		t.Fatalf("mounts %d with a baseline, %d without", len(compared.VolumeMounts), len(plain.VolumeMounts))
	}
	m := compared.VolumeMounts[len(compared.VolumeMounts)-1]
	if m.MountPath != scanpod.BaselineDir || !m.ReadOnly || m.SubPath != dir {
		t.Errorf("baseline mount %+v", m)
	}
	args := strings.Join(compared.Args, " ") + strings.Join(compared.Command, " ")
	if !strings.Contains(args, "--baseline-dir="+scanpod.BaselineDir) || !strings.Contains(args, "--baseline-name=nightly-1") {
		t.Errorf("the runner is not told to compare: %s", args)
	}
	if plainArgs := strings.Join(plain.Args, " ") + strings.Join(plain.Command, " "); strings.Contains(plainArgs, "baseline") {
		t.Errorf("a scan without a baseline is told about one: %s", plainArgs)
	}
}

// Each spec problem ConfigMap finds is an *InvalidSpecError wrapping the cause.
func TestConfigMapInvalidSpecs(t *testing.T) {
	tests := []struct {
		name   string
		change func(*cwacv1alpha1.CwacScan)
		want   string
	}{
		{"no URL", func(s *cwacv1alpha1.CwacScan) { s.Spec.URLs, s.Spec.Sites = nil, nil }, "At least one URL is required"},
		{"a URL that is not http(s)", func(s *cwacv1alpha1.CwacScan) { s.Spec.URLs = []string{"ftp://x.example/"} }, "only http and https URLs can be scanned"},
		{"an unknown plugin", func(s *cwacv1alpha1.CwacScan) { s.Spec.Plugins = map[string]bool{"seo_audit": true} }, "unknown plugin(s) seo_audit"},
		{"a viewport without height", func(s *cwacv1alpha1.CwacScan) {
			s.Spec.ViewportSizes = map[string]cwacv1alpha1.Viewport{"small": {Width: 320}}
		}, `viewport "small": width and height must be positive`},
		{"an invalid audit name", func(s *cwacv1alpha1.CwacScan) { s.Spec.AuditName = "a/b" }, `invalid audit name "a/b"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scan := sampleScan()
			tt.change(scan)
			_, err := ConfigMap(scan, opts)
			var invalid *InvalidSpecError
			if !errors.As(err, &invalid) || !strings.Contains(err.Error(), tt.want) || errors.Unwrap(invalid) == nil {
				t.Errorf("ConfigMap: %v, want an InvalidSpecError with %q", err, tt.want)
			}
		})
	}
}

// The scan's own audit name reaches scan.json.
func TestAuditNameFromSpec(t *testing.T) {
	scan := sampleScan()
	scan.Spec.AuditName = "Nightly_Run.2"
	cm, err := ConfigMap(scan, opts)
	if err != nil || !strings.Contains(cm.Data[scanpod.OverridesFile], `"audit_name": "Nightly_Run.2"`) {
		t.Errorf("scan.json lacks the audit name (%v):\n%s", err, cm.Data[scanpod.OverridesFile])
	}
}

// The operator's Localhost seccomp profile replaces RuntimeDefault on the
// pod and on each container.
func TestSeccompLocalhost(t *testing.T) {
	o := opts
	o.SeccompLocalhostProfile = "profiles/cwac-chrome.json"
	pod := Job(sampleScan(), o, Baseline{}).Spec.Template.Spec
	profiles := []*corev1.SeccompProfile{
		pod.SecurityContext.SeccompProfile,
		pod.InitContainers[0].SecurityContext.SeccompProfile,
		pod.Containers[0].SecurityContext.SeccompProfile,
	}
	for i, p := range profiles {
		if p == nil || p.Type != corev1.SeccompProfileTypeLocalhost || p.LocalhostProfile == nil || *p.LocalhostProfile != o.SeccompLocalhostProfile {
			t.Errorf("profile %d: %+v", i, p)
		}
	}
}

// The scan's viewports reach scan.json (a scan without any leaves CWAC's).
func TestConfigMapViewports(t *testing.T) {
	scan := sampleScan()
	scan.Spec.ViewportSizes = map[string]cwacv1alpha1.Viewport{"phone": {Width: 375, Height: 667}}
	cm, err := ConfigMap(scan, opts)
	if err != nil || !strings.Contains(cm.Data[scanpod.OverridesFile], `"phone": {`) {
		t.Errorf("scan.json lacks the viewport (%v):\n%s", err, cm.Data[scanpod.OverridesFile])
	}
	cm, err = ConfigMap(sampleScan(), opts)
	if err != nil || strings.Contains(cm.Data[scanpod.OverridesFile], "viewport_sizes") {
		t.Errorf("scan.json sets viewports the scan did not (%v):\n%s", err, cm.Data[scanpod.OverridesFile])
	}
}

// However many variables the operator adds, each reaches the CWAC
// container, after the pod's own, in order.
func TestJobExtraEnv(t *testing.T) {
	for _, n := range []int{0, 1, 4, 5, 9} {
		o := opts
		o.Env = nil
		for i := range n {
			o.Env = append(o.Env, corev1.EnvVar{Name: "EXTRA_" + string(rune('A'+i)), Value: "v"})
		}
		env := Job(sampleScan(), o, Baseline{}).Spec.Template.Spec.Containers[0].Env
		if len(env) != 4+n {
			t.Fatalf("%d extra variables: %d in the container", n, len(env))
		}
		for i, e := range o.Env {
			if env[4+i] != e {
				t.Errorf("%d extra variables: #%d is %v, want %v", n, i, env[4+i], e)
			}
		}
	}
}

// spec.shards: 1 is one pod (not Indexed); 2 is the fewest that shard; at
// scanpod.MaxShards, the most, over as many organisations, every shard
// runs and the Job's highest-index hostname is still a DNS label for the
// longest scan name.
func TestShardsBoundary(t *testing.T) {
	for _, tt := range []struct {
		shards  int32
		indexed bool
	}{{1, false}, {2, true}, {scanpod.MaxShards - 1, true}, {scanpod.MaxShards, true}} {
		scan := sampleScan()
		scan.Name = strings.Repeat("n", 253)
		scan.Spec.URLs, scan.Spec.Sites = nil, nil
		for i := range scanpod.MaxShards {
			scan.Spec.URLs = append(scan.Spec.URLs, fmt.Sprintf("https://site%d.example.org/", i))
		}
		scan.Spec.Shards = tt.shards
		job := Job(scan, opts, Baseline{})
		if got := job.Spec.CompletionMode != nil; got != tt.indexed {
			t.Errorf("%d shards: Indexed %v, want %v", tt.shards, got, tt.indexed)
		}
		if *job.Spec.Completions != tt.shards || ShardCount(scan) != int(tt.shards) {
			t.Errorf("%d shards: %d completions, ShardCount %d", tt.shards, *job.Spec.Completions, ShardCount(scan))
		}
		hostname := fmt.Sprintf("%s-%d", job.Name, *job.Spec.Completions-1)
		if errs := validation.IsDNS1123Label(hostname); tt.indexed && len(errs) > 0 {
			t.Errorf("%d shards: %q: %v", tt.shards, hostname, errs)
		}
	}
}
