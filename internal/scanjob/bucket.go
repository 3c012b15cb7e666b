package scanjob

import (
	"path"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/objectstore"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
	"github.com/a11y-dev/cwac-operator/internal/scanspec"
)

// BucketOptions keep the results in an S3-compatible bucket
// (docs/results-bucket.md) instead of on Options.ResultsPVC: every pod
// writes into a scratch volume of its own and stores from there, so scan
// pods run on any node. A scan pod stores with its grant (GrantSecret),
// never credentials: CWAC's browser runs in it. The merge pod, which runs
// no browser, takes the credentials.
type BucketOptions struct {
	// Config is the bucket. Its CAFile and CredentialsDir are the
	// operator's own paths; the merge pod gets CASecret and
	// CredentialsSecret mounted in their place.
	Config objectstore.Config
	// CredentialsSecret holds objectstore.AccessKeyFile and
	// objectstore.SecretKeyFile for the merge pod ("" for the platform's
	// credentials, workload identity).
	CredentialsSecret string
	// CASecret holds BucketCAFile, the endpoint's private authorities ("" for none).
	CASecret string
	// ServiceAccountName is the merge pod's service account ("" = the scan
	// pods' Options.ServiceAccountName): the identity workload identity
	// gives the bucket's credentials to. Scan pods never run as it, so a
	// page CWAC's browser opens cannot reach those credentials.
	ServiceAccountName string
	// Scratch bounds each pod's results volume (zero: DefaultResultsScratch).
	Scratch resource.Quantity
}

// Enabled says whether results are kept in a bucket.
func (b BucketOptions) Enabled() bool { return b.Config.Enabled() }

// Paths and names of the merge pod's bucket mounts.
const (
	BucketCAFile         = "ca.crt"
	bucketCredentialsDir = "/bucket-credentials"
	bucketCADir          = "/bucket-ca"
	volGrant             = "results-grant"
	volBucketCredentials = "bucket-credentials"
	volBucketCA          = "bucket-ca"
)

// DefaultResultsScratch is a pod's results volume with a bucket: room for
// a scan's CSVs (a million issue rows is about 1 GiB) and what the runner
// writes beside them, twice over.
var DefaultResultsScratch = resource.MustParse("20Gi")

// baselineScratch is where a pod fetches the baseline's results to.
var baselineScratch = path.Join(scanpod.TmpDir, "baseline")

// GrantPath is the scan pod's grant file.
var GrantPath = path.Join(scanpod.GrantDir, scanpod.GrantFile)

// GrantSecret renders the Secret that gives the scan's pods their grant
// (an objectstore.Grant as JSON), named as the scan's Job. The caller sets
// the owner reference.
func GrantSecret(scan *cwacv1alpha1.CwacScan, grant []byte) *corev1.Secret {
	return &corev1.Secret{ObjectMeta: objectMeta(scan), Type: corev1.SecretTypeOpaque, Data: map[string][]byte{scanpod.GrantFile: grant}}
}

// resultsMount mounts the scan's directory: its own on the claim, or the
// pod's scratch volume with a bucket.
func resultsMount(scan *cwacv1alpha1.CwacScan, opts Options) corev1.VolumeMount {
	if opts.Bucket.Enabled() {
		return corev1.VolumeMount{Name: volResults, MountPath: scanpod.ResultsDir}
	}
	return corev1.VolumeMount{Name: volResults, MountPath: scanpod.ResultsDir, SubPath: scanspec.ScanDir(scan)}
}

// resultsVolume is the claim holding every scan's results (each pod
// mounts only its scan's directory of it, and a baseline's, read-only), or
// with a bucket the pod's own scratch volume.
func resultsVolume(opts Options) corev1.Volume {
	if opts.Bucket.Enabled() {
		size := opts.Bucket.Scratch
		if size.IsZero() {
			size = DefaultResultsScratch
		}
		return corev1.Volume{Name: volResults, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: &size}}}
	}
	claim := &corev1.PersistentVolumeClaimVolumeSource{ClaimName: opts.ResultsPVC}
	return corev1.Volume{Name: volResults, VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: claim}}
}

// withGrant gives a scan pod its grant: the Secret mounted read-only, the
// runner told where, and the baseline (which the grant fetches) put in
// the pod's scratch space.
func withGrant(scan *cwacv1alpha1.CwacScan, flags *scanpod.RunnerFlags,
	mounts []corev1.VolumeMount, volumes []corev1.Volume) ([]corev1.VolumeMount, []corev1.Volume) {
	flags.ResultsGrant = GrantPath
	if flags.BaselineName != "" {
		flags.BaselineDir = baselineScratch
	}
	mounts = append(mounts, corev1.VolumeMount{Name: volGrant, MountPath: scanpod.GrantDir, ReadOnly: true})
	volumes = append(volumes, corev1.Volume{Name: volGrant, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
		SecretName: scanspec.JobName(scan), DefaultMode: ptr.To[int32](0o440), Optional: ptr.To(true),
		Items: []corev1.KeyToPath{{Key: scanpod.GrantFile, Path: scanpod.GrantFile}},
	}}})
	return mounts, volumes
}

// withCredentials gives the merge pod the bucket: its configuration as the
// pod sees it, the credentials and authorities mounted read-only, the
// scan's and the baseline's directories in the bucket.
func withCredentials(scan *cwacv1alpha1.CwacScan, opts Options, baseline Baseline, flags *scanpod.RunnerFlags,
	mounts []corev1.VolumeMount, volumes []corev1.Volume) ([]corev1.VolumeMount, []corev1.Volume) {
	b := opts.Bucket
	flags.Bucket = b.Config
	flags.Bucket.CredentialsDir, flags.Bucket.CAFile = "", ""
	flags.ResultsKey = scanspec.ScanDir(scan)
	if baseline.ResultsPath != "" {
		flags.BaselineKey, flags.BaselineDir, flags.BaselineName = baseline.ResultsPath, baselineScratch, baseline.Name
	}
	secret := func(vol, name, dir string) {
		mounts = append(mounts, corev1.VolumeMount{Name: vol, MountPath: dir, ReadOnly: true})
		volumes = append(volumes, corev1.Volume{Name: vol, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
			SecretName: name, DefaultMode: ptr.To[int32](0o440)}}})
	}
	if b.CredentialsSecret != "" {
		flags.Bucket.CredentialsDir = bucketCredentialsDir
		secret(volBucketCredentials, b.CredentialsSecret, bucketCredentialsDir)
	}
	if b.CASecret != "" {
		flags.Bucket.CAFile = path.Join(bucketCADir, BucketCAFile)
		secret(volBucketCA, b.CASecret, bucketCADir)
	}
	return mounts, volumes
}
