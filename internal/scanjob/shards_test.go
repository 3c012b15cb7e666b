package scanjob

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/validation"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

// shardedScan has six sites of four organisations (two of two sites, two of
// one), so four shards of at most two sites can each be filled.
func shardedScan(shards int32, policy cwacv1alpha1.ShardFailurePolicy) *cwacv1alpha1.CwacScan {
	scan := sampleScan()
	scan.Spec.URLs = nil
	scan.Spec.Sites = []cwacv1alpha1.Site{
		{URL: "https://a1.example.org/", Organisation: "A", Sector: "Health"},
		{URL: "https://a2.example.org/", Organisation: "A", Sector: "Health"},
		{URL: "https://b1.example.org/", Organisation: "B", Sector: "Health"},
		{URL: "https://b2.example.org/", Organisation: "B", Sector: "Health"},
		{URL: "https://c.example.org/", Organisation: "C", Sector: "Health"},
		{URL: "https://d.example.org/", Organisation: "D", Sector: "Health"},
	}
	scan.Spec.Shards = shards
	scan.Spec.ShardFailurePolicy = policy
	return scan
}

func TestShardedJobGolden(t *testing.T) {
	o := opts
	o.MaxPodsPerScan = 3
	golden(t, "job-sharded.yaml", Job(shardedScan(4, ""), o, Baseline{}))
}

// A sharded scan's Job is Indexed with one completion per shard that runs,
// as many at once as the cap allows, never retries a shard, and fails at
// the first failed shard unless the scan accepts partial results.
func TestShardedJob(t *testing.T) {
	// Two organisations of two sites each: a shard's share is 2 with 3
	// shards, so neither is cut and only two shards run.
	twoOrgs := func(shards int32) *cwacv1alpha1.CwacScan {
		s := shardedScan(shards, "")
		s.Spec.Sites = s.Spec.Sites[:4]
		return s
	}
	tests := []struct {
		name             string
		scan             *cwacv1alpha1.CwacScan
		maxPods          int
		completions      int32
		parallelism      int32
		maxFailedIndexes *int32 // nil: unset
	}{
		{"4 shards, no cap", shardedScan(4, ""), 0, 4, 4, ptr0()},
		{"4 shards, cap above", shardedScan(4, ""), 5, 4, 4, ptr0()},
		{"4 shards, cap at", shardedScan(4, ""), 4, 4, 4, ptr0()},
		{"4 shards, cap below", shardedScan(4, ""), 3, 4, 3, ptr0()},
		{"4 shards, cap of one pod", shardedScan(4, ""), 1, 4, 1, ptr0()},
		{"2 shards", shardedScan(2, ""), 0, 2, 2, ptr0()},
		{"policy Fail said", shardedScan(3, cwacv1alpha1.ShardFailurePolicyFail), 0, 3, 3, ptr0()},
		{"policy Partial", shardedScan(3, cwacv1alpha1.ShardFailurePolicyPartial), 2, 3, 2, nil},
		{"organisations cannot fill the shards", twoOrgs(3), 0, 2, 2, ptr0()},
		{"organisations cannot fill them, cap at", twoOrgs(3), 2, 2, 2, ptr0()},
		{"organisations cannot fill them, cap below", twoOrgs(3), 1, 2, 1, ptr0()},
		{"four sites, four shards: the organisations are cut", twoOrgs(4), 0, 4, 4, ptr0()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := opts
			o.MaxPodsPerScan = tt.maxPods
			job := Job(tt.scan, o, Baseline{})
			spec := job.Spec
			if spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion {
				t.Errorf("completionMode %v, want Indexed", spec.CompletionMode)
			}
			if *spec.Completions != tt.completions || *spec.Parallelism != tt.parallelism {
				t.Errorf("completions %d parallelism %d, want %d %d", *spec.Completions, *spec.Parallelism, tt.completions, tt.parallelism)
			}
			if got := ShardCount(tt.scan); got != int(tt.completions) {
				t.Errorf("ShardCount = %d, the Job has %d completions", got, tt.completions)
			}
			if got := Parallelism(tt.scan, o); got != int(tt.parallelism) {
				t.Errorf("Parallelism = %d, the Job runs %d at once", got, tt.parallelism)
			}
			if spec.BackoffLimitPerIndex == nil || *spec.BackoffLimitPerIndex != 0 {
				t.Errorf("backoffLimitPerIndex %v, want 0: a shard is not retried", spec.BackoffLimitPerIndex)
			}
			if *spec.BackoffLimit != math.MaxInt32 {
				t.Errorf("backoffLimit %d: any other value fails the Job after that many failed shards, whatever the policy", *spec.BackoffLimit)
			}
			if (spec.MaxFailedIndexes == nil) != (tt.maxFailedIndexes == nil) ||
				(spec.MaxFailedIndexes != nil && *spec.MaxFailedIndexes != *tt.maxFailedIndexes) {
				t.Errorf("maxFailedIndexes %v, want %v", spec.MaxFailedIndexes, tt.maxFailedIndexes)
			}
			if spec.Template.Spec.RestartPolicy != corev1.RestartPolicyNever {
				t.Errorf("restartPolicy %s: backoffLimitPerIndex needs Never", spec.Template.Spec.RestartPolicy)
			}
			// The runner is told spec.shards, not the number that runs:
			// Split with the spec's number gives every pod the same answer.
			want := "--shards=" + strconv.Itoa(int(tt.scan.Spec.Shards))
			if args := spec.Template.Spec.Containers[0].Args; !slices.Contains(args, want) {
				t.Errorf("args %v lack %s", args, want)
			}
			// The API server's rule for Indexed Jobs: <name>-<highest index> is a DNS label.
			if errs := validation.IsDNS1123Label(job.Name + "-" + strconv.Itoa(int(*spec.Completions)-1)); len(errs) > 0 {
				t.Errorf("Job name %q: %v", job.Name, errs)
			}
		})
	}
}

func ptr0() *int32 { v := int32(0); return &v }

// spec.shards of 1 (or unset) is today's Job exactly, whatever the cap.
func TestUnshardedJobUnchanged(t *testing.T) {
	capped := opts
	capped.MaxPodsPerScan = 1
	want := Job(sampleScan(), opts, Baseline{})
	for _, shards := range []int32{0, 1} {
		for _, o := range []Options{opts, capped} {
			scan := sampleScan()
			scan.Spec.Shards = shards
			scan.Spec.ShardFailurePolicy = cwacv1alpha1.ShardFailurePolicyPartial
			if got := Job(scan, o, Baseline{}); !equality.Semantic.DeepEqual(got, want) {
				t.Errorf("shards %d, cap %d: the Job differs from an unsharded scan's", shards, o.MaxPodsPerScan)
			}
			if ShardCount(scan) != 1 || Parallelism(scan, o) != 1 {
				t.Errorf("shards %d, cap %d: ShardCount %d, Parallelism %d; want 1, 1", shards, o.MaxPodsPerScan, ShardCount(scan), Parallelism(scan, o))
			}
		}
	}
	for _, a := range want.Spec.Template.Spec.Containers[0].Args {
		if strings.HasPrefix(a, "--shards") {
			t.Errorf("an unsharded scan's runner is told %s", a)
		}
	}
}

// A scan whose sites do not parse counts as spec.shards (its ConfigMap is
// refused before any Job is made).
func TestShardCountInvalidSites(t *testing.T) {
	scan := shardedScan(4, "")
	scan.Spec.Sites[0].URL = "ftp://a.example.org/"
	if got := ShardCount(scan); got != 4 {
		t.Errorf("ShardCount = %d, want spec.shards 4", got)
	}
}

// A sharded scan's pods are not given the baseline, even when the caller
// has a usable one: each shard holds part of the sites, and the merge pod
// compares the whole scan's results. An unsharded scan's pod is.
func TestShardsAreNotComparedWithTheBaseline(t *testing.T) {
	base := Baseline{Name: "last-week", ResultsPath: "ns/last-week-12345678/2026-11-15_10-00-00_last-week"}
	for _, tc := range []struct {
		shards int32
		want   bool
	}{{0, true}, {1, true}, {2, false}, {4, false}} {
		scan := shardedScan(4, "")
		scan.Spec.Shards = tc.shards
		pod := Job(scan, opts, base).Spec.Template.Spec
		mounted, flagged := false, false
		for _, m := range pod.Containers[0].VolumeMounts {
			mounted = mounted || m.MountPath == scanpod.BaselineDir
		}
		for _, a := range pod.Containers[0].Args {
			flagged = flagged || strings.HasPrefix(a, "--baseline-dir=")
		}
		if mounted != tc.want || flagged != tc.want {
			t.Errorf("shards %d: baseline mounted %v, flag %v; want %v", tc.shards, mounted, flagged, tc.want)
		}
	}
}
