package scanjob

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/a11y-dev/cwac-operator/internal/objectstore"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
	"github.com/a11y-dev/cwac-operator/internal/scanspec"
)

// bucketOpts keep results in a bucket, with credentials and a CA for the
// merge pod, as the operator sees them.
func bucketOpts() Options {
	o := opts
	o.Bucket = BucketOptions{
		Config: objectstore.Config{Endpoint: "https://s3.example", Bucket: "cwac", Prefix: "results", PathStyle: true,
			CAFile: "/operator/ca.crt", CredentialsDir: "/operator/creds"},
		CredentialsSecret: "cwac-bucket", CASecret: "cwac-bucket-ca",
	}
	return o
}

func volumesByName(vs []corev1.Volume) map[string]corev1.Volume {
	out := map[string]corev1.Volume{}
	for _, v := range vs {
		out[v.Name] = v
	}
	return out
}

// A scan pod with a bucket: no claim, a scratch volume, its grant and
// never the credentials; the baseline fetched, not mounted.
func TestJobWithBucket(t *testing.T) {
	scan := testScan()
	job := Job(scan, bucketOpts(), Baseline{Name: "nightly-1", ResultsPath: mergeBaselineDir})
	pod := job.Spec.Template.Spec
	vols := volumesByName(pod.Volumes)
	if r := vols[volResults]; r.PersistentVolumeClaim != nil || r.EmptyDir == nil || r.EmptyDir.SizeLimit.Cmp(DefaultResultsScratch) != 0 {
		t.Errorf("results volume %+v, want a scratch emptyDir of %s", r.VolumeSource, DefaultResultsScratch.String())
	}
	g := vols[volGrant].Secret
	if g == nil || g.SecretName != scanspec.JobName(scan) || !*g.Optional {
		t.Fatalf("grant volume %+v", vols[volGrant])
	}
	for name, v := range vols {
		if v.Secret != nil && name != volGrant {
			t.Errorf("a scan pod mounts Secret %s: it runs a browser and takes a grant only", v.Secret.SecretName)
		}
	}
	c := pod.Containers[0]
	for _, m := range c.VolumeMounts {
		switch {
		case m.Name == volResults && (m.SubPath != "" || m.MountPath != scanpod.ResultsDir):
			t.Errorf("results mount %+v", m)
		case m.MountPath == scanpod.BaselineDir:
			t.Errorf("the baseline is mounted (%+v): with a bucket it is fetched", m)
		case m.Name == volGrant && (!m.ReadOnly || m.MountPath != scanpod.GrantDir):
			t.Errorf("grant mount %+v", m)
		}
	}
	want := []string{"--baseline-dir=/tmp/baseline", "--baseline-name=nightly-1", "--results-grant=/results-grant/grant.json"}
	for _, a := range want {
		if !slices.Contains(c.Args, a) {
			t.Errorf("args %q lack %q", c.Args, a)
		}
	}
	for _, a := range c.Args {
		if strings.HasPrefix(a, "--results-bucket") || strings.HasPrefix(a, "--results-key") || strings.HasPrefix(a, "--baseline-key") {
			t.Errorf("a scan pod is given %q", a)
		}
	}
	// Sharded: every shard stores with the same grant and none fetches the baseline.
	sharded := Job(shardedScan(3, ""), bucketOpts(), Baseline{Name: "nightly-1", ResultsPath: mergeBaselineDir}).Spec.Template.Spec.Containers[0]
	if !slices.Contains(sharded.Args, "--results-grant=/results-grant/grant.json") || slices.ContainsFunc(sharded.Args, func(a string) bool {
		return strings.HasPrefix(a, "--baseline")
	}) {
		t.Errorf("a shard's args %q", sharded.Args)
	}
}

// The merge pod with a bucket: the credentials and CA mounted read-only
// in place of the operator's paths, the scan's and the baseline's keys.
func TestMergePodWithBucket(t *testing.T) {
	scan := shardedScan(4, "")
	p := MergePod(scan, bucketOpts(), Baseline{Name: "nightly-1", ResultsPath: mergeBaselineDir}, nil)
	vols := volumesByName(p.Spec.Volumes)
	if vols[volBucketCredentials].Secret == nil || vols[volBucketCredentials].Secret.SecretName != "cwac-bucket" ||
		vols[volBucketCA].Secret == nil || vols[volBucketCA].Secret.SecretName != "cwac-bucket-ca" || vols[volResults].EmptyDir == nil {
		t.Fatalf("volumes %+v", p.Spec.Volumes)
	}
	c := p.Spec.Containers[0]
	for _, a := range []string{
		"--results-bucket-endpoint=https://s3.example", "--results-bucket=cwac", "--results-bucket-prefix=results",
		"--results-bucket-ca-file=/bucket-ca/ca.crt", "--results-bucket-credentials-dir=/bucket-credentials", "--results-bucket-path-style",
		"--results-key=" + scanspec.ScanDir(scan), "--baseline-key=" + mergeBaselineDir, "--baseline-dir=/tmp/baseline",
	} {
		if !slices.Contains(c.Args, a) {
			t.Errorf("merge args %q lack %q", c.Args, a)
		}
	}
	for _, m := range c.VolumeMounts {
		if (m.Name == volBucketCredentials || m.Name == volBucketCA) && !m.ReadOnly {
			t.Errorf("%s is writable", m.Name)
		}
	}
	// Platform credentials: nothing mounted, no directory named.
	o := bucketOpts()
	o.Bucket.CredentialsSecret, o.Bucket.CASecret = "", ""
	c = MergePod(scan, o, Baseline{}, nil).Spec.Containers[0]
	if slices.ContainsFunc(c.Args, func(a string) bool { return strings.Contains(a, "credentials-dir") || strings.Contains(a, "ca-file") }) {
		t.Errorf("platform credentials: args %q", c.Args)
	}
}

// With a service account of its own for the merge pod (workload
// identity), the merge pod runs as it and the scan pods never do; without
// one, or without a bucket, the merge pod runs as the scan pods.
func TestMergePodServiceAccount(t *testing.T) {
	scan := shardedScan(4, "")
	for name, tc := range map[string]struct {
		bucket, merge    bool
		wantScan, wantMg string
	}{
		"bucket, merge account":    {bucket: true, merge: true, wantScan: "cwac-scans", wantMg: "cwac-merge"},
		"bucket, no merge account": {bucket: true, wantScan: "cwac-scans", wantMg: "cwac-scans"},
		"claim":                    {merge: true, wantScan: "cwac-scans", wantMg: "cwac-scans"},
	} {
		t.Run(name, func(t *testing.T) {
			o := opts
			if tc.bucket {
				o = bucketOpts()
			}
			o.ServiceAccountName = "cwac-scans"
			if tc.merge {
				o.Bucket.ServiceAccountName = "cwac-merge"
			}
			if got := Job(scan, o, Baseline{}).Spec.Template.Spec.ServiceAccountName; got != tc.wantScan {
				t.Errorf("scan pods run as %q, want %q", got, tc.wantScan)
			}
			p := MergePod(scan, o, Baseline{}, nil)
			if p.Spec.ServiceAccountName != tc.wantMg || p.Spec.AutomountServiceAccountToken == nil || *p.Spec.AutomountServiceAccountToken {
				t.Errorf("merge pod runs as %q (token mounted: %v), want %q and no token", p.Spec.ServiceAccountName, p.Spec.AutomountServiceAccountToken, tc.wantMg)
			}
			if got := CleanupPod(scan, o).Spec.ServiceAccountName; got != "cwac-scans" {
				t.Errorf("the cleanup pod runs as %q, want the scan pods' account", got)
			}
		})
	}
}

func TestGrantSecret(t *testing.T) {
	scan := testScan()
	s := GrantSecret(scan, []byte(`{"x":1}`))
	if s.Name != scanspec.JobName(scan) || s.Namespace != scan.Namespace || string(s.Data[scanpod.GrantFile]) != `{"x":1}` ||
		s.Labels[LabelScanUID] != string(scan.UID) {
		t.Errorf("grant Secret %+v", s)
	}
}
