package historywriter

import (
	"cmp"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/store"
)

// Recordable reports whether a scan's results belong in the history: a
// Complete scan, or a Failed one that still scanned pages (CWAC stopped
// part way, a shard failed, the deadline passed) and has a results
// directory. A Failed scan with no page scanned is left out: recording it
// would mark every open issue of its organisations "page not scanned".
func Recordable(scan *cwacv1alpha1.CwacScan) bool {
	switch scan.Status.Phase {
	case cwacv1alpha1.PhaseComplete:
		return scan.Status.ResultsPath != ""
	case cwacv1alpha1.PhaseFailed:
		s := scan.Status.Summary
		return scan.Status.ResultsPath != "" && s != nil && s.PagesScanned > 0
	}
	return false
}

// FinishedAt is when a scan finished: status.completionTime, else the time
// its Finished condition became true, else its creation (a scan finished
// by an operator that recorded neither).
func FinishedAt(scan *cwacv1alpha1.CwacScan) time.Time {
	if t := scan.Status.CompletionTime; t != nil {
		return t.UTC()
	}
	if c := meta.FindStatusCondition(scan.Status.Conditions, cwacv1alpha1.ConditionFinished); c != nil && c.Status == "True" {
		return c.LastTransitionTime.UTC()
	}
	return scan.CreationTimestamp.UTC()
}

// oldestFirst orders scans by the time they finished, then by name: the
// order the history must be written in.
func oldestFirst(a, b *cwacv1alpha1.CwacScan) int {
	return cmp.Or(FinishedAt(a).Compare(FinishedAt(b)), cmp.Compare(a.Name, b.Name))
}

// Describe is the store's record of a scan: its identity, schedule, when
// and how it finished, where its results are, and the CWAC image that ran
// it (image: the digest the pod reported, else the image the scan named).
func Describe(scan *cwacv1alpha1.CwacScan, image string) store.Scan {
	return store.Scan{
		UID:         string(scan.UID),
		Namespace:   scan.Namespace,
		Name:        scan.Name,
		Schedule:    scan.Labels[cwacv1alpha1.LabelSchedule],
		FinishedAt:  FinishedAt(scan),
		Phase:       string(scan.Status.Phase),
		ResultsPath: scan.Status.ResultsPath,
		Engine:      store.EngineVersions{CWACImageDigest: image},
	}
}

// imageDigest is what a pod's imageID says of the image: the runtime's
// prefix (docker-pullable://, docker://) dropped, so the same image reads
// the same on every runtime.
func imageDigest(imageID string) string {
	if _, rest, ok := strings.Cut(imageID, "://"); ok {
		return rest
	}
	return imageID
}
