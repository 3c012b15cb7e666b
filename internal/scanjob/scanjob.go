// Package scanjob builds the Kubernetes objects that run one CwacScan: the
// ConfigMap holding the scan's CWAC overrides and base URL CSV, and the Job
// whose pod runs CWAC under the runner, per the scan pod contract (hardened,
// non-root, read-only root filesystem, hard deadline, no retries). It builds
// objects only; the controller creates them.
package scanjob

import (
	"fmt"

	imageref "github.com/google/go-containerregistry/pkg/name"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/cwacconfig"
	"github.com/a11y-dev/cwac-operator/internal/gate"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
	"github.com/a11y-dev/cwac-operator/internal/scanspec"
	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

// Labels and annotations on everything the operator creates.
const (
	LabelManagedBy     = "app.kubernetes.io/managed-by"
	ManagedByValue     = "cwac-operator"
	LabelComponent     = "app.kubernetes.io/component"
	ComponentScan      = "cwac-scan"
	LabelScanUID       = "cwac.a11y.dev/scan-uid"
	AnnotationScanName = "cwac.a11y.dev/scan-name"

	volRunner        = "runner"
	volScan          = "scan"
	volTmp           = "tmp"
	volResults       = "results"
	scanUID    int64 = 1000 // CWAC's image runs as uid 1000

	// MaxConfigMapBytes keeps the ConfigMap well under the API server's 1 MiB object limit.
	MaxConfigMapBytes = 900 * 1024
)

// Options are the operator-wide settings for scan pods.
type Options struct {
	// ResultsPVC is the PersistentVolumeClaim holding all scans' results,
	// unless Bucket keeps them in a bucket.
	ResultsPVC string
	// Bucket keeps the results in an S3-compatible bucket (the zero value:
	// on ResultsPVC).
	Bucket BucketOptions
	// DefaultImage is the CWAC image used when a scan names none.
	DefaultImage string
	// RunnerImage holds /cwac-runner (the operator's own image).
	RunnerImage string
	// CWACDir is CWAC's tree in its image (/cwac).
	CWACDir string
	// Python is the interpreter in the CWAC image ("" lets the runner choose).
	Python string
	// ChromeExtraArgs becomes CHROME_EXTRA_ARGS (comma-separated Chrome flags).
	ChromeExtraArgs string
	// Env is extra environment for the CWAC container.
	Env []corev1.EnvVar
	// Resources apply when a scan sets none; with ScaleMemoryWithThreads
	// their memory request and limit are per browser thread (see Resources).
	Resources corev1.ResourceRequirements
	// ScaleMemoryWithThreads multiplies the memory of Resources by the scan's
	// threadCount: each of CWAC's browsers needs its own (see Resources).
	ScaleMemoryWithThreads bool
	// DefaultConfig is CWAC's config_default.json as the operator was given
	// it (--cwac-default-config); it is copied into every scan's ConfigMap
	// (scanpod.DefaultsFile), where the runner prefers it to the image's own.
	// Nil: scans use the image's config/config_default.json.
	DefaultConfig []byte
	// DefaultImageLacksDefaults declares that DefaultImage has no
	// config/config_default.json (CWAC's own Dockerfile leaves config/ out of
	// its image): without DefaultConfig, scans that would run it are refused
	// at admission (see CheckDefaults) instead of failing in their pod.
	DefaultImageLacksDefaults bool
	// ImagePullPolicy for the CWAC and runner images ("" = Kubernetes' default).
	ImagePullPolicy corev1.PullPolicy
	// ServiceAccountName for scan pods ("" = the namespace's default; its token is never mounted).
	ServiceAccountName string
	// SeccompLocalhostProfile, when set, replaces RuntimeDefault seccomp with
	// this node profile (one that lets Chrome's own sandbox create namespaces).
	SeccompLocalhostProfile string
	// NodeSelector, Tolerations and Affinity place scan pods.
	NodeSelector map[string]string
	Tolerations  []corev1.Toleration
	Affinity     *corev1.Affinity
	// MaxPodsPerScan caps how many of a sharded scan's pods run at once
	// (the operator's --max-concurrent-scans, which counts pods); 0 is no cap.
	MaxPodsPerScan int
	// Egress are the scan-target policy's lists (the operator's --url-*
	// flags), given to each scan pod's runner: its egress proxy checks
	// every connection of the scan against the same policy as admission.
	Egress urlpolicy.Lists
	// AllowedImages are the CWAC images scans may name in spec.image besides
	// DefaultImage, which is always allowed (see CheckImage): image
	// references, or prefixes ending in * (registry.example/cwac:*); AnyImage
	// alone allows every image. Empty: DefaultImage only, the operator's
	// default. Nil: every image (tests only; the operator always sets it).
	AllowedImages []string
}

// Memory per browser thread, from measurements of real CWAC: one browser
// needs about 0.45-0.8 GiB; a 4-page scan with one thread needs 0.44-0.79 GB,
// passes at 512 MiB and is OOM-killed at 384 MiB; a 23-page scan with two
// threads under 1 GiB hit the limit constantly (anonymous peak 652-671 MiB,
// page cache reclaimed) and ran clean, in the same time, under 2 GiB.
var (
	MemoryRequestPerThread = resource.MustParse("512Mi")
	MemoryLimitPerThread   = resource.MustParse("1Gi")
)

// DefaultResources are the CWAC container's resources for one browser
// thread; with Options.ScaleMemoryWithThreads the memory grows with the
// scan's threadCount (see Resources).
func DefaultResources() corev1.ResourceRequirements {
	return corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: MemoryRequestPerThread},
		Limits:   corev1.ResourceList{corev1.ResourceMemory: MemoryLimitPerThread},
	}
}

// Resources are the CWAC container's resources: the scan's own
// spec.resources when set, as they are; else the operator's, whose memory
// request and limit, with ScaleMemoryWithThreads, are per browser thread and
// multiplied by threadCount (1 when unset). By default that is threadCount ×
// 512Mi requested and threadCount × 1Gi limit; CPU and other resources do
// not scale.
func Resources(scan *cwacv1alpha1.CwacScan, opts Options) corev1.ResourceRequirements {
	if scan.Spec.Resources != nil {
		return *scan.Spec.Resources.DeepCopy()
	}
	res := *opts.Resources.DeepCopy()
	threads := int64(max(scan.Spec.ThreadCount, 1))
	if !opts.ScaleMemoryWithThreads || threads == 1 {
		return res
	}
	for _, list := range []corev1.ResourceList{res.Requests, res.Limits} {
		if q, ok := list[corev1.ResourceMemory]; ok {
			list[corev1.ResourceMemory] = *resource.NewQuantity(q.Value()*threads, q.Format)
		}
	}
	return res
}

// Image is the CWAC image a scan runs: its own, else the operator's default.
func Image(scan *cwacv1alpha1.CwacScan, opts Options) string {
	if scan.Spec.Image != "" {
		return scan.Spec.Image
	}
	return opts.DefaultImage
}

// CheckDefaults refuses, before anything runs, a scan that would have no
// CWAC defaults: the operator has none (DefaultConfig) and the scan runs the
// default image, declared without them (DefaultImageLacksDefaults). A scan
// naming another image is let through: that image may carry config/ (the
// runner says both fixes if it does not).
func CheckDefaults(scan *cwacv1alpha1.CwacScan, opts Options) error {
	if len(opts.DefaultConfig) > 0 || !opts.DefaultImageLacksDefaults {
		return nil
	}
	if !sameImage(Image(scan, opts), opts.DefaultImage) {
		return nil
	}
	return fmt.Errorf("no CWAC defaults for this scan: the CWAC image %s is declared without config/config_default.json "+
		"(CWAC's own Dockerfile leaves config/ out of its image) and the operator was given none: %s",
		opts.DefaultImage, scanpod.NoDefaultsFix)
}

// sameImage: a and b name the same image, however spelt ("cwac:1" is
// "docker.io/library/cwac:1"; no tag is ":latest").
func sameImage(a, b string) bool {
	if a == b {
		return true
	}
	ra, errA := imageref.ParseReference(a, imageref.WeakValidation)
	rb, errB := imageref.ParseReference(b, imageref.WeakValidation)
	return errA == nil && errB == nil && ra.Name() == rb.Name()
}

// InvalidSpecError is a problem with the scan's spec that retrying cannot fix.
type InvalidSpecError struct{ Err error }

func (e *InvalidSpecError) Error() string { return e.Err.Error() }
func (e *InvalidSpecError) Unwrap() error { return e.Err }

// ConfigMap renders the scan's ConfigMap: scan.json (CWAC config overrides),
// urls.csv (CWAC's base URL CSV) and, when the operator has them, CWAC's
// defaults (config_default.json; scan pods can mount ConfigMaps of their own
// namespace only, so each scan carries its copy). Problems with the spec
// come back as *InvalidSpecError.
func ConfigMap(scan *cwacv1alpha1.CwacScan, opts Options) (*corev1.ConfigMap, error) {
	invalid := func(err error) error { return &InvalidSpecError{Err: err} }
	sites, err := scanspec.Sites(scan)
	if err != nil {
		return nil, invalid(err)
	}
	csv, err := cwacconfig.WriteBaseURLCSV(sites)
	if err != nil {
		return nil, invalid(err)
	}
	in := cwacconfig.Scan{
		AuditName:         scanspec.AuditName(scan),
		MaxLinksPerDomain: int(scan.Spec.MaxLinksPerDomain),
		ThreadCount:       int(scan.Spec.ThreadCount),
		Plugins:           scan.Spec.Plugins,
	}
	if len(scan.Spec.ViewportSizes) > 0 {
		in.ViewportSizes = map[string]cwacconfig.Viewport{}
		for name, v := range scan.Spec.ViewportSizes {
			in.ViewportSizes[name] = cwacconfig.Viewport{Width: int(v.Width), Height: int(v.Height)}
		}
	}
	in.Overrides = overrides(scan)
	rendered, err := cwacconfig.RenderOverrides(in)
	if err != nil {
		return nil, invalid(specError(err))
	}
	if size := len(rendered) + len(csv) + len(opts.DefaultConfig); size > MaxConfigMapBytes {
		return nil, invalid(fmt.Errorf("the scan's config and URL list take %d bytes, over the %d-byte ConfigMap limit: split it into several scans",
			size, MaxConfigMapBytes))
	}
	data := map[string]string{
		scanpod.OverridesFile: string(rendered),
		scanpod.URLsFile:      string(csv),
	}
	if len(opts.DefaultConfig) > 0 {
		data[scanpod.DefaultsFile] = string(opts.DefaultConfig)
	}
	return &corev1.ConfigMap{ObjectMeta: objectMeta(scan), Data: data}, nil
}

func labels(scan *cwacv1alpha1.CwacScan) map[string]string {
	return map[string]string{
		LabelManagedBy: ManagedByValue,
		LabelComponent: ComponentScan,
		LabelScanUID:   string(scan.UID),
	}
}

func objectMeta(scan *cwacv1alpha1.CwacScan) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Name:        scanspec.JobName(scan),
		Namespace:   scan.Namespace,
		Labels:      labels(scan),
		Annotations: map[string]string{AnnotationScanName: scan.Name},
	}
}

// seccomp is RuntimeDefault, or the operator's Localhost profile.
func seccomp(opts Options) *corev1.SeccompProfile {
	if opts.SeccompLocalhostProfile != "" {
		return &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeLocalhost, LocalhostProfile: ptr.To(opts.SeccompLocalhostProfile)}
	}
	return &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}
}

// podSecurity is the pod security context of every pod the operator makes
// on the results volume: non-root as CWAC's uid, which owns what scan pods
// write, with its group on the volume.
func podSecurity(opts Options) *corev1.PodSecurityContext {
	return &corev1.PodSecurityContext{
		RunAsNonRoot:   ptr.To(true),
		RunAsUser:      ptr.To(scanUID),
		RunAsGroup:     ptr.To(scanUID),
		FSGroup:        ptr.To(scanUID),
		SeccompProfile: seccomp(opts),
	}
}

// runnerResources are the resources of a container that runs only the
// runner's small modes (installing itself, deleting results).
func runnerResources() corev1.ResourceRequirements {
	return corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("16Mi")},
		Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("64Mi")},
	}
}

// hardened is the container security context every scan container gets.
func hardened(opts Options) *corev1.SecurityContext {
	return &corev1.SecurityContext{
		RunAsNonRoot:             ptr.To(true),
		RunAsUser:                ptr.To(scanUID),
		RunAsGroup:               ptr.To(scanUID),
		AllowPrivilegeEscalation: ptr.To(false),
		ReadOnlyRootFilesystem:   ptr.To(true),
		Privileged:               ptr.To(false),
		Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		SeccompProfile:           seccomp(opts),
	}
}

// Baseline is the earlier scan a scan's results are compared with.
type Baseline struct {
	// Name is the baseline CwacScan's name.
	Name string
	// ResultsPath is its status.resultsPath: its CWAC results directory
	// relative to the results volume's root.
	ResultsPath string
}

// Job renders the scan's Job; the caller sets the owner reference. Given a
// usable baseline (the zero Baseline is none), the baseline's results
// directory, and only it, is mounted read-only at scanpod.BaselineDir, and
// the runner is told to compare with it. A sharded scan's Job gets neither:
// its merge pod compares (MergePod).
func Job(scan *cwacv1alpha1.CwacScan, opts Options, baseline Baseline) *batchv1.Job {
	image := Image(scan, opts)
	resources := Resources(scan, opts)
	flags := scanpod.DefaultRunnerFlags()
	flags.CWACDir = opts.CWACDir
	flags.Python = opts.Python
	flags.Egress = opts.Egress
	describeForReports(scan, image, &flags)
	mounts := []corev1.VolumeMount{
		{Name: volRunner, MountPath: scanpod.RunnerDir, ReadOnly: true},
		{Name: volScan, MountPath: scanpod.ConfigDir, ReadOnly: true},
		{Name: volTmp, MountPath: scanpod.TmpDir},
		resultsMount(scan, opts),
	}
	volumes := []corev1.Volume{
		{Name: volRunner, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: ptr.To(resource.MustParse("128Mi"))}}},
		scanConfigVolume(scan),
		{Name: volTmp, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: ptr.To(resource.MustParse("4Gi"))}}},
		resultsVolume(opts),
	}
	flags.Shards = scan.Spec.ShardCount()
	if flags.Shards <= 1 {
		// A shard is not compared with the baseline: the merge pod
		// compares the whole scan's results (MergePod).
		mounts = compareWith(baseline, opts, &flags, mounts)
	}
	if opts.Bucket.Enabled() {
		mounts, volumes = withGrant(scan, &flags, mounts, volumes)
	}
	env := make([]corev1.EnvVar, 0, 4+len(opts.Env))
	env = append(env,
		corev1.EnvVar{Name: "HOME", Value: scanpod.TmpDir}, // Chrome writes under $HOME and /tmp only
		corev1.EnvVar{Name: "TMPDIR", Value: scanpod.TmpDir},
		corev1.EnvVar{Name: "CHROME_EXTRA_ARGS", Value: opts.ChromeExtraArgs},
		corev1.EnvVar{Name: "PYTHONDONTWRITEBYTECODE", Value: "1"},
	)
	env = append(env, opts.Env...)
	meta := objectMeta(scan)
	deadline := int64(scanspec.Timeout(scan).Seconds())

	job := &batchv1.Job{
		ObjectMeta: meta,
		Spec: batchv1.JobSpec{
			BackoffLimit:          ptr.To[int32](0),
			ActiveDeadlineSeconds: ptr.To(deadline),
			Completions:           ptr.To[int32](1),
			Parallelism:           ptr.To[int32](1),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: meta.Labels, Annotations: meta.Annotations},
				Spec: corev1.PodSpec{
					RestartPolicy:                 corev1.RestartPolicyNever,
					AutomountServiceAccountToken:  ptr.To(false),
					ServiceAccountName:            opts.ServiceAccountName,
					NodeSelector:                  opts.NodeSelector,
					Tolerations:                   opts.Tolerations,
					Affinity:                      opts.Affinity,
					EnableServiceLinks:            ptr.To(false),
					TerminationGracePeriodSeconds: ptr.To[int64](30),
					SecurityContext:               podSecurity(opts),
					InitContainers: []corev1.Container{{
						Name:                     scanpod.InitContainerName,
						Image:                    opts.RunnerImage,
						ImagePullPolicy:          opts.ImagePullPolicy,
						Command:                  []string{scanpod.RunnerImagePath, "--install=" + scanpod.RunnerPath},
						SecurityContext:          hardened(opts),
						Resources:                runnerResources(),
						VolumeMounts:             []corev1.VolumeMount{{Name: volRunner, MountPath: scanpod.RunnerDir}},
						TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
					}},
					Containers: []corev1.Container{{
						Name:                     scanpod.ContainerName,
						Image:                    image,
						ImagePullPolicy:          opts.ImagePullPolicy,
						Command:                  []string{scanpod.RunnerPath},
						Args:                     flags.Args(),
						WorkingDir:               scanpod.TmpDir,
						Env:                      env,
						Resources:                resources,
						SecurityContext:          hardened(opts),
						TerminationMessagePath:   scanpod.TerminationLog,
						TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
						VolumeMounts:             mounts,
					}},
					Volumes: volumes,
				},
			},
		},
	}
	if scan.Spec.ShardCount() > 1 {
		indexed(&job.Spec, scan, opts)
	}
	return job
}

// compareWith mounts the baseline's results directory, and only it,
// read-only at scanpod.BaselineDir and tells the runner to compare with it,
// when the scan has a usable baseline; it returns mounts as they were
// otherwise. With a bucket nothing is mounted: the baseline is fetched
// (withGrant, withCredentials).
func compareWith(baseline Baseline, opts Options, flags *scanpod.RunnerFlags, mounts []corev1.VolumeMount) []corev1.VolumeMount {
	if baseline.ResultsPath == "" {
		return mounts
	}
	flags.BaselineDir, flags.BaselineName = scanpod.BaselineDir, baseline.Name
	if opts.Bucket.Enabled() {
		return mounts
	}
	return append(mounts, corev1.VolumeMount{Name: volResults, MountPath: scanpod.BaselineDir, SubPath: baseline.ResultsPath, ReadOnly: true})
}

// describeForReports tells the runner what its CI reports say of the scan
// beyond its results (docs/ci.md): the CwacScan's name and namespace (each
// issue's identity is its namespace's, as in the history), its thresholds and
// the CWAC image it runs, as the tool's version. An image longer than the
// runner takes (spec.image is bounded by the CRD, the operator's default
// image is not) is left out rather than failing the scan.
func describeForReports(scan *cwacv1alpha1.CwacScan, image string, flags *scanpod.RunnerFlags) {
	flags.ScanName, flags.ScanNamespace = scan.Name, scan.Namespace
	flags.Thresholds = gate.NamedThresholds(scan.Spec.Thresholds)
	if len(image) <= scanpod.MaxCWACImageBytes {
		flags.CWACImage = image
	}
}

// scanConfigVolume is the scan's ConfigMap as a volume. It is optional: a
// ConfigMap deleted after the pod was made then mounts as an empty
// directory, and the runner fails at once saying so, instead of the pod
// waiting on the mount until the scan's deadline.
func scanConfigVolume(scan *cwacv1alpha1.CwacScan) corev1.Volume {
	return corev1.Volume{Name: volScan, VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
		LocalObjectReference: corev1.LocalObjectReference{Name: scanspec.JobName(scan)},
		DefaultMode:          ptr.To[int32](0o444),
		Optional:             ptr.To(true),
	}}}
}
