package scanjob

import (
	"math"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/utils/ptr"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanspec"
	"github.com/a11y-dev/cwac-operator/internal/shard"
)

// ShardCount is the number of shards a scan actually runs as: the number of
// parts shard.Split makes of its sites, which is fewer than spec.shards when
// its organisations cannot fill them (status.shards.total). It is 1 for an
// unsharded scan, and spec.shards for a scan whose sites do not parse (its
// ConfigMap is refused first, so it never runs).
func ShardCount(scan *cwacv1alpha1.CwacScan) int {
	asked := scan.Spec.ShardCount()
	if asked == 1 {
		return 1
	}
	sites, err := scanspec.Sites(scan)
	if err != nil {
		return asked
	}
	return len(shard.Split(sites, asked))
}

// Parallelism is how many of the scan's pods run at once, the slots it
// takes under the operator's cap: one for an unsharded scan; for a sharded
// one its shards (ShardCount), at most Options.MaxPodsPerScan. The scan's
// Job carries the same number in spec.parallelism.
func Parallelism(scan *cwacv1alpha1.CwacScan, opts Options) int {
	n := ShardCount(scan)
	if opts.MaxPodsPerScan > 0 {
		n = min(n, opts.MaxPodsPerScan)
	}
	return n
}

// indexed makes spec the Indexed Job of a sharded scan: one completion per
// shard, each pod taking its shard from JOB_COMPLETION_INDEX.
//
// A shard pod is not retried (backoffLimitPerIndex 0). With
// shardFailurePolicy Fail (the default) maxFailedIndexes 0 fails the Job at
// the first failed shard, and the Job controller then stops the others;
// with Partial it is unset, so every shard runs, and the Job ends Failed
// with reason FailedIndexes once they have all ended with any failed. The
// Job-wide backoffLimit still counts every failed pod (the controller
// checks it whatever the per-index limit), so it must not stay 0, which
// would fail a Partial scan at its first failed shard: it gets the
// 2147483647 the API server defaults it to alongside backoffLimitPerIndex,
// leaving the per-index limits to decide.
func indexed(spec *batchv1.JobSpec, scan *cwacv1alpha1.CwacScan, opts Options) {
	spec.CompletionMode = ptr.To(batchv1.IndexedCompletion)
	spec.Completions = ptr.To(int32(ShardCount(scan)))
	spec.Parallelism = ptr.To(int32(Parallelism(scan, opts)))
	spec.BackoffLimitPerIndex = ptr.To[int32](0)
	spec.BackoffLimit = ptr.To[int32](math.MaxInt32)
	if scan.Spec.ShardFailurePolicy != cwacv1alpha1.ShardFailurePolicyPartial {
		spec.MaxFailedIndexes = ptr.To[int32](0)
	}
}
